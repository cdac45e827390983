// The GPU spec table of the upgrade forecast: per model the dense FP16/BF16 tensor and FP32
// throughput, memory bandwidth and host link, each row citing its datasheet (gpu_specs.cc); the
// link's bandwidth comes from core/hw/pcie.h.
// Models are matched by the name NVML reports (RecordedGpu::name) or by a short key ("H200").
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace gpuvet {

struct GpuSpec {
  std::string_view key;  // "H100 SXM", as written in reports and accepted by --target
  double tensor_tflops;  // dense FP16/BF16 tensor (half the "with sparsity" figure)
  double fp32_tflops;
  double memory_gbps;  // peak memory bandwidth, GB/s (1e9 B/s)
  int pcie_gen;
  int pcie_width;
  std::string_view source;  // datasheet the row comes from
};

// Every row, most specific first.
std::span<const GpuSpec> GpuSpecs();

// The row for an NVML name ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB") or a key given on
// the command line ("h200", "H100 PCIe", "a100-80gb"), case-insensitive; nullptr when unknown.
const GpuSpec* FindGpuSpec(std::string_view name);

// The keys joined for error messages: "A100 40GB, A100 80GB, ...".
std::string GpuSpecKeys();

}  // namespace gpuvet
