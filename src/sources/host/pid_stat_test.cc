// Tests of the one /proc/PID/stat parser: real lines, comm fields with spaces and parentheses,
// truncated and garbled lines, and the readers over a fixture tree (exited process, zombie, a
// thread's stat, a file that does not parse).
#include "sources/host/pid_stat.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

// A real line from Linux 6.1 (python3 with 5 threads).
constexpr char kStat[] =
    "4242 (python3) R 4200 4242 4200 34816 4242 4194304 51234 0 12 0 1234 567 0 0 20 0 5 0 "
    "987654 1234567890 45678 18446744073709551615 94000000000000 94000000100000 140720000000000 "
    "0 0 0 0 16781312 134234626 0 0 0 17 3 0 0 0 0 0 94000000200000 94000000300000 "
    "94000000400000 140720000001000 140720000002000 140720000002000 140720000003000 0\n";

TEST(PidStatTest, ParsesFields) {
  Result<PidStat> s = ParsePidStat(kStat);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->pid, 4242);
  EXPECT_EQ(s->comm, "python3");
  EXPECT_EQ(s->state, 'R');
  EXPECT_EQ(s->ppid, 4200);
  EXPECT_EQ(s->utime, 1234u);
  EXPECT_EQ(s->stime, 567u);
  EXPECT_EQ(s->num_threads, 5);
  EXPECT_EQ(s->starttime, 987654u);
  EXPECT_EQ(s->rss_pages, 45678);
}

TEST(PidStatTest, CommWithSpacesAndParentheses) {
  Result<PidStat> s = ParsePidStat(
      "77 (pt_data_worker) 0 (x)) S 1 77 77 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 0 10 0\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->comm, "pt_data_worker) 0 (x)");
  EXPECT_EQ(s->ppid, 1);
  EXPECT_EQ(s->utime, 5u);
  EXPECT_EQ(s->rss_pages, 10);
}

TEST(PidStatTest, TruncatedOrGarbled) {
  EXPECT_FALSE(ParsePidStat("").ok());
  EXPECT_FALSE(ParsePidStat("77 (a) S 1 2 3").ok());
  EXPECT_FALSE(ParsePidStat("77 (a S 1 77 77 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 0 10 0").ok());
  EXPECT_FALSE(ParsePidStat("x (a) S 1 77 77 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 0 10 0").ok());
  EXPECT_FALSE(ParsePidStat("77 (a) S 1 77 77 0 -1 0 0 0 0 0 x 6 0 0 20 0 1 0 100 0 10 0").ok());
  EXPECT_FALSE(ParsePidStat("77 (a) SS 1 77 77 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 0 10 0").ok());
  std::string cut(kStat);
  for (size_t n = 0; n < 60; ++n) {
    EXPECT_FALSE(ParsePidStat(std::string_view(cut).substr(0, n)).ok()) << n;
  }
}

TEST(PidStatTest, CommThatLooksLikeFields) {
  // A comm of spaces, digits and a closing parenthesis followed by a state-like letter.
  Result<PidStat> s =
      ParsePidStat("12 ( ) Z 99 ) R 7 12 12 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 100 0 10 0\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->comm, " ) Z 99 ");
  EXPECT_EQ(s->state, 'R');
  EXPECT_EQ(s->ppid, 7);
  Result<PidStat> empty =
      ParsePidStat("13 () S 1 13 13 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 100 0 10 0\n");
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->comm, "");
}

TEST(PidStatTest, HostileNumbers) {
  EXPECT_FALSE(ParsePidStat("0 (a) S 1 0 0 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 0 10 0").ok());
  EXPECT_FALSE(
      ParsePidStat("99999999999 (a) S 1 0 0 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 0 10 0").ok());
  EXPECT_FALSE(ParsePidStat("7 (a) S -1 0 0 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 0 10 0").ok());
  EXPECT_FALSE(
      ParsePidStat("7 (a) S 1 0 0 0 -1 0 0 0 0 0 99999999999999999999999 6 0 0 20 0 1 0 100 0 10 0")
          .ok());
  EXPECT_FALSE(ParsePidStat("7 (a) S 1 0 0 0 -1 0 0 0 0 0 5 -6 0 0 20 0 1 0 100 0 10 0").ok());
}

TEST(PidStatTest, ReadsThroughHostPaths) {
  test::TempTree tree("pid_stat");
  tree.Write("proc/4242/stat", kStat);
  tree.Write("proc/4242/task/4243/stat",
             "4243 (worker 1) S 4200 4242 4200 0 -1 0 0 0 0 0 8 9 0 0 20 0 5 0 987655 0 0 0\n");
  tree.Write("proc/77/stat", "77 (defunct) Z 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 0\n");
  tree.Write("proc/78/stat", "garbage\n");
  const HostPaths paths(tree.root());

  Result<PidStat> live = ReadPidStat(paths, 4242);
  ASSERT_TRUE(live.ok()) << live.status().message();
  EXPECT_EQ(live->comm, "python3");
  Result<PidStat> thread = ReadStatFile(paths.Proc("4242/task/4243/stat"));
  ASSERT_TRUE(thread.ok()) << thread.status().message();
  EXPECT_EQ(thread->comm, "worker 1");
  EXPECT_EQ(thread->utime, 8u);
  Result<PidStat> zombie = ReadPidStat(paths, 77);
  ASSERT_TRUE(zombie.ok());
  EXPECT_EQ(zombie->state, 'Z');

  Result<PidStat> gone = ReadPidStat(paths, 4244);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), StatusCode::kNotFound);
  Result<PidStat> bad = ReadPidStat(paths, 78);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(bad.status().message(), tree.Path("proc/78/stat") + ": stat line without '(comm)'");
}

TEST(PidStatTest, ReadsOwnProcess) {
  Result<PidStat> self = ReadPidStat(HostPaths(), static_cast<int>(::getpid()));
  ASSERT_TRUE(self.ok()) << self.status().message();
  EXPECT_EQ(self->pid, ::getpid());
  EXPECT_EQ(self->ppid, ::getppid());
  EXPECT_FALSE(self->comm.empty());
}

}  // namespace
}  // namespace gpuvet
