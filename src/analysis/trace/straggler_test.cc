#include "analysis/trace/straggler.h"

#include <gtest/gtest.h>

#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

// One rank with three 1 ms steps; in each, a compute kernel then an all-reduce launched at
// step start + launch_offset_us.
RankTrace Rank(int rank, double launch_offset_us) {
  TraceBuilder b;
  for (int s = 0; s < 3; ++s) {
    double t0 = s * 1000;
    b.Step("ProfilerStep#" + std::to_string(s), t0, 1000);
    b.Launched("gemm", t0 + 1, 5, t0 + 10, 100);
    b.Launched("ncclKernel_AllReduce", t0 + launch_offset_us, 5, t0 + launch_offset_us + 10, 300);
    b.Launched("ncclKernel_Tiny", t0 + 500, 5, t0 + 900, 1);  // < 1 % of a step: ignored
  }
  RankTrace t = b.Build();
  t.rank = rank;
  t.world_size = 4;
  return t;
}

TEST(StragglerTest, LateRankFoundAndMissingRanksListed) {
  std::vector<RankTrace> ranks = {Rank(0, 200), Rank(1, 450)};
  CrossRank x = ComputeCrossRank(ranks, TraceThresholds{});
  EXPECT_EQ(x.world_size, 4);
  EXPECT_EQ(x.ranks_present, (std::vector<int>{0, 1}));
  EXPECT_EQ(x.missing_ranks, (std::vector<int>{2, 3}));
  EXPECT_EQ(x.collective, "ncclKernel_AllReduce");
  EXPECT_EQ(x.steps_compared, 3u);
  ASSERT_EQ(x.lateness.size(), 2u);
  EXPECT_EQ(x.lateness[0].late_count, 0u);
  EXPECT_EQ(x.lateness[1].late_count, 3u);
  EXPECT_EQ(x.lateness[1].mean_delay_ns, 250'000);
  EXPECT_EQ(x.stragglers, (std::vector<int>{1}));
}

TEST(StragglerTest, SingleRankOrUnknownRanksCompareNothing) {
  std::vector<RankTrace> ranks = {Rank(0, 200)};
  CrossRank x = ComputeCrossRank(ranks, TraceThresholds{});
  EXPECT_TRUE(x.lateness.empty());
  EXPECT_TRUE(x.stragglers.empty());
  ranks.push_back(Rank(1, 200));
  ranks[0].rank = -1;
  EXPECT_TRUE(ComputeCrossRank(ranks, TraceThresholds{}).lateness.empty());
}

}  // namespace
}  // namespace gpuvet
