#include "analysis/trace/counter_analysis.h"

#include <gtest/gtest.h>

#include "analysis/trace/analyze.h"
#include "core/bottleneck.h"
#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

constexpr const char* kFfma = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum";
constexpr const char* kFadd = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum";
constexpr const char* kHfma = "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum";
constexpr const char* kDmul = "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum";
constexpr const char* kRead = "dram__bytes_read.sum";
constexpr const char* kWrite = "dram__bytes_write.sum";

TEST(CounterAnalysisTest, NormalTraceHasNoCounters) {
  TraceBuilder b;
  b.Kernel("k", 0, 10);
  CounterStats c = ComputeCounterStats(b.Build());
  EXPECT_EQ(c.ranges, 0u);
  EXPECT_TRUE(c.top.empty());
}

TEST(CounterAnalysisTest, FlopsCountFmaTwiceAndSplitByPrecision) {
  TraceBuilder b;
  b.Counters("gemm", {{kFfma, 100}, {kFadd, 10}, {kHfma, 5}, {kDmul, 3}, {"sm__cycles.sum", 7}});
  b.Counters("gemm", {{kFfma, 100}});
  CounterStats c = ComputeCounterStats(b.Build());
  EXPECT_EQ(c.ranges, 2u);
  EXPECT_EQ(c.kernels, 1u);
  EXPECT_TRUE(c.has_flops);
  EXPECT_FALSE(c.has_dram);
  EXPECT_DOUBLE_EQ(c.flops_fp32, 2 * 100 + 10 + 2 * 100);
  EXPECT_DOUBLE_EQ(c.flops_fp16, 10);
  EXPECT_DOUBLE_EQ(c.flops_fp64, 3);
  ASSERT_EQ(c.top.size(), 1u);
  EXPECT_EQ(c.top[0].ranges, 2u);
  EXPECT_FALSE(c.top[0].dram_bytes.has_value());
  EXPECT_FALSE(c.top[0].bound.has_value());  // no bytes: not placed
  EXPECT_FALSE(c.memory_bound_time_pct.has_value());
  EXPECT_EQ(c.metrics.size(), 5u);  // sm__cycles.sum listed, not used
}

// H100 SXM: 67 TFLOP/s FP32, 3,350 GB/s -> ridge 20 FLOP/byte. A GEMM at 100 FLOP/byte is
// compute-bound (8e9 FLOP / 67e12 = 119.4 µs); an add at 1/12 FLOP/byte memory-bound (2.4e9 B /
// 3.35e12 = 716.4 µs): memory-bound share of roofline time = 716.4 / (716.4 + 119.4) = 85.7 %.
TEST(CounterAnalysisTest, RooflinePlacesKernelsAgainstTheRidgePoint) {
  TraceBuilder b;
  b.trace().gpu_name = "NVIDIA H100 80GB HBM3";
  b.Counters("gemm", {{kFfma, 4e9}, {kRead, 6e7}, {kWrite, 2e7}});
  b.Counters("add", {{kFadd, 2e8}, {kRead, 1.6e9}, {kWrite, 8e8}});
  CounterStats c = ComputeCounterStats(b.Build());
  EXPECT_EQ(c.gpu_spec, "H100 SXM");
  EXPECT_NEAR(c.ridge_flop_per_byte, 67e12 / 3350e9, 1e-9);
  EXPECT_DOUBLE_EQ(c.dram_bytes, 8e7 + 2.4e9);
  ASSERT_EQ(c.top.size(), 2u);
  EXPECT_EQ(c.top[0].name, "gemm");  // by FLOPs
  EXPECT_EQ(c.top[0].bound, Bottleneck::kComputeBound);
  EXPECT_NEAR(*c.top[0].intensity, 100, 1e-9);
  EXPECT_EQ(c.top[1].bound, Bottleneck::kMemoryBound);
  EXPECT_EQ(c.memory_bound_kernels, 1u);
  EXPECT_EQ(c.compute_bound_kernels, 1u);
  double gemm_t = 8e9 / 67e12, add_t = 2.4e9 / 3350e9;
  EXPECT_NEAR(*c.memory_bound_time_pct, 100 * add_t / (add_t + gemm_t), 1e-6);

  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kMemoryBound);
  EXPECT_EQ(r.verdict.share_of, "roofline_time");
  EXPECT_NEAR(r.verdict.share_pct, *c.memory_bound_time_pct, 1e-9);
}

TEST(CounterAnalysisTest, DramBytesSumIsUsedWhenTheSplitCountersAreAbsent) {
  TraceBuilder b;
  b.trace().gpu_name = "NVIDIA A100-SXM4-80GB";
  b.Counters("gemm", {{kFfma, 1e9}, {"dram__bytes.sum", 1e6}});
  CounterStats c = ComputeCounterStats(b.Build());
  EXPECT_TRUE(c.has_dram);
  EXPECT_DOUBLE_EQ(c.dram_bytes, 1e6);
  EXPECT_EQ(c.top[0].bound, Bottleneck::kComputeBound);  // 2000 FLOP/byte
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kComputeBound);
}

TEST(CounterAnalysisTest, UnknownGpuListsIntensityButDoesNotPlace) {
  TraceBuilder b;
  b.trace().gpu_name = "Some Future GPU";
  b.Counters("gemm", {{kFfma, 1e9}, {kRead, 1e6}});
  CounterStats c = ComputeCounterStats(b.Build());
  EXPECT_TRUE(c.gpu_spec.empty());
  EXPECT_EQ(c.ridge_flop_per_byte, 0);
  ASSERT_TRUE(c.top[0].intensity.has_value());
  EXPECT_NEAR(*c.top[0].intensity, 2000, 1e-9);
  EXPECT_FALSE(c.top[0].bound.has_value());
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kCountersOnly);
  EXPECT_NE(r.verdict.reason.find("Some Future GPU"), std::string::npos) << r.verdict.reason;
}

TEST(CounterAnalysisTest, CounterTraceWithoutBytesSaysWhichCountersToAdd) {
  TraceBuilder b;
  b.trace().gpu_name = "NVIDIA H100 80GB HBM3";
  b.Counters("gemm", {{kFfma, 1e9}});
  TraceReport r = AnalyzeTraces({b.Build()}, TraceOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kCountersOnly);
  EXPECT_NE(r.verdict.reason.find("dram__bytes_read.sum"), std::string::npos);
  bool input = false, counters = false;
  for (const Finding& f : r.findings) {
    input |= f.id == "trace.input" && f.severity == Severity::kInfo &&
             f.summary.find("counter-mode") != std::string::npos;
    counters |= f.id == "trace.kernel_counters" && f.severity == Severity::kInfo;
    EXPECT_NE(f.id, "trace.idle") << "timeline findings do not apply to a counter-mode trace";
  }
  EXPECT_TRUE(input);
  EXPECT_TRUE(counters);
}

TEST(CounterAnalysisTest, TruncatedCounterTraceKeepsItsCounters) {
  TraceBuilder b;
  b.trace().gpu_name = "NVIDIA H100 80GB HBM3";
  b.Counters("gemm", {{kFfma, 1e9}, {kRead, 1e6}});
  RankTrace t = b.Build();
  t.truncated = true;
  TraceReport r = AnalyzeTraces({t}, TraceOptions{});
  EXPECT_EQ(r.verdict.label, Bottleneck::kComputeBound);
  bool warned = false, counters = false;
  for (const Finding& f : r.findings) {
    warned |= f.id == "trace.input" && f.severity == Severity::kWarn;
    counters |= f.id == "trace.kernel_counters";
  }
  EXPECT_TRUE(warned);
  EXPECT_TRUE(counters);
}

}  // namespace
}  // namespace gpuvet
