// Tests of the per-process parsers: io files with missing keys, and cpu.stat of cgroup v1 and v2
// (the stat line parser is tested in sources/host/pid_stat_test.cc).
#include "sources/sampler/proc_pid_parse.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

TEST(PidIoTest, ParsesAndRejectsMissingKeys) {
  constexpr char kIo[] =
      "rchar: 323934931\nwchar: 323929600\nsyscr: 632687\nsyscw: 632675\n"
      "read_bytes: 4096\nwrite_bytes: 323932160\ncancelled_write_bytes: 0\n";
  Result<PidIo> io = ParsePidIo(kIo);
  ASSERT_TRUE(io.ok()) << io.status().message();
  EXPECT_EQ(io->rchar, 323934931u);
  EXPECT_EQ(io->syscr, 632687u);
  EXPECT_EQ(io->read_bytes, 4096u);
  EXPECT_EQ(io->write_bytes, 323932160u);
  Result<PidIo> missing = ParsePidIo("rchar: 1\nwchar: 2\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("syscr"), std::string::npos);
  EXPECT_FALSE(ParsePidIo("").ok());
}

TEST(CgroupCpuStatTest, V2AndV1) {
  Result<CgroupThrottle> v2 = ParseCgroupCpuStat(
      "usage_usec 8000000\nuser_usec 6000000\nsystem_usec 2000000\nnr_periods 100\n"
      "nr_throttled 40\nthrottled_usec 1500000\nnr_bursts 0\nburst_usec 0\n");
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(v2->nr_throttled, 40u);
  EXPECT_EQ(v2->throttled_us, 1500000u);
  Result<CgroupThrottle> v1 =
      ParseCgroupCpuStat("nr_periods 100\nnr_throttled 7\nthrottled_time 2500000000\n");
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(v1->nr_throttled, 7u);
  EXPECT_EQ(v1->throttled_us, 2500000u);
  // v2 without the cpu controller prints usage only: not supported, not zero throttling.
  Result<CgroupThrottle> none = ParseCgroupCpuStat("usage_usec 1\nuser_usec 1\nsystem_usec 0\n");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotSupported);
  EXPECT_FALSE(ParseCgroupCpuStat("nr_throttled x\nthrottled_usec 5\n").ok());
}

}  // namespace
}  // namespace gpuvet
