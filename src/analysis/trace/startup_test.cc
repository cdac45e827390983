// Start-up detection: one-time calls, graph capture ranges and first launches against the window,
// the cut after them, and the startup verdict with the steady state judged on the rest.
#include "analysis/trace/startup.h"

#include <gtest/gtest.h>

#include "analysis/trace/analyze.h"
#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

const StartupWork* Work(const StartupStats& st, const std::string& kind) {
  for (const StartupWork& w : st.work) {
    if (w.kind == kind) return &w;
  }
  return nullptr;
}

// 8 ms of stream/event creation and a 2 s first launch, then 500 back-to-back kernels of 400 µs.
RankTrace InitThenSteady() {
  TraceBuilder b;
  b.Call("cudaStreamCreateWithFlags", RuntimeKind::kOther, 0, 4000);
  b.Call("cudaEventCreate", RuntimeKind::kOther, 4000, 4000);
  b.Launched("gemm", 8000, 2'000'000, 2'008'010, 400);
  double gpu = 2'008'500;
  for (int i = 0; i < 500; ++i) {
    b.Launched("gemm", 2'008'420 + i * 8, 6, gpu, 400);
    gpu += 401;
  }
  return b.Build();
}

TEST(StartupTest, OneTimeWorkDominatesTheWindow) {
  RankTrace t = InitThenSteady();
  StartupStats st = ComputeStartup(t, TraceThresholds{});
  EXPECT_TRUE(st.detected);
  ASSERT_NE(Work(st, "first launch"), nullptr);
  EXPECT_EQ(Work(st, "first launch")->time_ns, 2'000'000'000);
  ASSERT_NE(Work(st, "stream/event creation"), nullptr);
  EXPECT_EQ(Work(st, "stream/event creation")->count, 2u);
  EXPECT_EQ(st.one_time_ns, 2'008'000'000);
  EXPECT_EQ(st.end_ns, 2'008'000'000);
  // window: 0 .. last kernel end (2'008'500 + 500 × 401 µs − 1 µs)
  EXPECT_NEAR(st.share_pct, 100.0 * 2008.0 / 2208.999, 0.01);
}

// The vLLM piecewise-capture shape: a 115 ms device sync before the first GPU op is not part of
// the window (it used to open it early and dilute the capture's share), a 30 s first CUDA call
// (lazy context creation) is start-up and opens it.
TEST(StartupTest, WindowFromTheFirstGpuOpWithContextCreation) {
  TraceBuilder b;
  b.Call("cudaDeviceSynchronize", RuntimeKind::kDeviceSync, 0, 115'000);
  b.Kernel("triton_poi_fused_0", 120'000, 5);
  b.Call("cudaStreamBeginCapture", RuntimeKind::kOther, 120'010, 2);
  b.Launched("triton_poi_fused_0", 120'020, 5, 120'030, 5);
  b.Call("cudaStreamEndCapture", RuntimeKind::kOther, 160'000, 10);
  b.Kernel("triton_poi_fused_0", 160'100, 5);
  StartupStats st = ComputeStartup(b.Build(), TraceThresholds{});
  // window 120'000 .. 160'105; capture 120'010 .. 160'010
  EXPECT_EQ(st.window_ns, 40'105'000);
  EXPECT_TRUE(st.detected);
  EXPECT_NEAR(st.share_pct, 100.0 * 40'000 / 40'105, 0.01);

  TraceBuilder c;
  c.Call("cudaGetDeviceCount", RuntimeKind::kOther, 0, 30'000'000, -1, 2);
  for (int i = 0; i < 100; ++i)
    c.Launched("ampere_sgemm", 30'000'100 + i * 10, 5, 30'000'200 + i * 100, 100);
  StartupStats ctx = ComputeStartup(c.Build(), TraceThresholds{});
  ASSERT_NE(Work(ctx, "context set-up"), nullptr);
  EXPECT_EQ(Work(ctx, "context set-up")->time_ns, 30'000'000'000);
  EXPECT_TRUE(ctx.detected);
}

// A detected capture is the verdict even when the window is too short for a steady-state label.
TEST(StartupTest, ShortCaptureIsTheVerdictNotInsufficientData) {
  TraceBuilder b;
  b.Kernel("triton_poi_fused_0", 0, 5);
  b.Call("cudaStreamBeginCapture", RuntimeKind::kOther, 1, 2);
  b.Call("cudaStreamEndCapture", RuntimeKind::kOther, 60, 2);
  b.Kernel("triton_poi_fused_0", 70, 5);
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  EXPECT_EQ(r.ranks[0].verdict.label, Bottleneck::kStartup) << r.ranks[0].verdict.reason;
}

TEST(StartupTest, LaterSlowLaunchesOfTheSameKernelAreNotStartUp) {
  TraceBuilder b;
  b.Launched("gemm", 0, 10, 20, 100);
  b.Launched("gemm", 200, 5000, 5300, 100);  // a full queue, not a first launch
  StartupStats st = ComputeStartup(b.Build(), TraceThresholds{});
  EXPECT_EQ(Work(st, "first launch"), nullptr);
  EXPECT_FALSE(st.detected);
}

TEST(StartupTest, GraphCaptureRunsFromBeginToEndCapture) {
  TraceBuilder b;
  b.Kernel("fill", 0, 2);
  b.Call("cudaStreamBeginCapture", RuntimeKind::kOther, 10, 2);
  for (int i = 0; i < 50; ++i) b.Call("cudaLaunchKernel", RuntimeKind::kLaunch, 20 + i * 10, 5);
  b.Call("cudaStreamEndCapture", RuntimeKind::kOther, 600, 5);
  b.Call("cudaGraphInstantiateWithFlags", RuntimeKind::kOther, 610, 100);
  b.Kernel("gather", 720, 4);
  StartupStats st = ComputeStartup(b.Build(), TraceThresholds{});
  ASSERT_NE(Work(st, "CUDA-graph capture"), nullptr);
  EXPECT_EQ(Work(st, "CUDA-graph capture")->time_ns, 595'000);
  EXPECT_EQ(Work(st, "CUDA-graph instantiation")->time_ns, 100'000);
  EXPECT_TRUE(st.detected);
  EXPECT_EQ(st.end_ns, 710'000);
}

TEST(StartupTest, SteadyTrainingIsNotStartUp) {
  TraceBuilder b;
  b.Call("cudaMalloc", RuntimeKind::kOther, 0, 50);
  double gpu = 100;
  for (int i = 0; i < 200; ++i) {
    b.Launched("gemm", 60 + i * 8, 6, gpu, 400);
    gpu += 401;
  }
  StartupStats st = ComputeStartup(b.Build(), TraceThresholds{});
  EXPECT_FALSE(st.detected);
  EXPECT_LT(st.share_pct, 1.0);
}

TEST(StartupTest, EmptyTraceIsNotStartUp) {
  StartupStats st = ComputeStartup(RankTrace{}, TraceThresholds{});
  EXPECT_FALSE(st.detected);
  EXPECT_EQ(st.window_ns, 0);
}

TEST(StartupTest, TraceAfterKeepsOnlyLaterEvents) {
  RankTrace t = InitThenSteady();
  RankTrace rest = TraceAfter(t, 2'008'000'000);
  EXPECT_EQ(rest.gpu_ops.size(), 501u);  // the first launch's kernel runs after the cut too
  EXPECT_EQ(rest.runtime.size(), 500u);
  EXPECT_EQ(rest.names, t.names);
}

TEST(StartupTest, VerdictIsStartupWithTheSteadyStateBeside) {
  TraceReport r = AnalyzeTraces({InitThenSteady()}, TraceOptions{});
  ASSERT_EQ(r.ranks.size(), 1u);
  const RankAnalysis& a = r.ranks[0];
  EXPECT_EQ(a.verdict.label, Bottleneck::kStartup) << a.verdict.reason;
  EXPECT_EQ(a.verdict.share_of, "trace_window");
  EXPECT_EQ(a.verdict.confidence, "high");
  EXPECT_EQ(a.startup.steady.label, Bottleneck::kComputeBound) << a.startup.steady.reason;
  ASSERT_EQ(a.steady_state.size(), 1u);
  bool startup = false, host_warn = false, compute = false;
  for (const Finding& f : r.findings) {
    startup |= f.id == "trace.startup" && f.severity == Severity::kWarn;
    host_warn |= f.id == "trace.host_cpu_bound" && f.severity == Severity::kWarn;
    compute |= f.id == "trace.compute_bound";
  }
  EXPECT_TRUE(startup);
  EXPECT_FALSE(host_warn) << "the start-up idle must not read as a host bottleneck";
  EXPECT_TRUE(compute) << "the steady state's findings follow the start-up finding";
}

}  // namespace
}  // namespace gpuvet
