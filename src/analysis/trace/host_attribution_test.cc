// Who holds the idle GPU: DataLoader, optimizer, syncs or the rest, with the DataLoader's share
// of step time; and the host_cpu_bound finding's decision following the holder.
#include "analysis/trace/host_attribution.h"

#include <gtest/gtest.h>

#include "analysis/trace/analyze.h"
#include "analysis/trace/breakdown/temporal_breakdown.h"
#include "analysis/trace/copy_analysis.h"
#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

// Ten 10 ms steps: `loader_us` in the DataLoader, then kernels, then `opt_us` of optimizer with
// tiny kernels spread over it.
RankTrace Steps(double loader_us, double opt_us) {
  TraceBuilder b;
  for (int s = 0; s < 10; ++s) {
    double ts = s * 10000.0;
    b.Step("ProfilerStep#" + std::to_string(s), ts, 10000);
    b.Phase(HostPhaseKind::kDataLoader, ts, loader_us);
    double k = ts + loader_us;
    for (int i = 0; i < 10; ++i) {
      b.Launched("gemm", k, 5, k + 10, 200);
      k += 210;
    }
    b.Phase(HostPhaseKind::kOptimizerStep, k, opt_us);
    for (int i = 0; i < 10; ++i)
      b.Launched("adam", k + i * opt_us / 10, 5, k + i * opt_us / 10 + 8, 3);
  }
  return b.Build();
}

HostAttribution Attribute(const RankTrace& t) {
  OpWindow w = SelectHtaOps(t);
  return ComputeHostAttribution(t, w, ComputeTemporal(t, w));
}

TEST(HostAttributionTest, DataLoaderHeavySteps) {
  HostAttribution h = Attribute(Steps(6000, 500));
  EXPECT_TRUE(h.has_phases);
  EXPECT_EQ(h.steps, 10u);
  EXPECT_NEAR(h.dataloader_step_pct, 60.0, 0.01);
  EXPECT_NEAR(h.dataloader_max_step_pct, 60.0, 0.01);
  EXPECT_GT(h.dataloader_idle_ns, h.optimizer_idle_ns);
  EXPECT_EQ(h.idle_ns,
            h.sync_idle_ns + h.dataloader_idle_ns + h.optimizer_idle_ns + h.other_idle_ns);
}

TEST(HostAttributionTest, DataLoaderLightOptimizerHeavySteps) {
  HostAttribution h = Attribute(Steps(100, 5000));
  EXPECT_NEAR(h.dataloader_step_pct, 1.0, 0.01);
  EXPECT_GT(h.optimizer_idle_ns, 4 * h.dataloader_idle_ns);
}

TEST(HostAttributionTest, SyncsComeFirst) {
  TraceBuilder b;
  b.Kernel("a", 0, 100);
  b.Phase(HostPhaseKind::kDataLoader, 100, 900);
  b.Call("cudaStreamSynchronize", RuntimeKind::kStreamSync, 100, 400);
  b.Kernel("b", 1000, 100);
  RankTrace t = b.Build();
  HostAttribution h = Attribute(t);
  EXPECT_EQ(h.idle_ns, 900'000);
  EXPECT_EQ(h.sync_idle_ns, 400'000);
  EXPECT_EQ(h.dataloader_idle_ns, 500'000);
  EXPECT_EQ(h.other_idle_ns, 0);
  EXPECT_EQ(h.steps, 0u);
}

// The "host syncs" share is the time trace.sync_stalls counts as sync while the GPU idles, also
// when a sync overlaps a GPU op outside HTA's window (launched in the last step) or a busy GPU.
TEST(HostAttributionTest, SyncIdleIsSyncStallsTime) {
  TraceBuilder b;
  for (int s = 0; s < 3; ++s) {
    double ts = s * 1000.0;
    b.Step("ProfilerStep#" + std::to_string(s), ts, 1000);
    b.Launched("gemm", ts, 5, ts + 10, 300);
    b.Call("cudaDeviceSynchronize", RuntimeKind::kDeviceSync, ts + 200, 600);
  }
  // Outside HTA's window (launched in the last step), run inside the span while step 0's sync
  // waits: the GPU is not idle then.
  b.Launched("late", 2100, 5, 600, 100);
  RankTrace t = b.Build();
  OpWindow w = SelectHtaOps(t);
  TemporalBreakdown tb = ComputeTemporal(t, w);
  HostAttribution h = ComputeHostAttribution(t, w, tb);
  CopyStats c = ComputeCopyStats(t, TraceThresholds{}, tb.start_ns, tb.end_ns);
  EXPECT_EQ(h.sync_idle_ns, 390'000);
  EXPECT_EQ(h.sync_idle_ns, c.sync_idle_in_span_ns);
  EXPECT_EQ(h.idle_ns,
            h.sync_idle_ns + h.dataloader_idle_ns + h.optimizer_idle_ns + h.other_idle_ns);
}

TEST(HostAttributionTest, NoPhasesIsAllOtherHostWork) {
  TraceBuilder b;
  b.Kernel("a", 0, 100);
  b.Kernel("b", 300, 100);
  HostAttribution h = Attribute(b.Build());
  EXPECT_FALSE(h.has_phases);
  EXPECT_EQ(h.other_idle_ns, 200'000);
}

std::string HostDecision(const RankTrace& t) {
  TraceReport r = AnalyzeTraces({t}, TraceOptions{});
  for (const Finding& f : r.findings) {
    if (f.id == "trace.host_cpu_bound" && f.severity == Severity::kWarn) return f.decision;
  }
  return "(not host_cpu_bound: " + r.verdict.reason + ")";
}

TEST(HostAttributionTest, DecisionFollowsTheHolder) {
  EXPECT_NE(HostDecision(Steps(6000, 500)).find("num_workers"), std::string::npos)
      << HostDecision(Steps(6000, 500));
  EXPECT_NE(HostDecision(Steps(100, 6000)).find("fused"), std::string::npos)
      << HostDecision(Steps(100, 6000));
}

}  // namespace
}  // namespace gpuvet
