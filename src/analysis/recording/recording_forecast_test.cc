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
  double expected = 1.0 / (0.8 + 0.2 * 312.0 / 989.0);  // ≈ 1.159
  EXPECT_NEAR(f->speedup, expected, 1e-9);
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
  EXPECT_NEAR(f->speedup, 1.0 / (0.5 * mem + 0.5 * link), 1e-9);
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
  EXPECT_NEAR(f->speedup, 1.0 / (0.1 + 0.9 * 989.0 / 2250.0), 1e-9);
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
  EXPECT_NEAR(f->speedup, 1, 1e-12);  // no basis to scale compute
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
  EXPECT_LT(r.forecast->speedup, 1.2);
  EXPECT_NEAR(r.forecast->max_speedup, 1.25, 0.02);
  o.target_gpu = "Z9000";
  AnalyzeReport bad = AnalyzeRecording(rec, o);
  EXPECT_FALSE(bad.forecast.has_value());
  ASSERT_FALSE(bad.warnings.empty());
  EXPECT_NE(bad.warnings.back().find("unknown target GPU 'Z9000'"), std::string::npos);
}

}  // namespace
}  // namespace gpuvet
