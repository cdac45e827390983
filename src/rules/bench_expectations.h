// What a GPU and its link should deliver, for judging `gpuvet bench` figures: theoretical peaks
// computed from what the driver reports (PCIe gen × width via core/hw/pcie.h, memory clock × bus
// width, SMs × clock), and a built-in table of per-model datasheet peaks and typical achieved
// values, each sourced.
#pragma once

#include <string>
#include <string_view>

#include "core/bench.h"

namespace gpuvet {

// One expectation: `value` in the figure's unit (0 = none known) and where it came from.
struct Expected {
  double value = 0;
  std::string basis;  // e.g. "PCIe Gen5 x16: 63.0 GB/s theoretical × 0.85 achievable"
};

// Theoretical DRAM bandwidth in GB/s: memory clock (as CUDA reports it) × 2 (DDR) × bus bytes.
// Matches datasheets for HBM2/HBM2e/HBM3 and GDDR6 as reported by cuDeviceGetAttribute (e.g.
// H100 SXM 2619 MHz × 2 × 640 B = 3352 GB/s); 0 when either input is missing.
double MemoryTheoreticalGbps(double mem_clock_mhz, int bus_bits);

// FP32 lanes (CUDA cores) per SM for a compute capability, or 0 when unknown (CUDA C++
// Programming Guide, "Arithmetic Instructions" throughput table: 64 for 6.0, 7.x and 8.0; 128
// for 5.x, 6.1/6.2, 8.6–8.9, 9.0, 10.x and 12.x).
int Fp32LanesPerSm(int cc_major, int cc_minor);

// Theoretical FP32 FMA throughput in TFLOP/s: SMs × lanes × 2 flops × max SM clock.
double Fp32TheoreticalTflops(const BenchGpu& gpu);

// A row of the built-in model table (bench_expectations.cc cites each number).
struct GpuModelSpec {
  std::string_view key;  // model name as written in reports, e.g. "H100 SXM"
  double h2d_gbps;       // typical pinned H2D/D2H a healthy node reaches (0 = derive from link)
  const char* h2d_source;
  double memory_gbps;     // datasheet peak memory bandwidth
  double fp32_tflops;     // datasheet peak FP32
  double bf16_tflops;     // datasheet dense BF16 tensor (0 = none)
  double fp16_tflops;     // datasheet dense FP16 tensor
  const char* datasheet;  // source of the three datasheet figures
};

// The table row whose model matches `cuda_name` (cuDeviceGetName, e.g. "NVIDIA H100 80GB HBM3"),
// or nullptr. Matching is case-insensitive and tries the most specific models first.
const GpuModelSpec* FindGpuModel(std::string_view cuda_name);

// The expectation for measurement `id` (core/bench.h ids) on `gpu`: the policy's absolute
// minimum when set (handled by the caller), else the model table, else theory. Latencies and
// ratios (pageable, remote NUMA, p2p, nccl) have no per-GPU expectation here: value 0.
Expected ExpectedFor(const BenchGpu& gpu, std::string_view id);

}  // namespace gpuvet
