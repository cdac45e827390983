// What a GPU and its link should deliver, for judging `gpuvet bench` figures: theoretical peaks
// computed from what the driver reports (PCIe gen × width through core/hw/pcie.h, memory clock ×
// bus width, SMs × clock), and the per-model datasheet peaks and typical achieved values of the
// spec table (core/hw/gpu_specs.h).
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

// The expectation for measurement `id` (core/bench.h ids) on `gpu`: the policy's absolute
// minimum when set (handled by the caller), else the model's row in the spec table (found by
// FindGpuSpec on the CUDA name, cited by its bench_key), else theory. Latencies and
// ratios (pageable, remote NUMA, p2p, nccl) have no per-GPU expectation here: value 0.
Expected ExpectedFor(const BenchGpu& gpu, std::string_view id);

}  // namespace gpuvet
