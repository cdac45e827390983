// Run grouping: ranks of one job form one run; another world size, device, time or a repeated
// rank starts another, and no straggler is named across runs.
#include "analysis/trace/run_groups.h"

#include <gtest/gtest.h>

#include "analysis/trace/analyze.h"
#include "analysis/trace/straggler.h"
#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

// Ten 20 ms steps of compute then an all-reduce; `late_us` delays the all-reduce.
RankTrace Rank(int rank, int world, const std::string& gpu, double t0_us, double late_us = 0) {
  TraceBuilder b;
  for (int s = 0; s < 10; ++s) {
    double ts = t0_us + s * 20000.0;
    b.Step("ProfilerStep#" + std::to_string(s), ts, 20000);
    b.Launched("gemm", ts, 5, ts + 10, 4000);
    b.Launched("ncclDevKernel_AllReduce_Sum_f32_RING_LL", ts + 4100 + late_us, 5,
               ts + 4110 + late_us, 14000 - late_us, 20);
  }
  RankTrace t = b.Build();
  t.rank = rank;
  t.world_size = world;
  t.gpu_name = gpu;
  t.source = "r" + std::to_string(rank) + "@" + std::to_string(static_cast<int64_t>(t0_us));
  return t;
}

TEST(RunGroupsTest, RanksOfOneJobAreOneRun) {
  std::vector<TraceRun> runs = GroupRuns({Rank(0, 2, "A100", 0), Rank(1, 2, "A100", 5)});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(runs[0].mean_step_ns, 20'000'000);
}

TEST(RunGroupsTest, DifferentWorldSizeDeviceOrTimeAreSeparateRuns) {
  EXPECT_EQ(GroupRuns({Rank(0, 8, "A100", 0), Rank(1, 2, "A100", 0)}).size(), 2u);
  EXPECT_EQ(GroupRuns({Rank(0, 2, "A100", 0), Rank(1, 2, "V100", 0)}).size(), 2u);
  EXPECT_EQ(GroupRuns({Rank(0, 2, "A100", 0), Rank(1, 2, "A100", 735003.84e6)}).size(), 2u);
  EXPECT_EQ(GroupRuns({Rank(0, 1, "A100", 0), Rank(0, 1, "A100", 0)}).size(), 2u);
}

TEST(RunGroupsTest, CpuOnlyRankJoinsItsJob) {
  RankTrace cpu;
  cpu.rank = 1;
  cpu.world_size = 2;
  cpu.steps.push_back({100, 1000, 0, 1});
  std::vector<TraceRun> runs = GroupRuns({Rank(0, 2, "A100", 0), cpu});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].device, "A100 (cuda)");
}

TEST(RunGroupsTest, NoStragglerAcrossRuns) {
  // Days apart, the "late" rank would be 735003 s behind.
  CrossRank x =
      ComputeCrossRank({Rank(0, 2, "A100", 0), Rank(1, 2, "A100", 735003.84e6)}, TraceThresholds{});
  EXPECT_EQ(x.runs.size(), 2u);
  EXPECT_TRUE(x.lateness.empty());
  EXPECT_TRUE(x.stragglers.empty());
  EXPECT_TRUE(x.missing_ranks.empty());
  TraceReport r =
      AnalyzeTraces({Rank(0, 2, "A100", 0), Rank(1, 2, "A100", 735003.84e6)}, TraceOptions{});
  bool separate = false;
  for (const Finding& f : r.findings) {
    EXPECT_NE(f.id, "trace.straggler") << f.summary;
    separate |= f.id == "trace.separate_runs" && f.severity == Severity::kWarn;
  }
  EXPECT_TRUE(separate);
}

TEST(RunGroupsTest, OneRunStillFindsItsStraggler) {
  CrossRank x =
      ComputeCrossRank({Rank(0, 2, "A100", 0), Rank(1, 2, "A100", 0, 5000)}, TraceThresholds{});
  EXPECT_EQ(x.runs.size(), 1u);
  EXPECT_EQ(x.stragglers, (std::vector<int>{1}));
  EXPECT_FALSE(x.clocks_disagree);
}

TEST(RunGroupsTest, DelayBeyondAStepIsClockSkewNotAStraggler) {
  // Overlapping spans, but rank 1's clock is 30 ms (1.5 steps) ahead.
  RankTrace a = Rank(0, 2, "A100", 0);
  RankTrace b = Rank(1, 2, "A100", 0);
  for (GpuOp& op : b.gpu_ops) op.start_ns += 30'000'000;
  for (RuntimeCall& c : b.runtime) c.start_ns += 30'000'000;
  for (TraceRange& s : b.steps) s.start_ns += 30'000'000;
  CrossRank x = ComputeCrossRank({a, b}, TraceThresholds{});
  EXPECT_TRUE(x.clocks_disagree);
  EXPECT_TRUE(x.stragglers.empty());
}

}  // namespace
}  // namespace gpuvet
