// The spec table lookup and the upgrade forecast against sums done by hand.
#include "analysis/recording/recording_forecast.h"

#include <gtest/gtest.h>

#include <string_view>

#include "analysis/recording/recording_analyze.h"
#include "core/bottleneck.h"
#include "core/hw/gpu_specs.h"
#include "core/hw/pcie.h"
#include "testing/recording_builder.h"

namespace gpuvet {
namespace {

using test::RecordingBuilder;
using test::SetGpus;

TEST(GpuSpecsTest, MatchesNvmlNamesAndKeys) {
  struct Case {
    const char* name;
    const char* key;
  } cases[] = {{"NVIDIA A100-SXM4-40GB", "A100 40GB"},
               {"NVIDIA A100-SXM4-80GB", "A100 80GB"},
               {"NVIDIA A100-PCIE-40GB", "A100 40GB PCIe"},
               {"NVIDIA A100 80GB PCIe", "A100 80GB PCIe"},
               {"NVIDIA H100 80GB HBM3", "H100 SXM"},
               {"NVIDIA H100 PCIe", "H100 PCIe"},
               {"NVIDIA H100 NVL", "H100 NVL"},
               {"NVIDIA H200", "H200"},
               {"NVIDIA H200 NVL", "H200 NVL"},
               {"NVIDIA B200", "B200"},
               {"NVIDIA L40S", "L40S"},
               {"NVIDIA L4", "L4"},
               {"NVIDIA A10", "A10"},
               {"Tesla T4", "T4"},
               {"h200", "H200"},
               {"H100 SXM", "H100 SXM"},
               {"a100-80gb", "A100 80GB"}};
  for (const Case& c : cases) {
    const GpuSpec* s = FindGpuSpec(c.name);
    ASSERT_NE(s, nullptr) << c.name;
    EXPECT_EQ(s->key, c.key) << c.name;
    EXPECT_FALSE(s->source.empty());
  }
  EXPECT_EQ(FindGpuSpec("NVIDIA GeForce RTX 4090"), nullptr);
  EXPECT_EQ(FindGpuSpec(""), nullptr);
  EXPECT_NEAR(PcieLinkGbps(4, 16), 31.5, 0.01);
  EXPECT_NEAR(PcieLinkGbps(5, 16), 63.0, 0.1);
  EXPECT_EQ(PcieLinkGbps(7, 16), 0);
}

// A phase labelled `label` (a label id of the bottleneck table).
AnalyzePhase Phase(double start, double end, std::string_view label) {
  AnalyzePhase p;
  p.start_s = start;
  p.end_s = end;
  const BottleneckInfo* row = FindBottleneck(label);
  EXPECT_NE(row, nullptr) << label;
  if (row) p.label.label = row->label;
  return p;
}

TEST(ForecastTest, HostBoundJobGainsLittle) {
  RecordedGpu a100;
  a100.name = "NVIDIA A100-SXM4-80GB";
  a100.pcie_gen_max = 4;
  a100.pcie_width_max = 16;
  // 80 % host_cpu_bound, 20 % compute_bound on an A100 → H200.
  std::vector<AnalyzePhase> phases = {Phase(0, 800, "host_cpu_bound"),
                                      Phase(800, 1000, "compute_bound")};
  auto f = ForecastUpgrade(phases, std::nullopt, &a100, "H200");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->current, "A100 80GB");
  EXPECT_EQ(f->target, "H200");
  // GPU-Util alone cannot tell compute from memory time: the busy fifth scales with tensor
  // throughput (312 -> 989) or memory bandwidth (2039 -> 4800), so the answer is a range.
  EXPECT_TRUE(f->range);
  EXPECT_NEAR(f->speedup_low, 1.0 / (0.8 + 0.2 * 2039.0 / 4800.0), 1e-9);  // ≈ 1.130
  EXPECT_NEAR(f->speedup_high, 1.0 / (0.8 + 0.2 * 312.0 / 989.0), 1e-9);   // ≈ 1.159
  EXPECT_NE(f->range_reason.find("GPU-Util"), std::string::npos) << f->range_reason;
  EXPECT_NE(f->narrow_by.find("GPM"), std::string::npos) << f->narrow_by;
  EXPECT_NE(f->narrow_by.find("--trace"), std::string::npos) << f->narrow_by;
  EXPECT_NEAR(f->max_speedup, 1.25, 1e-9);
  EXPECT_NE(f->first_change.find("host_cpu_bound takes 80.0 %"), std::string::npos)
      << f->first_change;
  EXPECT_EQ(f->sources.size(), 2u);
}

TEST(ForecastTest, MemoryAndTransferScaleWithTheirOwnSpecs) {
  RecordedGpu a100;
  a100.name = "NVIDIA A100-SXM4-80GB";
  a100.pcie_gen_max = 4;
  a100.pcie_width_max = 8;  // a downtrained link: the recorded one counts, not the datasheet's
  std::vector<AnalyzePhase> phases = {Phase(0, 500, "memory_bound"),
                                      Phase(500, 1000, "transfer_bound")};
  auto f = ForecastUpgrade(phases, std::nullopt, &a100, "h200");
  ASSERT_TRUE(f.has_value());
  double mem = 2039.0 / 4800.0;
  double link = (16 * 128.0 / 130.0 * 8 / 8) / (32 * 128.0 / 130.0 * 16 / 8);  // Gen4 x8 → Gen5 x16
  // memory_bound from GPU-Util is busy time like any other: memory .. tensor ratio.
  EXPECT_NEAR(f->speedup_low, 1.0 / (0.5 * mem + 0.5 * link), 1e-9);
  EXPECT_NEAR(f->speedup_high, 1.0 / (0.5 * 312.0 / 989.0 + 0.5 * link), 1e-9);
  EXPECT_EQ(f->max_speedup, 0);  // nothing host-side: no ceiling from this recording
}

TEST(ForecastTest, PeriodicStallsDoNotShrink) {
  RecordedGpu h100;
  h100.name = "NVIDIA H100 80GB HBM3";
  PeriodicStall p;
  p.share_pct = 10;
  std::vector<AnalyzePhase> phases = {Phase(0, 1000, "compute_bound")};
  auto f = ForecastUpgrade(phases, p, &h100, "B200");
  ASSERT_TRUE(f.has_value());
  // H100 -> B200: tensor and memory ratios nearly agree, so the range is narrow, but a range.
  EXPECT_TRUE(f->range);
  EXPECT_NEAR(f->speedup_low, 1.0 / (0.1 + 0.9 * 989.0 / 2250.0), 1e-9);
  EXPECT_NEAR(f->speedup_high, 1.0 / (0.1 + 0.9 * 3350.0 / 7700.0), 1e-9);
  EXPECT_NEAR(f->max_speedup, 10, 1e-9);
}

TEST(ForecastTest, UnknownTargetAndUnknownCurrent) {
  std::vector<AnalyzePhase> phases = {Phase(0, 100, "compute_bound")};
  EXPECT_FALSE(ForecastUpgrade(phases, std::nullopt, nullptr, "Z9000").has_value());
  RecordedGpu odd;
  odd.name = "NVIDIA GeForce RTX 4090";
  auto f = ForecastUpgrade(phases, std::nullopt, &odd, "H200");
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(f->current_known);
  EXPECT_FALSE(f->computed);  // no basis to scale anything
  EXPECT_NE(f->summary.find("not in the spec table"), std::string::npos);
}

TEST(ForecastTest, ThroughAnalyzeRecording) {
  Recording rec = RecordingBuilder(1, "NVIDIA A100-SXM4-40GB")
                      .Add(400,
                           [](Sample& s, int) {
                             SetGpus(s, 20);
                             s.processes[0].top_threads = {{100, "python3", 100}};
                           })
                      .Add(100)
                      .Build();
  AnalyzeOptions o;
  o.target_gpu = "H100 SXM";
  AnalyzeReport r = AnalyzeRecording(rec, o);
  ASSERT_TRUE(r.forecast.has_value());
  EXPECT_LT(r.forecast->speedup_high, 1.2);
  EXPECT_NEAR(r.forecast->max_speedup, 1.25, 0.02);
  o.target_gpu = "Z9000";
  AnalyzeReport bad = AnalyzeRecording(rec, o);
  EXPECT_FALSE(bad.forecast.has_value());
  ASSERT_FALSE(bad.warnings.empty());
  EXPECT_NE(bad.warnings.back().find("unknown target GPU 'Z9000'"), std::string::npos);
}

// A GPU-Util-only recording of a busy job: the forecast must be a range, end to end.
TEST(ForecastTest, GpuUtilOnlyRecordingIsARange) {
  Recording rec = RecordingBuilder(1, "NVIDIA A100-SXM4-80GB").Add(300).Build();
  AnalyzeOptions o;
  o.target_gpu = "H200";
  AnalyzeReport r = AnalyzeRecording(rec, o);
  ASSERT_TRUE(r.forecast.has_value());
  EXPECT_FALSE(r.gpm);
  EXPECT_TRUE(r.forecast->range);
  EXPECT_LT(r.forecast->speedup_low, r.forecast->speedup_high * 0.9);
}

// GPM splits the busy time: 60 % tensor activity and 20 % DRAM bandwidth give three quarters of
// it to tensor throughput and one quarter to memory bandwidth.
TEST(ForecastTest, GpmSplitsBusyTime) {
  Recording rec = RecordingBuilder(1, "NVIDIA H100 80GB HBM3")
                      .Add(100,
                           [](Sample& s, int) {
                             s.gpus[0].tensor_active_pct = 60;
                             s.gpus[0].dram_bw_util_pct = 20;
                           })
                      .Build();
  ForecastInputs in;
  RecordingSignals sig = ComputeSignals(rec, AnalyzeThresholds{});
  in.signals = &sig;
  RecordedGpu h100 = rec.meta.gpus[0];
  auto f = ForecastUpgrade({Phase(0, 101, "compute_bound")}, std::nullopt, &h100, "B200", in);
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(f->range);
  EXPECT_NEAR(f->speedup, 1.0 / (0.75 * 989.0 / 2250.0 + 0.25 * 3350.0 / 7700.0), 1e-9);
  ASSERT_EQ(f->evidence.size(), 2u);
  EXPECT_NE(f->evidence[0].find("tensor pipes active 60 %, DRAM bandwidth 20 %"), std::string::npos)
      << f->evidence[0];
  // 320 W of the 400 W limit.
  EXPECT_NE(f->evidence[1].find("drawing 80 % of its 400 W power limit"), std::string::npos)
      << f->evidence[1];
}

// GPM with neither pipe busy (latency-bound kernels) cannot split the time: a range again.
TEST(ForecastTest, GpmWithNothingBusyStaysARange) {
  Recording rec = RecordingBuilder(1, "NVIDIA H100 80GB HBM3")
                      .Add(100,
                           [](Sample& s, int) {
                             s.gpus[0].tensor_active_pct = 2;
                             s.gpus[0].dram_bw_util_pct = 3;
                             s.gpus[0].power_w = 160;
                           })
                      .Build();
  ForecastInputs in;
  RecordingSignals sig = ComputeSignals(rec, AnalyzeThresholds{});
  in.signals = &sig;
  RecordedGpu h100 = rec.meta.gpus[0];
  auto f = ForecastUpgrade({Phase(0, 101, "compute_bound")}, std::nullopt, &h100, "H200", in);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->range);
  EXPECT_NEAR(f->speedup_low, 1.0, 1e-9);  // same tensor peak
  EXPECT_NEAR(f->speedup_high, 4800.0 / 3350.0, 1e-9);
  EXPECT_NE(f->range_reason.find("neither tensor pipes nor DRAM"), std::string::npos);
  ASSERT_EQ(f->evidence.size(), 2u);
  EXPECT_NE(f->evidence[1].find("drawing 40 %"), std::string::npos) << f->evidence[1];
}

// A trace taken during the recording splits its busy time by what the kernels were; host-side
// phases stay the recording's. A trace from another GPU model is not used.
TEST(ForecastTest, TraceSplitsBusyTime) {
  TimeBudget trace;
  trace.parts.push_back({"gemm_bf16", ForecastGovernor::kTensor, MathPrecision::kBf16, 0.6, ""});
  trace.parts.push_back(
      {"memory_kernels", ForecastGovernor::kMemory, MathPrecision::kUnknown, 0.4, ""});
  trace.parts.push_back(
      {"idle_host", ForecastGovernor::kUnchanged, MathPrecision::kUnknown, 1.0, ""});
  RecordedGpu a100;
  a100.name = "NVIDIA A100-SXM4-80GB";
  std::vector<AnalyzePhase> phases = {Phase(0, 500, "host_cpu_bound"),
                                      Phase(500, 1000, "compute_bound")};
  ForecastInputs in;
  in.trace = &trace;
  in.trace_gpu = "NVIDIA A100-SXM4-80GB";
  in.trace_label = "rank 0";
  auto f = ForecastUpgrade(phases, std::nullopt, &a100, "H200", in);
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(f->range);
  EXPECT_NEAR(f->speedup, 1.0 / (0.5 + 0.5 * (0.6 * 312.0 / 989.0 + 0.4 * 2039.0 / 4800.0)), 1e-9);
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_NE(f->evidence.back().find("gemm_bf16 60 %, memory_kernels 40 %"), std::string::npos)
      << f->evidence.back();
  in.trace_gpu = "NVIDIA H100 80GB HBM3";
  auto other = ForecastUpgrade(phases, std::nullopt, &a100, "H200", in);
  ASSERT_TRUE(other.has_value());
  EXPECT_TRUE(other->range);
  ASSERT_FALSE(other->notes.empty());
  EXPECT_NE(other->notes.front().find("trace not used"), std::string::npos);
}

}  // namespace
}  // namespace gpuvet
