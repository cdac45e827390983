// Kernel classification by name. Matching is case-insensitive on the lowered name, except HTA's
// rules, which are case-sensitive substring tests in HTA and stay so here.
#include "analysis/trace/kernel_class.h"

#include <algorithm>
#include <string>

#include "util/strings.h"

namespace gpuvet {

namespace {

bool Contains(std::string_view s, std::string_view needle) {
  return s.find(needle) != std::string_view::npos;
}

bool ContainsAny(std::string_view s, std::initializer_list<std::string_view> needles) {
  return std::any_of(needles.begin(), needles.end(),
                     [&](std::string_view n) { return Contains(s, n); });
}

}  // namespace

HtaKernelType ClassifyHta(const GpuOp& op, std::string_view name) {
  if (Contains(name, "nccl") || Contains(name, "rccl")) return HtaKernelType::kCommunication;
  if (op.kind != GpuOpKind::kKernel || Contains(name, "Memcpy") || Contains(name, "Memset")) {
    return HtaKernelType::kMemory;
  }
  return HtaKernelType::kComputation;
}

std::string_view KernelCategory(const GpuOp& op, std::string_view name) {
  HtaKernelType t = ClassifyHta(op, name);
  if (t == HtaKernelType::kCommunication) return "communication";
  if (t == HtaKernelType::kMemory) return "memory";
  std::string n = ToLower(name);
  // Attention before GEMM: flash/fmha kernels often carry "gemm" or "sm80" in their names too.
  if (ContainsAny(n, {"flash", "fmha", "attention", "attn", "sdpa", "mha_"})) return "attention";
  // Reductions, normalisations (batch/layer/RMS norm), sorts and scans, before GEMM: cuDNN
  // batch-norm kernels (cudnn::bn_fw_*) carry "cudnn" too.
  if (ContainsAny(n, {"reduce", "softmax", "_norm", "norm_", "layernorm", "batchnorm", "rmsnorm",
                      "groupnorm", "bn_fw", "bn_bw", "welford", "argmax", "argmin", "cumsum",
                      "scan", "topk", "sort", "triton_red", "triton_per"})) {
    return "reduction";
  }
  // cuBLAS/cuBLASLt (ampere_sgemm, sm80_xmma_gemm), CUTLASS, cuDNN convolutions, Triton matmuls;
  // on ROCm rocBLAS/hipBLASLt Tensile kernels (Cijk_Ailk_Bljk_…) and MIOpen convolutions.
  if (ContainsAny(n, {"gemm",       "cutlass",     "xmma",   "cublas",     "matmul",
                      "cudnn",      "convolution", "cijk_",  "miopenconv", "miopensp3asmconv",
                      "naive_conv", "convolve",    "conv2d", "conv3d",     "conv1d",
                      "_conv_",     "fprop",       "wgrad",  "dgrad",      "s1688",
                      "h16816",     "i8816"})) {
    return "gemm";
  }
  if (ContainsAny(n, {"elementwise", "vectorized", "unrolled", "pointwise", "triton_poi",
                      "fill_kernel", "copy_kernel"})) {
    return "elementwise";
  }
  return "other";
}

}  // namespace gpuvet
