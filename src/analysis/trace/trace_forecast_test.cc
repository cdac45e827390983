// The trace time budget and the upgrade forecast on synthetic traces whose budgets are known, each
// expected speedup computed by hand from the datasheet rows (gpu_specs.cc).
#include "analysis/trace/trace_forecast.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/trace/analyze.h"
#include "core/hw/gpu_specs.h"
#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

constexpr const char* kGemmBf16 = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64";
constexpr const char* kAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>";
constexpr const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)";

// The forecast of a one-rank trace to `target`, the source GPU as deviceProperties would name it.
UpgradeForecast Forecast(RankTrace t, const std::string& gpu, const std::string& target,
                         std::optional<std::string> source = std::nullopt) {
  t.gpu_name = gpu;
  TraceOptions o;
  o.time_budget = true;
  std::vector<RankTrace> ranks;
  ranks.push_back(std::move(t));
  TraceReport r = AnalyzeTraces(std::move(ranks), o);
  const GpuSpec* to = FindGpuSpec(target);
  EXPECT_NE(to, nullptr);
  ForecastTraceReport(r, *to, source);
  EXPECT_EQ(r.forecasts.size(), 1u);
  return r.forecasts.empty() ? UpgradeForecast{} : r.forecasts.front();
}

const ForecastTerm* Term(const UpgradeForecast& f, const std::string& part) {
  for (const ForecastTerm& t : f.terms) {
    if (t.part == part) return &t;
  }
  return nullptr;
}

TEST(KernelPrecisionTest, FromNames) {
  EXPECT_EQ(KernelPrecision(kGemmBf16), MathPrecision::kBf16);
  EXPECT_EQ(KernelPrecision("volta_h884gemm_64x64_ldg8_nn"), MathPrecision::kFp16);
  EXPECT_EQ(KernelPrecision("ampere_s16816gemm_128x128_nn"), MathPrecision::kTf32);
  EXPECT_EQ(KernelPrecision("volta_sgemm_128x64_nt"), MathPrecision::kFp32);
  EXPECT_EQ(KernelPrecision("void implicit_convolve_sgemm<float, float, 1024>"),
            MathPrecision::kFp32);
  EXPECT_EQ(KernelPrecision("sm90_xmma_gemm_e4m3e4m3_e4m3f32"), MathPrecision::kFp8);
  EXPECT_EQ(KernelPrecision("ampere_dgemm_64x64"), MathPrecision::kFp64);
  EXPECT_EQ(KernelPrecision("nvjet_tst_128x256_64x4_1x2_coopA_NNT"), MathPrecision::kUnknown);
}

// Ten 100 us BF16 GEMMs back to back on an H100 SXM: the whole window is tensor time.
TEST(TraceForecastTest, PureGemmScalesWithBf16Throughput) {
  TraceBuilder b;
  for (int i = 0; i < 10; ++i) b.Kernel(kGemmBf16, i * 100, 100);
  UpgradeForecast f = Forecast(b.Build(), "NVIDIA H100 80GB HBM3", "B200");
  ASSERT_TRUE(f.computed);
  EXPECT_EQ(f.current, "H100 SXM");
  EXPECT_EQ(f.current_from, "trace deviceProperties");
  ASSERT_EQ(f.terms.size(), 1u);
  EXPECT_EQ(f.terms[0].part, "gemm_bf16");
  EXPECT_EQ(f.terms[0].basis, "BF16 dense 989 -> 2250 TFLOPS");
  EXPECT_NEAR(f.speedup, 2250.0 / 989.0, 1e-9);  // 2.275
  EXPECT_FALSE(f.range);
  EXPECT_EQ(f.max_speedup, 0);  // nothing host-side: no ceiling
  EXPECT_NEAR(f.window_s, 1000e-6, 1e-12);
}

TEST(TraceForecastTest, PureElementwiseScalesWithMemoryBandwidth) {
  TraceBuilder b;
  for (int i = 0; i < 10; ++i) b.Kernel(kAdd, i * 100, 100);
  UpgradeForecast f = Forecast(b.Build(), "NVIDIA H100 80GB HBM3", "H200");
  ASSERT_EQ(f.terms.size(), 1u);
  EXPECT_EQ(f.terms[0].part, "memory_kernels");
  EXPECT_NEAR(f.speedup, 4800.0 / 3350.0, 1e-9);  // 1.433
  EXPECT_FALSE(f.range);
}

// 600 us of pinned H2D copies, then 400 us of BF16 GEMMs, on an A100 80GB (PCIe Gen4 x16) to an
// H100 SXM (Gen5 x16: twice the rate).
TEST(TraceForecastTest, CopyHeavyScalesWithTheLink) {
  TraceBuilder b;
  for (int i = 0; i < 6; ++i) b.Copy(CopyKind::kHtoD, 1 << 20, i * 100, 100, MemKind::kPinned);
  for (int i = 0; i < 4; ++i) b.Kernel(kGemmBf16, 600 + i * 100, 100);
  UpgradeForecast f = Forecast(b.Build(), "NVIDIA A100-SXM4-80GB", "H100 SXM");
  const ForecastTerm* copies = Term(f, "host_copies");
  ASSERT_NE(copies, nullptr);
  EXPECT_NEAR(copies->share_pct, 60, 1e-9);
  EXPECT_NEAR(copies->scale, 0.5, 1e-9);
  EXPECT_NE(copies->basis.find("PCIe Gen4 x16 31.5 -> PCIe Gen5 x16 63.0 GB/s"), std::string::npos)
      << copies->basis;
  EXPECT_NEAR(f.speedup, 1.0 / (0.6 * 0.5 + 0.4 * 312.0 / 989.0), 1e-9);  // 2.35
  EXPECT_FALSE(f.range);
}

// Pageable copies may be bound by host staging: a range from the link ratio to unchanged.
TEST(TraceForecastTest, PageableCopiesGiveARange) {
  TraceBuilder b;
  b.Copy(CopyKind::kHtoD, 1 << 20, 0, 500, MemKind::kPageable);
  b.Kernel(kGemmBf16, 500, 500);
  UpgradeForecast f = Forecast(b.Build(), "NVIDIA A100-SXM4-80GB", "H100 SXM");
  EXPECT_TRUE(f.range);
  EXPECT_NEAR(f.speedup_low, 1.0 / (0.5 + 0.5 * 312.0 / 989.0), 1e-9);
  EXPECT_NEAR(f.speedup_high, 1.0 / (0.25 + 0.5 * 312.0 / 989.0), 1e-9);
  EXPECT_NE(f.range_reason.find("pageable"), std::string::npos);
}

// 700 us of exposed all-reduce and 300 us of GEMM on an H100 SXM (NVLink 4, 900 GB/s) to a B200
// (NVLink 5, 1800 GB/s): communication is unchanged over the network, halved on NVLink.
TEST(TraceForecastTest, CommHeavyIsARangeOverTheInterconnect) {
  TraceBuilder b;
  b.Kernel(kAllReduce, 0, 700);
  b.Kernel(kGemmBf16, 700, 300);
  // Communication under a GEMM is hidden and stays hidden: it counts as GEMM time.
  b.Kernel(kAllReduce, 750, 100, 9);
  UpgradeForecast f = Forecast(b.Build(), "NVIDIA H100 80GB HBM3", "B200");
  const ForecastTerm* comm = Term(f, "communication");
  ASSERT_NE(comm, nullptr);
  EXPECT_NEAR(comm->share_pct, 70, 1e-9);
  EXPECT_NEAR(comm->scale_low, 0.5, 1e-9);
  EXPECT_NEAR(comm->scale_high, 1, 1e-9);
  double gemm = 0.3 * 989.0 / 2250.0;
  EXPECT_NEAR(f.speedup_low, 1.0 / (0.7 + gemm), 1e-9);    // 1.20
  EXPECT_NEAR(f.speedup_high, 1.0 / (0.35 + gemm), 1e-9);  // 2.08
  EXPECT_TRUE(f.range);
  EXPECT_NEAR(f.max_speedup, 1.0 / 0.7, 1e-9);
  EXPECT_NE(f.first_change.find("communication takes 70.0 %"), std::string::npos) << f.first_change;
  EXPECT_NE(f.narrow_by.find("NVLink domain"), std::string::npos);
}

// 10 us GEMMs every 100 us: the GPU idles 90 % of the window, which no GPU shortens.
TEST(TraceForecastTest, HostBoundGainsLittle) {
  TraceBuilder b;
  for (int i = 0; i < 10; ++i) b.Kernel(kGemmBf16, i * 100, 10);
  UpgradeForecast f = Forecast(b.Build(), "NVIDIA H100 80GB HBM3", "B200");
  ASSERT_TRUE(f.computed);
  double span = 910, busy = 100, idle = 810;
  EXPECT_NEAR(f.speedup, span / (idle + busy * 989.0 / 2250.0), 1e-6);  // 1.067
  EXPECT_NEAR(f.max_speedup, span / idle, 1e-6);
  double fixed = 0;
  for (const ForecastTerm& t : f.terms) {
    if (t.fixed) fixed += t.share_pct;
  }
  EXPECT_NEAR(fixed, 100 * idle / span, 1e-6);
  EXPECT_NE(f.first_change.find("does not shrink"), std::string::npos) << f.first_change;
}

// Without deviceProperties nothing is scaled; --source supplies the GPU. FP32 GEMMs on a Volta
// may run as TF32 on Hopper: a range.
TEST(TraceForecastTest, UnknownSourceNeedsSourceFlag) {
  TraceBuilder b;
  for (int i = 0; i < 10; ++i) b.Kernel("volta_sgemm_128x64_nt", i * 100, 100);
  RankTrace t = b.Build();
  UpgradeForecast none = Forecast(t, "", "H100 SXM");
  EXPECT_FALSE(none.computed);
  EXPECT_EQ(none.current, "unknown GPU");
  EXPECT_NE(none.summary.find("--source"), std::string::npos);
  EXPECT_NE(none.summary.find("Volta"), std::string::npos) << none.summary;
  UpgradeForecast f = Forecast(t, "", "H100 SXM", std::string("V100 SXM2"));
  ASSERT_TRUE(f.computed);
  EXPECT_EQ(f.current_from, "--source");
  EXPECT_TRUE(f.range);
  EXPECT_NEAR(f.speedup_low, 67.0 / 15.7, 1e-9);
  EXPECT_NEAR(f.speedup_high, 494.5 / 15.7, 1e-9);
  EXPECT_NE(f.range_reason.find("TF32"), std::string::npos);
}

// A kernel whose name gives no class: between the memory and the FP32 ratio.
TEST(TraceForecastTest, UnknownKernelClassIsARange) {
  TraceBuilder b;
  b.Kernel("my_custom_kernel", 0, 1000);
  UpgradeForecast f = Forecast(b.Build(), "NVIDIA A100-SXM4-80GB", "H100 SXM");
  EXPECT_TRUE(f.range);
  EXPECT_NEAR(f.speedup_low, 3350.0 / 2039.0, 1e-9);
  EXPECT_NEAR(f.speedup_high, 67.0 / 19.5, 1e-9);
  EXPECT_NE(f.narrow_by.find("counter-mode"), std::string::npos);
}

// An unknown name in deviceProperties is reported as such, not guessed.
TEST(TraceForecastTest, GpuOutsideTheTable) {
  TraceBuilder b;
  b.Kernel(kGemmBf16, 0, 100);
  UpgradeForecast f = Forecast(b.Build(), "NVIDIA GeForce RTX 4090", "H100 SXM");
  EXPECT_FALSE(f.computed);
  EXPECT_EQ(f.current, "NVIDIA GeForce RTX 4090");
  EXPECT_NE(f.summary.find("not in the spec table"), std::string::npos);
}

// Without TraceOptions::time_budget no budget is measured (trace without --target costs nothing).
TEST(TraceForecastTest, BudgetOnlyWhenAsked) {
  TraceBuilder b;
  b.Kernel(kGemmBf16, 0, 100);
  std::vector<RankTrace> ranks;
  ranks.push_back(b.Build());
  TraceReport r = AnalyzeTraces(std::move(ranks), TraceOptions{});
  EXPECT_TRUE(r.ranks[0].budget.parts.empty());
}

}  // namespace
}  // namespace gpuvet
