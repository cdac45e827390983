// Theoretical peaks and the expectations built on them and on the spec table (core/hw), whose
// rows hold datasheet peaks (what the vendor promises) and, for host copies, what healthy nodes of
// public fleets reach, so "is this number normal?" has an answer without a fleet baseline.
#include "rules/bench_expectations.h"

#include <fmt/format.h>

#include <cmath>

#include "core/hw/gpu_specs.h"
#include "core/hw/pcie.h"

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

Expected ExpectedFor(const BenchGpu& gpu, std::string_view id) {
  const GpuSpec* model = FindGpuSpec(gpu.name);
  if (IsCopy(id)) {
    int gen = gpu.pcie_gen_max.has() ? *gpu.pcie_gen_max : 0;
    int width = gpu.pcie_width_max.has() ? *gpu.pcie_width_max : 0;
    double link = PcieLinkGbps(gen, width);
    if (model && model->h2d_gbps > 0 && (link == 0 || model->h2d_gbps <= link)) {
      return {model->h2d_gbps, fmt::format("{}: {} GB/s ({})", model->bench_key, model->h2d_gbps,
                                           model->h2d_source)};
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
    if (model && (theory == 0 || std::fabs(theory / model->bench_memory_gbps - 1) > 0.5)) {
      return {model->bench_memory_gbps * kMemoryAchievable,
              fmt::format("{}: {:.0f} GB/s datasheet × {} achievable", model->bench_key,
                          model->bench_memory_gbps, kMemoryAchievable)};
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
    if (model) return {model->fp32_tflops, fmt::format("{}: datasheet FP32", model->bench_key)};
    return {};
  }
  if ((id == "bf16_tensor" || id == "fp16_tensor") && model) {
    double peak = id == "bf16_tensor" ? model->bf16_tflops : model->fp16_tflops;
    if (peak <= 0) return {};
    return {peak * kTensorAchievable,
            fmt::format("{}: {:.0f} TFLOP/s dense datasheet × {} achievable", model->bench_key,
                        peak, kTensorAchievable)};
  }
  return {};
}

}  // namespace gpuvet
