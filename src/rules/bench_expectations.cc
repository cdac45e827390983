// Theoretical peaks and the built-in per-model table. Every number carries its source; the table
// holds datasheet peaks (what the vendor promises) and, for host copies, what healthy nodes of
// public fleets reach, so "is this number normal?" has an answer without a fleet baseline.
#include "rules/bench_expectations.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "core/hw/pcie.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Share of the theoretical PCIe rate that pinned copies reach on a healthy node: AzNHC's
// nvbandwidth minimums are 52 of 63 GB/s (H100, Gen5 x16) and 55 of 63 GB/s (H200), i.e.
// 0.83–0.87 (azurehpc-health-checks README); TLP and DLLP overhead take the rest.
constexpr double kPcieAchievable = 0.85;

// Share of peak DRAM bandwidth a streaming copy kernel reaches, counting read + write: issue #5
// quotes PyTorch at ≈ 4.3 of the H200's 4.8 TB/s (0.9).
constexpr double kMemoryAchievable = 0.9;

// Share of dense datasheet tensor throughput a large cuBLASLt GEMM reaches: issue #5 quotes
// PyTorch matmul at ≈ 790 of the H200's 989 BF16 TFLOP/s (0.8).
constexpr double kTensorAchievable = 0.8;

// Share of twice the one-way rate that pinned copies in both directions at once reach together:
// PCIe is full duplex, but the host side is not. nvbandwidth#53 (8 × A100, PCIe Gen4) measures
// ≈ 11 + 25 GB/s bidirectional against ≈ 25 GB/s one way, 0.72 of 2 × one-way.
constexpr double kBidirAchievable = 0.7;

// Datasheet sources (dense tensor figures are half the "with sparsity" numbers).
constexpr const char* kH100Sheet =
    "NVIDIA H100 datasheet (nvidia.com/en-us/data-center/h100) and H100 PCIe product brief "
    "PB-11133-001";
constexpr const char* kH200Sheet =
    "NVIDIA H200 datasheet (nvidia.com/en-us/data-center/h200): SXM BF16 1,979 TFLOPS with "
    "sparsity, FP32 67, 4.8 TB/s; NVL 1,671 / 60 / 4.8 TB/s";
constexpr const char* kB200Sheet =
    "NVIDIA HGX B200 datasheet (nvidia.com/en-us/data-center/hgx): per GPU FP16/BF16 4.5 PFLOPS "
    "with sparsity, FP32 75 TFLOPS, 7.7 TB/s";
constexpr const char* kA100Sheet = "NVIDIA A100 datasheet (nvidia.com/en-us/data-center/a100)";
constexpr const char* kL40sSheet = "NVIDIA L40S datasheet (nvidia.com/en-us/data-center/l40s)";
constexpr const char* kL4Sheet = "NVIDIA L4 datasheet (nvidia.com/en-us/data-center/l4)";
constexpr const char* kA10Sheet =
    "NVIDIA A10 datasheet (nvidia.com/en-us/data-center/products/a10-gpu)";
constexpr const char* kT4Sheet = "NVIDIA T4 datasheet (nvidia.com/en-us/data-center/tesla-t4)";
constexpr const char* kV100Sheet = "NVIDIA V100 datasheet (nvidia.com/en-us/data-center/v100)";
constexpr const char* kAzNhc = "AzNHC nvbandwidth minimum, azurehpc-health-checks README";

// Most specific first: "A100" must be tried before "A10", "L40S" before "L4", the PCIe and NVL
// H100 before the SXM one (whose CUDA name, "H100 80GB HBM3", says neither).
struct ModelRow {
  std::string_view needles[3];  // all must occur in the lowercased CUDA name
  GpuModelSpec spec;
};

const ModelRow kModels[] = {
    {{"h200", "nvl"}, {"H200 NVL", 0, nullptr, 4800, 60, 835, 835, kH200Sheet}},
    {{"h200"}, {"H200", 55, kAzNhc, 4800, 67, 989, 989, kH200Sheet}},
    {{"b200"}, {"B200", 0, nullptr, 7700, 75, 2250, 2250, kB200Sheet}},
    {{"h100", "pcie"}, {"H100 PCIe", 0, nullptr, 2000, 51, 756, 756, kH100Sheet}},
    {{"h100", "nvl"}, {"H100 NVL", 0, nullptr, 3900, 60, 835, 835, kH100Sheet}},
    {{"h100"}, {"H100 SXM", 52, kAzNhc, 3350, 67, 989, 989, kH100Sheet}},
    {{"a100", "pcie"}, {"A100 PCIe", 23, kAzNhc, 1935, 19.5, 312, 312, kA100Sheet}},
    {{"a100"}, {"A100 SXM", 23, kAzNhc, 2039, 19.5, 312, 312, kA100Sheet}},
    {{"l40s"}, {"L40S", 0, nullptr, 864, 91.6, 362, 362, kL40sSheet}},
    {{"l4"}, {"L4", 0, nullptr, 300, 30.3, 121, 121, kL4Sheet}},
    {{"a10"}, {"A10", 0, nullptr, 600, 31.2, 125, 125, kA10Sheet}},
    {{"t4"}, {"T4", 0, nullptr, 320, 8.1, 0, 65, kT4Sheet}},
    {{"v100", "pcie"}, {"V100 PCIe", 0, nullptr, 900, 14, 0, 112, kV100Sheet}},
    {{"v100"}, {"V100 SXM2", 0, nullptr, 900, 15.7, 0, 125, kV100Sheet}},
};

// Whole-token match so "l4" does not match "l40" and "a10" does not match "a100".
bool HasToken(const std::string& name, std::string_view needle) {
  for (size_t pos = name.find(needle); pos != std::string::npos; pos = name.find(needle, pos + 1)) {
    size_t end = pos + needle.size();
    bool left = pos == 0 || !std::isalnum(static_cast<unsigned char>(name[pos - 1]));
    // "a100-pcie-40gb", "h100 80gb": the token may be followed by a separator or the end only.
    bool right = end == name.size() || !std::isalnum(static_cast<unsigned char>(name[end]));
    if (left && right) return true;
  }
  return false;
}

bool IsCopy(std::string_view id) {
  return id == "h2d_pinned" || id == "d2h_pinned" || id == "h2d_pinned_remote" ||
         id == "d2h_pinned_remote";
}

}  // namespace

double MemoryTheoreticalGbps(double mem_clock_mhz, int bus_bits) {
  if (mem_clock_mhz <= 0 || bus_bits <= 0) return 0;
  return mem_clock_mhz * 1e6 * 2 * (bus_bits / 8.0) / 1e9;
}

int Fp32LanesPerSm(int cc_major, int cc_minor) {
  switch (cc_major) {
    case 5:
      return 128;
    case 6:
      return cc_minor == 0 ? 64 : 128;
    case 7:
      return 64;
    case 8:
      return cc_minor == 0 ? 64 : 128;
    case 9:
    case 10:
    case 12:
      return 128;
    default:
      return 0;
  }
}

double Fp32TheoreticalTflops(const BenchGpu& gpu) {
  int lanes = Fp32LanesPerSm(gpu.cc_major, gpu.cc_minor);
  if (lanes == 0 || gpu.sm_count <= 0 || gpu.sm_clock_mhz <= 0) return 0;
  return gpu.sm_count * lanes * 2.0 * gpu.sm_clock_mhz * 1e6 / 1e12;
}

const GpuModelSpec* FindGpuModel(std::string_view cuda_name) {
  std::string name = ToLower(cuda_name);
  for (const ModelRow& row : kModels) {
    bool all = true;
    for (std::string_view n : row.needles) {
      if (!n.empty() && !HasToken(name, n)) all = false;
    }
    if (all) return &row.spec;
  }
  return nullptr;
}

Expected ExpectedFor(const BenchGpu& gpu, std::string_view id) {
  const GpuModelSpec* model = FindGpuModel(gpu.name);
  if (IsCopy(id)) {
    int gen = gpu.pcie_gen_max.has() ? *gpu.pcie_gen_max : 0;
    int width = gpu.pcie_width_max.has() ? *gpu.pcie_width_max : 0;
    double link = PcieLinkGbps(gen, width);
    if (model && model->h2d_gbps > 0 && (link == 0 || model->h2d_gbps <= link)) {
      return {model->h2d_gbps,
              fmt::format("{}: {} GB/s ({})", model->key, model->h2d_gbps, model->h2d_source)};
    }
    if (link > 0) {
      return {link * kPcieAchievable,
              fmt::format("PCIe Gen{} x{}: {:.1f} GB/s theoretical × {} achievable", gen, width,
                          link, kPcieAchievable)};
    }
    return {};
  }
  if (id == "bidir_pinned") {
    Expected one_way = ExpectedFor(gpu, "h2d_pinned");
    if (one_way.value <= 0) return {};
    return {2 * one_way.value * kBidirAchievable,
            fmt::format("2 × one-way {:.1f} GB/s ({}) × {} reached in both directions at once "
                        "(nvbandwidth#53)",
                        one_way.value, one_way.basis, kBidirAchievable)};
  }
  if (id == "d2d_sm_copy" || id == "sm_triad") {
    double theory = MemoryTheoreticalGbps(gpu.mem_clock_mhz, gpu.memory_bus_bits);
    // HBM and GDDR parts report their memory clock differently across drivers; when the
    // computed peak is far from the datasheet's, trust the datasheet.
    if (model && (theory == 0 || std::fabs(theory / model->memory_gbps - 1) > 0.5)) {
      return {model->memory_gbps * kMemoryAchievable,
              fmt::format("{}: {:.0f} GB/s datasheet × {} achievable", model->key,
                          model->memory_gbps, kMemoryAchievable)};
    }
    if (theory > 0) {
      return {theory * kMemoryAchievable,
              fmt::format("{:.0f} MHz × 2 × {}-bit: {:.0f} GB/s theoretical × {} achievable",
                          gpu.mem_clock_mhz, gpu.memory_bus_bits, theory, kMemoryAchievable)};
    }
    return {};
  }
  if (id == "fp32_fma") {
    double theory = Fp32TheoreticalTflops(gpu);
    if (theory > 0) {
      return {theory, fmt::format("{} SMs × {} lanes × 2 × {:.0f} MHz: {:.1f} TFLOP/s theoretical",
                                  gpu.sm_count, Fp32LanesPerSm(gpu.cc_major, gpu.cc_minor),
                                  gpu.sm_clock_mhz, theory)};
    }
    if (model) return {model->fp32_tflops, fmt::format("{}: datasheet FP32", model->key)};
    return {};
  }
  if ((id == "bf16_tensor" || id == "fp16_tensor") && model) {
    double peak = id == "bf16_tensor" ? model->bf16_tflops : model->fp16_tflops;
    if (peak <= 0) return {};
    return {peak * kTensorAchievable,
            fmt::format("{}: {:.0f} TFLOP/s dense datasheet × {} achievable", model->key, peak,
                        kTensorAchievable)};
  }
  return {};
}

}  // namespace gpuvet
