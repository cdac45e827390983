#include "analysis/trace/breakdown/temporal_breakdown.h"

#include <gtest/gtest.h>

#include "analysis/trace/intervals.h"
#include "analysis/trace/op_window.h"
#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

TEST(IntervalsTest, MergeUnionIntersectionClip) {
  auto m = MergeIntervals({{10, 20}, {0, 5}, {5, 8}, {15, 30}, {40, 39}});
  ASSERT_EQ(m.size(), 3u);  // [0,8] (touching merged), [10,30], [40,40]
  EXPECT_EQ(m[0].start, 0);
  EXPECT_EQ(m[0].end, 8);
  EXPECT_EQ(m[1].end, 30);
  EXPECT_EQ(TotalLength(m), 28);
  EXPECT_EQ(IntersectionLength(m, MergeIntervals({{6, 12}, {25, 50}})), 2 + 2 + 5);
  EXPECT_EQ(ClippedLength(m, 4, 12), 4 + 2);
  EXPECT_EQ(TotalLength({}), 0);
}

// Four ops: compute 0–10, NCCL 5–20 (other stream), HtoD copy 25–30, compute 40–50 (µs).
RankTrace FourOps() {
  TraceBuilder b;
  b.Kernel("sm80_xmma_gemm", 0, 10);
  b.Kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 5, 15, 9);
  b.Copy(CopyKind::kHtoD, 4096, 25, 5, MemKind::kPinned);
  b.Kernel("vectorized_elementwise_kernel", 40, 10);
  return b.Build();
}

TEST(TemporalBreakdownTest, HtaDefinitionOnHandBuiltTrace) {
  RankTrace t = FourOps();
  TemporalBreakdown tb = ComputeTemporal(t, SelectHtaOps(t));
  EXPECT_EQ(tb.span_ns, 50'000);
  EXPECT_EQ(tb.idle_ns, 15'000);         // 50 − |[0,20] ∪ [25,30] ∪ [40,50]|
  EXPECT_EQ(tb.compute_ns, 20'000);      // [0,10] ∪ [40,50]
  EXPECT_EQ(tb.non_compute_ns, 15'000);  // the rest of the busy time
  EXPECT_DOUBLE_EQ(tb.idle_pct, 30);
  EXPECT_DOUBLE_EQ(tb.compute_pct, 40);
  EXPECT_DOUBLE_EQ(tb.non_compute_pct, 30);
  EXPECT_EQ(tb.ops_counted, 4u);
  EXPECT_FALSE(tb.last_step_excluded);
}

TEST(TemporalBreakdownTest, EmptyTraceIsAllZero) {
  RankTrace t = TraceBuilder().Build();
  TemporalBreakdown tb = ComputeTemporal(t, SelectHtaOps(t));
  EXPECT_EQ(tb.span_ns, 0);
  EXPECT_EQ(tb.idle_pct, 0);
}

TEST(TemporalBreakdownTest, CommCompOverlap) {
  RankTrace t = FourOps();
  CommOverlap o = ComputeCommOverlap(t, SelectHtaOps(t));
  EXPECT_EQ(o.comm_ns, 15'000);
  EXPECT_EQ(o.overlapped_ns, 5'000);  // NCCL 5–20 under GEMM 0–10
  EXPECT_EQ(o.exposed_ns, 10'000);
  EXPECT_NEAR(o.overlap_pct, 100.0 / 3, 1e-9);
}

TEST(OpWindowTest, LastProfilerStepExcludedOnlyWithSeveralSteps) {
  TraceBuilder b;
  b.Step("ProfilerStep#1", 0, 100);
  b.Step("ProfilerStep#2", 100, 100);
  b.Launched("k_a", 10, 5, 20, 10);
  b.Launched("k_b", 150, 5, 160, 10);  // launched in the last step: dropped
  b.Kernel("k_no_corr", 170, 10);      // its launch is not in the trace: dropped too
  b.trace().gpu_ops.back().correlation = 99;
  RankTrace t = b.Build();
  OpWindow w = SelectHtaOps(t);
  EXPECT_TRUE(w.last_step_excluded);
  ASSERT_EQ(w.ops.size(), 1u);
  EXPECT_EQ(t.Name(t.gpu_ops[w.ops[0]].name), "k_a");

  t.steps.pop_back();  // one step: HTA keeps everything
  w = SelectHtaOps(t);
  EXPECT_FALSE(w.last_step_excluded);
  EXPECT_EQ(w.ops.size(), 3u);
}

TEST(StepStatsTest, BusyAndIdlePerStep) {
  TraceBuilder b;
  b.Step("ProfilerStep#1", 0, 100);
  b.Step("ProfilerStep#2", 100, 50);
  b.Kernel("k", 10, 20);
  b.Kernel("k", 90, 20);  // straddles both steps: 10 µs in each
  RankTrace t = b.Build();
  auto steps = ComputeSteps(t);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].name, "ProfilerStep#1");
  EXPECT_EQ(steps[0].gpu_busy_ns, 30'000);
  EXPECT_DOUBLE_EQ(steps[0].busy_pct, 30);
  EXPECT_DOUBLE_EQ(steps[0].idle_pct, 70);
  EXPECT_EQ(steps[1].gpu_busy_ns, 10'000);
  EXPECT_DOUBLE_EQ(steps[1].busy_pct, 20);
}

}  // namespace
}  // namespace gpuvet
