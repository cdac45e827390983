#include "analysis/trace/breakdown/idle_breakdown.h"

#include <gtest/gtest.h>

#include "analysis/trace/breakdown/temporal_breakdown.h"
#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

TEST(IdleBreakdownTest, HostWaitKernelWaitAndOtherAsHta) {
  TraceBuilder b;
  b.Launched("k1", 0, 5, 10, 10);     // ends at 20
  b.Launched("k2", 30, 5, 40, 10);    // launched at 30 > 20: host wait 20
  b.Launched("k3", 41, 5, 55, 10);    // launched at 41 < 50, gap 5 < 30: kernel wait 5
  b.Launched("k4", 50, 5, 165, 10);   // launched at 50 < 65, gap 100: other 100
  b.Kernel("k5", 180, 10);            // no launch call in the trace, gap 5: kernel wait 5
  b.Launched("s1", 0, 5, 10, 10, 9);  // another stream, alone: no idle
  RankTrace t = b.Build();
  auto idle = ComputeIdleBreakdown(t, SelectHtaOps(t), TraceThresholds{});
  ASSERT_EQ(idle.size(), 2u);
  const StreamIdle& s = idle[0];
  EXPECT_EQ(s.stream, 7);
  EXPECT_EQ(s.ops, 5u);
  EXPECT_EQ(s.host_wait_ns, 20'000);
  EXPECT_EQ(s.kernel_wait_ns, 10'000);
  EXPECT_EQ(s.other_ns, 100'000);
  EXPECT_EQ(s.idle_ns(), 130'000);
  EXPECT_NEAR(s.host_wait_ratio, 20.0 / 130, 1e-12);
  EXPECT_NEAR(s.other_ratio, 100.0 / 130, 1e-12);
  EXPECT_EQ(idle[1].stream, 9);
  EXPECT_EQ(idle[1].idle_ns(), 0);
  EXPECT_EQ(idle[1].host_wait_ratio, 0);
}

TEST(IdleBreakdownTest, DelayThresholdIsStrictAndConfigurable) {
  TraceBuilder b;
  b.Launched("k1", 0, 1, 10, 10);
  b.Launched("k2", 1, 1, 50, 10);  // gap exactly 30 µs: not < 30, so other (HTA: idle < delay)
  RankTrace t = b.Build();
  auto idle = ComputeIdleBreakdown(t, SelectHtaOps(t), TraceThresholds{});
  EXPECT_EQ(idle[0].other_ns, 30'000);
  TraceThresholds th;
  th.consecutive_kernel_delay_ns = 31'000;
  idle = ComputeIdleBreakdown(t, SelectHtaOps(t), th);
  EXPECT_EQ(idle[0].kernel_wait_ns, 30'000);
}

TEST(IdleBreakdownTest, OverlappingOpsOnOneStreamAddNoNegativeIdle) {
  TraceBuilder b;
  b.Kernel("k1", 0, 20);
  b.Kernel("k2", 10, 5);
  RankTrace t = b.Build();
  auto idle = ComputeIdleBreakdown(t, SelectHtaOps(t), TraceThresholds{});
  EXPECT_EQ(idle[0].idle_ns(), 0);
}

// Two streams that take turns: each stream's own gaps are mostly the other stream's busy time,
// which is not GPU idle. The GPU is idle only between 1000 and 19000 µs, when the host launched
// nothing (HTA's cuda_event_sync_multi_stream case): that gap is host wait.
TEST(IdleBreakdownTest, GpuIdleIsTheMergedTimelinesGaps) {
  TraceBuilder b;
  b.Launched("a1", 0, 5, 10, 490, 7);
  b.Launched("b1", 1, 5, 500, 500, 8);       // queued early, runs when a1 ends
  b.Launched("a2", 19000, 5, 19010, 90, 7);  // the host comes back 18 ms later
  b.Launched("b2", 19001, 5, 19100, 100, 8);
  b.Launched("a3", 19002, 5, 19210, 50, 7);  // queued: a 10 µs gap is kernel wait
  RankTrace t = b.Build();
  OpWindow w = SelectHtaOps(t);
  StreamIdle g = ComputeGpuIdle(t, w, TraceThresholds{});
  EXPECT_EQ(g.ops, 5u);
  EXPECT_EQ(g.host_wait_ns, 18'010'000);  // 1000 -> 19010
  EXPECT_EQ(g.kernel_wait_ns, 10'000);    // 19200 -> 19210
  EXPECT_EQ(g.other_ns, 0);
  EXPECT_EQ(g.idle_ns(), ComputeTemporal(t, w).idle_ns);
  // Per stream, stream 7's first gap (500 -> 19010) also counts b1's 500 µs of work as idle.
  auto per_stream = ComputeIdleBreakdown(t, w, TraceThresholds{});
  ASSERT_EQ(per_stream.size(), 2u);
  EXPECT_EQ(per_stream[0].idle_ns(), 18'510'000 + 110'000);
}

}  // namespace
}  // namespace gpuvet
