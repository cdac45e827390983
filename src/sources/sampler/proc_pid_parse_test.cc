// Tests of the per-process parsers: stat lines with hostile comm fields, truncated lines, io files
// with missing keys, and cpu.stat of cgroup v1 and v2.
#include "sources/sampler/proc_pid_parse.h"

#include <gtest/gtest.h>

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
