// The work counter: capture group or first number, total vs increment, lines split across
// chunks and by '\r', invalid patterns, counter files.
#include "sources/sampler/work_counter.h"

#include <gtest/gtest.h>

#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

TEST(WorkCounterTest, TotalModeKeepsTheLastNumber) {
  auto c = WorkCounter::Create(R"(step (\d+)/\d+)", WorkMode::kTotal);
  ASSERT_TRUE(c.ok());
  (*c)->Feed("epoch 3 step 10/500 loss 0.5\nstep 2");
  EXPECT_EQ((*c)->total(), std::optional<double>(10));
  (*c)->Feed("0/500 loss 0.4\n");  // the line arrived in two chunks
  EXPECT_EQ((*c)->total(), std::optional<double>(20));
  (*c)->Feed("no match here 99\n");
  EXPECT_EQ((*c)->total(), std::optional<double>(20));
  EXPECT_EQ((*c)->matched_lines(), 2);
}

TEST(WorkCounterTest, IncrementModeAddsEachLine) {
  auto c = WorkCounter::Create("processed [0-9.]+ samples", WorkMode::kIncrement);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE((*c)->total().has_value());
  (*c)->Feed("processed 256 samples\rprocessed 256 samples\rprocessed 128.5 samples");
  (*c)->Flush();
  EXPECT_EQ((*c)->total(), std::optional<double>(640.5));
}

TEST(WorkCounterTest, StdoutAndStderrLinesStayApart) {
  auto c = WorkCounter::Create(R"(step (\d+))", WorkMode::kTotal);
  ASSERT_TRUE(c.ok());
  (*c)->Feed("ste", 0);
  (*c)->Feed("warning: slow\n", 1);  // interleaved stderr must not break the stdout line
  (*c)->Feed("p 42\n", 0);
  EXPECT_EQ((*c)->total(), std::optional<double>(42));
  EXPECT_EQ((*c)->matched_lines(), 1);
}

TEST(WorkCounterTest, EmptyMatchesAndGroupsAreNotNumbers) {
  auto c = WorkCounter::Create("(x*)$", WorkMode::kTotal);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->ValueOf("abc"), std::nullopt);  // empty group at the end of the line
}

TEST(WorkCounterTest, FirstNumberInTheMatchWithoutAGroup) {
  auto c = WorkCounter::Create("tokens=[^ ]+", WorkMode::kTotal);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->ValueOf("it 5 tokens=1.5e3 done"), std::optional<double>(1500));
  EXPECT_EQ((*c)->ValueOf("tokens=n/a"), std::nullopt);
  EXPECT_EQ((*c)->ValueOf("nothing"), std::nullopt);
}

TEST(WorkCounterTest, InvalidPatternIsAnError) {
  auto c = WorkCounter::Create("step (\\d+", WorkMode::kTotal);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("--work-regex"), std::string::npos);
}

TEST(WorkCounterTest, OverlongLinesAreCut) {
  auto c = WorkCounter::Create(R"(n=(\d+))", WorkMode::kIncrement);
  ASSERT_TRUE(c.ok());
  (*c)->Feed("n=1 " + std::string(200000, 'x') + " n=5\nn=2\n");
  EXPECT_EQ((*c)->total(), std::optional<double>(3));
}

TEST(WorkCounterTest, ReadsAWorkFile) {
  test::TempTree tree("work_file");
  tree.Write("c", "samples=12800\n");
  EXPECT_EQ(ReadWorkFile(tree.Path("c")).value_or(-1), 12800);
  tree.Write("empty", "");
  EXPECT_EQ(ReadWorkFile(tree.Path("empty")).status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ReadWorkFile(tree.Path("missing")).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace gpuvet
