// Tests for the shell-free command runner: arguments arrive byte for byte (a shell would expand
// $(…), split on spaces and run after ';'), exit codes and stderr are reported, a missing program
// and a hung one are errors with a reason, never a hang.
#include "util/command_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>

#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

TEST(CommandRunnerTest, ArgumentsReachTheProgramVerbatim) {
  test::TempTree tree("runner");
  const std::string marker = tree.Path("pwned");
  const std::string evil = "$(touch " + marker + "); touch " + marker + " `id` \"q\" 'r' | &";
  CommandResult r = RunCommand({"printf", "%s|", "a b", evil}, 5);
  ASSERT_TRUE(r.ok()) << r.Describe();
  EXPECT_EQ(r.out, "a b|" + evil + "|");
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "a shell ran the argument";
}

TEST(CommandRunnerTest, ExitCodeAndStderr) {
  CommandResult r = RunCommand({"ls", "/nonexistent/gpuvet-dir"}, 5);
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.Describe().find("exit 2: ls:"), std::string::npos) << r.Describe();
}

TEST(CommandRunnerTest, MissingProgram) {
  CommandResult r = RunCommand({"gpuvet-no-such-program"}, 5);
  EXPECT_FALSE(r.started);
  EXPECT_EQ(r.Describe(), "did not start: gpuvet-no-such-program: No such file or directory");
}

TEST(CommandRunnerTest, DeadlineKills) {
  auto start = std::chrono::steady_clock::now();
  CommandResult r = RunCommand({"sleep", "30"}, 0.3);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.Describe(), "timed out after 0.3 s (killed)");
}

TEST(CommandRunnerTest, DeadlineHoldsAfterTheChildClosesItsOutput) {
  auto start = std::chrono::steady_clock::now();
  CommandResult r = RunCommand({"sh", "-c", "exec >&- 2>&-; exec sleep 30"}, 0.3);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(r.timed_out);
}

}  // namespace
}  // namespace gpuvet
