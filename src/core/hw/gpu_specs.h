// The one GPU model table: per model the datasheet peaks (dense BF16 and FP16 tensor, FP32,
// memory bandwidth), the host link, the pinned host copy rate healthy fleets reach, and the source
// of each row (gpu_specs.cc). Read by the bench expectations, the upgrade forecast and the trace
// roofline. Models are matched by the name CUDA or NVML reports or by a key ("H200").
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace gpuvet {

// One model. Numbers are datasheet peaks unless the comment says otherwise; 0 means none.
struct GpuSpec {
  std::string_view key;  // "H100 SXM", as written in reports and accepted by --target
  // The name `gpuvet bench` reports and its expectations cite: `key`, except that the A100 rows
  // drop the memory size ("A100 PCIe", "A100 SXM"), as the bench table always named them.
  std::string_view bench_key;
  double bf16_tflops;  // dense BF16 tensor (half the "with sparsity" figure); 0 = no BF16
  double fp16_tflops;  // dense FP16 tensor; also the forecast's "FP16/BF16" figure
  double fp32_tflops;
  double memory_gbps;  // peak memory bandwidth, GB/s (1e9 B/s)
  // The memory peak bench expectations fall back to: `memory_gbps`, except the A100 40GB rows,
  // which the bench table gave their 80GB sibling's figure (1935 PCIe, 2039 SXM). Kept so bench
  // output stays as it was; see bench_expectations.cc for when the fallback applies.
  double bench_memory_gbps;
  int pcie_gen;
  int pcie_width;
  double h2d_gbps;              // typical pinned H2D/D2H of a healthy node (0 = derive from link)
  std::string_view h2d_source;  // where h2d_gbps comes from; empty when h2d_gbps is 0
  std::string_view source;      // datasheet the peaks and the link come from
  // Per-precision dense tensor peaks (TFLOPS; INT8 in TOPS), 0 = the model has no such path.
  double tf32_tflops = 0;
  double fp8_tflops = 0;
  double int8_tops = 0;
  double fp64_tflops = 0;  // FP64 (tensor where the model has FP64 tensor cores)
  // The GPU-to-GPU link: NVLink generation (0 = none: PCIe peer-to-peer only) and its total
  // bandwidth per GPU, both directions, GB/s, as datasheets quote it.
  int nvlink_gen = 0;
  double nvlink_gbps = 0;
  // Grace superchips: the NVLink-C2C host link per direction, GB/s (0 = PCIe is the host link).
  double c2c_gbps = 0;
};

// Number formats a kernel computes in, for the forecast's per-precision tensor throughput.
enum class MathPrecision { kUnknown, kFp64, kFp32, kTf32, kFp16, kBf16, kFp8, kInt8 };

// "FP64", "FP32", "TF32", "FP16", "BF16", "FP8", "INT8"; "unknown".
std::string_view PrecisionName(MathPrecision p);

// The dense peak of `spec` for GEMM-like work in `p`, TFLOPS (TOPS for INT8): the tensor figure
// where the model has a tensor path for `p`, FP32 for FP32 (CUDA cores); 0 when the model has no
// such path (BF16 on V100) or `p` is unknown.
double DenseTflops(const GpuSpec& spec, MathPrecision p);

// The host link rate per direction, GB/s: NVLink-C2C where the model has it, else the PCIe
// generation × width of the row. `name` receives "PCIe Gen5 x16" or "NVLink-C2C" when not null.
double HostLinkGbps(const GpuSpec& spec, std::string* name = nullptr);

// Every row, most specific first. The storage is static: pointers into it stay valid.
std::span<const GpuSpec> GpuSpecs();

// The row for a CUDA or NVML name ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB", as
// cuDeviceGetName, NVML and counter traces give it) or a key given on the command line ("h200",
// "H100 PCIe", "a100-80gb"): a row of GpuSpecs(), or nullptr when unknown. Case-insensitive: a name
// equal to a key (as alphanumeric tokens) is that row; otherwise the first row, most specific
// first, whose match tokens (e.g. "h100" and "pcie") all occur in the name as whole tokens ("l4"
// never matches "L40S", "a10" never "A100").
const GpuSpec* FindGpuSpec(std::string_view name);

// The keys joined for error messages: "H200 NVL, H200, ...".
std::string GpuSpecKeys();

}  // namespace gpuvet
