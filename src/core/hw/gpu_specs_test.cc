// The GPU spec table: every row sourced and keyed once, and the lookups its three callers rely
// on (CUDA device names for bench, keys and --target names for the forecast, NVML names in
// recordings and counter traces).
#include "core/hw/gpu_specs.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gpuvet {
namespace {

TEST(GpuSpecsTableTest, EveryRowHasASourceAndNumbers) {
  ASSERT_FALSE(GpuSpecs().empty());
  for (const GpuSpec& s : GpuSpecs()) {
    EXPECT_FALSE(s.source.empty()) << s.key;
    EXPECT_FALSE(s.bench_key.empty()) << s.key;
    EXPECT_GT(s.fp16_tflops, 0) << s.key;
    EXPECT_GE(s.bf16_tflops, 0) << s.key;
    EXPECT_GT(s.fp32_tflops, 0) << s.key;
    EXPECT_GT(s.memory_gbps, 0) << s.key;
    EXPECT_GT(s.bench_memory_gbps, 0) << s.key;
    EXPECT_GE(s.pcie_gen, 3) << s.key;
    EXPECT_EQ(s.pcie_width, 16) << s.key;
    // A typical host copy rate always names where it comes from, and none without a rate.
    EXPECT_EQ(s.h2d_gbps > 0, !s.h2d_source.empty()) << s.key;
  }
}

TEST(GpuSpecsTableTest, KeysAreUniqueAndFindThemselves) {
  std::set<std::string> keys;
  for (const GpuSpec& s : GpuSpecs()) {
    EXPECT_TRUE(keys.insert(std::string(s.key)).second) << "duplicate key " << s.key;
    const GpuSpec* found = FindGpuSpec(s.key);
    ASSERT_NE(found, nullptr) << s.key;
    EXPECT_EQ(found, &s) << s.key;
  }
}

TEST(GpuSpecsTableTest, BenchKeysGroupOnlyTheA100MemorySizes) {
  for (const GpuSpec& s : GpuSpecs()) {
    if (s.bench_key.starts_with("A100")) {
      EXPECT_TRUE(s.bench_key == "A100 PCIe" || s.bench_key == "A100 SXM") << s.key;
    } else {
      EXPECT_EQ(s.bench_key, s.key);
      EXPECT_EQ(s.bench_memory_gbps, s.memory_gbps) << s.key;
    }
  }
}

struct NameCase {
  const char* name;
  const char* key;
  const char* bench_key;
};

// Device names as cuDeviceGetName and NVML give them, and keys typed on the command line.
constexpr NameCase kNames[] = {
    {"NVIDIA A100-SXM4-40GB", "A100 40GB", "A100 SXM"},
    {"NVIDIA A100-SXM4-80GB", "A100 80GB", "A100 SXM"},
    {"NVIDIA A100-PCIE-40GB", "A100 40GB PCIe", "A100 PCIe"},
    {"NVIDIA A100 80GB PCIe", "A100 80GB PCIe", "A100 PCIe"},
    {"NVIDIA H100 80GB HBM3", "H100 SXM", "H100 SXM"},
    {"NVIDIA H100 PCIe", "H100 PCIe", "H100 PCIe"},
    {"NVIDIA H100 NVL", "H100 NVL", "H100 NVL"},
    {"NVIDIA H200", "H200", "H200"},
    {"NVIDIA H200 NVL", "H200 NVL", "H200 NVL"},
    {"NVIDIA B200", "B200", "B200"},
    {"NVIDIA L40S", "L40S", "L40S"},
    {"NVIDIA L4", "L4", "L4"},
    {"NVIDIA A10", "A10", "A10"},
    {"Tesla T4", "T4", "T4"},
    {"Tesla V100-SXM2-32GB", "V100 SXM2", "V100 SXM2"},
    {"Tesla V100-PCIE-16GB", "V100 PCIe", "V100 PCIe"},
    {"h200", "H200", "H200"},
    {"H100 SXM", "H100 SXM", "H100 SXM"},
    {"a100-80gb", "A100 80GB", "A100 SXM"},
    {"a100-80gb-pcie", "A100 80GB PCIe", "A100 PCIe"},
};

TEST(GpuSpecsLookupTest, MatchesDeviceNamesAndKeys) {
  for (const NameCase& c : kNames) {
    const GpuSpec* s = FindGpuSpec(c.name);
    ASSERT_NE(s, nullptr) << c.name;
    EXPECT_EQ(s->key, c.key) << c.name;
    EXPECT_EQ(s->bench_key, c.bench_key) << c.name;
  }
}

TEST(GpuSpecsLookupTest, WholeTokensOnly) {
  EXPECT_EQ(FindGpuSpec("NVIDIA L40"), nullptr);  // "l40" is not "l4"
  EXPECT_EQ(FindGpuSpec("NVIDIA A1000"), nullptr);
  EXPECT_EQ(FindGpuSpec("NVIDIA GeForce RTX 4090"), nullptr);
  EXPECT_EQ(FindGpuSpec(""), nullptr);
  EXPECT_EQ(FindGpuSpec(" - "), nullptr);
}

TEST(GpuSpecsLookupTest, FiguresEachCallerReads) {
  // Forecast and roofline: the variant's own datasheet figures.
  EXPECT_DOUBLE_EQ(FindGpuSpec("NVIDIA A100-SXM4-40GB")->memory_gbps, 1555);
  EXPECT_DOUBLE_EQ(FindGpuSpec("NVIDIA H100 80GB HBM3")->fp32_tflops, 67);
  EXPECT_DOUBLE_EQ(FindGpuSpec("Tesla T4")->fp16_tflops, 65);
  EXPECT_EQ(FindGpuSpec("Tesla T4")->pcie_gen, 3);
  // Bench: the figures its table always had.
  EXPECT_DOUBLE_EQ(FindGpuSpec("NVIDIA A100-SXM4-40GB")->bench_memory_gbps, 2039);
  EXPECT_DOUBLE_EQ(FindGpuSpec("NVIDIA A100-PCIE-40GB")->bench_memory_gbps, 1935);
  EXPECT_DOUBLE_EQ(FindGpuSpec("Tesla T4")->bf16_tflops, 0);
  EXPECT_DOUBLE_EQ(FindGpuSpec("NVIDIA H200")->h2d_gbps, 55);
  EXPECT_DOUBLE_EQ(FindGpuSpec("NVIDIA H100 80GB HBM3")->h2d_gbps, 52);
  EXPECT_DOUBLE_EQ(FindGpuSpec("NVIDIA H100 PCIe")->h2d_gbps, 0);
}

TEST(GpuSpecsLookupTest, KeysListedInTableOrder) {
  std::string keys = GpuSpecKeys();
  EXPECT_EQ(keys.rfind("H200 NVL, H200, ", 0), 0u) << keys;
  for (const GpuSpec& s : GpuSpecs()) EXPECT_NE(keys.find(s.key), std::string::npos) << s.key;
}

}  // namespace
}  // namespace gpuvet

namespace gpuvet {
namespace {

// The per-precision columns and the host link the forecast reads (datasheet dense figures).
TEST(GpuSpecsForecastTest, PrecisionsAndLinks) {
  const GpuSpec* h100 = FindGpuSpec("NVIDIA H100 80GB HBM3");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(DenseTflops(*h100, MathPrecision::kBf16), 989);
  EXPECT_EQ(DenseTflops(*h100, MathPrecision::kTf32), 494.5);
  EXPECT_EQ(DenseTflops(*h100, MathPrecision::kFp8), 1979);
  EXPECT_EQ(DenseTflops(*h100, MathPrecision::kFp32), 67);
  EXPECT_EQ(DenseTflops(*h100, MathPrecision::kUnknown), 0);
  EXPECT_EQ(h100->nvlink_gen, 4);
  std::string link;
  EXPECT_NEAR(HostLinkGbps(*h100, &link), 63.0, 0.1);
  EXPECT_EQ(link, "PCIe Gen5 x16");
  const GpuSpec* v100 = FindGpuSpec("Tesla V100-SXM2-16GB");
  ASSERT_NE(v100, nullptr);
  EXPECT_EQ(DenseTflops(*v100, MathPrecision::kBf16), 0);  // Volta: no BF16
  const GpuSpec* gh = FindGpuSpec("NVIDIA GH200 480GB");
  ASSERT_NE(gh, nullptr);
  EXPECT_EQ(gh->key, "GH200");
  EXPECT_EQ(HostLinkGbps(*gh, &link), 450);
  EXPECT_EQ(link, "NVLink-C2C");
  const GpuSpec* gb = FindGpuSpec("NVIDIA GB200");
  ASSERT_NE(gb, nullptr);
  EXPECT_EQ(gb->key, "GB200");  // not the B200 row
  EXPECT_EQ(FindGpuSpec("NVIDIA B200")->key, "B200");
  for (const GpuSpec& s : GpuSpecs()) {
    EXPECT_GT(s.memory_gbps, 0) << s.key;
    EXPECT_GT(s.fp32_tflops, 0) << s.key;
    EXPECT_FALSE(s.source.empty()) << s.key;
    EXPECT_GT(HostLinkGbps(s), 0) << s.key;
  }
}

}  // namespace
}  // namespace gpuvet
