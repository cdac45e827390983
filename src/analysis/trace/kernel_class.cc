// Kernel classification by name. Matching is case-insensitive on the lowered name, except HTA's
// rules, which are case-sensitive substring tests in HTA and stay so here. Communication kernels
// beyond NCCL are matched by library namespace or by collective names that compute kernels do not
// carry ("allreduce", "cross_device_reduce"), never by bare words like "dispatch" or "reduce"
// (cub::DispatchReduceByKey and at::native::reduce_kernel compute).
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

// `name` with every <…> and (…) group removed, at any depth. A '>' inside parentheses is an
// operator in a template argument ("enable_if<((8)>(0))…>"), not a closing bracket.
std::string StripGroups(std::string_view name) {
  std::string out;
  std::string stack;
  for (char c : name) {
    const bool in_paren = !stack.empty() && stack.back() == '(';
    if (c == '(' || (c == '<' && !in_paren)) {
      stack.push_back(c);
    } else if (c == ')' && in_paren) {
      stack.pop_back();
    } else if (c == '>' && !stack.empty() && stack.back() == '<') {
      stack.pop_back();
    } else if (stack.empty()) {
      out.push_back(c);
    }
  }
  return out;
}

// The last whitespace-separated token of `s` (the qualified name after a return type), without a
// leading "::" left by a stripped "(anonymous namespace)".
std::string LastToken(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (s.size() >= 6 && s.compare(s.size() - 6, 6, " const") == 0) s.resize(s.size() - 6);
  size_t sp = s.rfind(' ');
  if (sp != std::string::npos) s = s.substr(sp + 1);
  while (s.rfind("::", 0) == 0) s = s.substr(2);
  return s;
}

// The first template argument of a name's outermost template ("a<b<c>, d>(…)" -> "b<c>").
std::string_view FirstTemplateArg(std::string_view name) {
  size_t open = name.find('<');
  if (open == std::string_view::npos) return {};
  int depth = 0;
  for (size_t i = open; i < name.size(); ++i) {
    char c = name[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if ((c == ',' && depth == 1) || depth == 0) return name.substr(open + 1, i - open - 1);
  }
  return {};
}

bool IsGenericLauncher(std::string_view fn) {
  return fn == "cutlass::kernel" || fn == "cutlass::kernel2" || fn == "cutlass::device_kernel";
}

// A device DMA op (MTIA "dma" kernels): a name token ("_", ":", " " separated) that is or starts
// with "dma".
bool IsDmaKernel(std::string_view fn) {
  for (size_t i = fn.find("dma"); i != std::string_view::npos; i = fn.find("dma", i + 1)) {
    if (i == 0 || fn[i - 1] == '_' || fn[i - 1] == ':' || fn[i - 1] == '.') return true;
  }
  return false;
}

}  // namespace

std::string KernelFunctionName(std::string_view name) {
  std::string fn = ToLower(LastToken(StripGroups(name)));
  if (IsGenericLauncher(fn)) {
    std::string inner = ToLower(LastToken(StripGroups(FirstTemplateArg(name))));
    if (!inner.empty()) return inner;
  }
  return fn;
}

HtaKernelType ClassifyHta(const GpuOp& op, std::string_view name) {
  if (Contains(name, "nccl") || Contains(name, "rccl")) return HtaKernelType::kCommunication;
  if (op.kind != GpuOpKind::kKernel || Contains(name, "Memcpy") || Contains(name, "Memset")) {
    return HtaKernelType::kMemory;
  }
  return HtaKernelType::kComputation;
}

std::string_view CommunicationKind(const GpuOp& op, std::string_view name) {
  if (op.kind != GpuOpKind::kKernel) return "";
  if (Contains(name, "nccl") || Contains(name, "rccl")) return "nccl";
  const std::string n = KernelFunctionName(name);
  if (Contains(n, "msccl")) return "msccl";  // mscclKernel_*, MSCCL++ (mscclpp)
  if (Contains(n, "nvshmem")) return "nvshmem";
  // DeepEP (deepseek-ai/DeepEP): every kernel lives in namespace deep_ep (intranode/internode/
  // internode_ll dispatch, combine, notify_dispatch, buffer cleaning); DeepSeek's own build in
  // dpsk::ep (dpsk::ep::internode::dispatch, combine, …).
  if (ContainsAny(n, {"deep_ep::", "deepep", "dpsk::ep::"})) return "deepep";
  // PyTorch SymmetricMemory (c10d::symmetric_memory): multimem and one/two-shot all-reduce.
  if (ContainsAny(
          n, {"symmetric_memory", "multimem_", "one_shot_all_reduce", "two_shot_all_reduce"})) {
    return "symmetric_memory";
  }
  // Inference engines' own collectives: vLLM custom all-reduce (cross_device_reduce_1stage/
  // 2stage) and quick reduce, TensorRT-LLM / FlashInfer allreduce kernels, SGLang custom AR.
  if (ContainsAny(n, {"cross_device_reduce", "allreduce", "all_reduce", "quickreduce",
                      "quick_reduce", "custom_ar", "allgather", "all_gather", "reducescatter",
                      "reduce_scatter", "alltoall", "all_to_all"})) {
    return "custom_allreduce";
  }
  if (op.collective) return "collective";
  return "";
}

HtaKernelType ClassifyKernel(const GpuOp& op, std::string_view name) {
  if (!CommunicationKind(op, name).empty()) return HtaKernelType::kCommunication;
  HtaKernelType t = ClassifyHta(op, name);
  if (t == HtaKernelType::kComputation && IsDmaKernel(KernelFunctionName(name))) {
    return HtaKernelType::kMemory;
  }
  return t;
}

KernelTypeCache::KernelTypeCache(const RankTrace& trace)
    : trace_(trace), kernel_(trace.names.size(), -1), collective_(trace.names.size(), -1) {}

HtaKernelType KernelTypeCache::Of(const GpuOp& op) {
  if (op.kind != GpuOpKind::kKernel || op.name >= kernel_.size()) {
    return ClassifyKernel(op, op.name < trace_.names.size() ? trace_.Name(op.name) : "");
  }
  std::vector<int8_t>& slot = op.collective ? collective_ : kernel_;
  if (slot[op.name] < 0)
    slot[op.name] = static_cast<int8_t>(ClassifyKernel(op, trace_.Name(op.name)));
  return static_cast<HtaKernelType>(slot[op.name]);
}

std::string_view KernelTypeName(HtaKernelType t) {
  switch (t) {
    case HtaKernelType::kComputation:
      return "computation";
    case HtaKernelType::kCommunication:
      return "communication";
    case HtaKernelType::kMemory:
      return "memory";
  }
  return "computation";
}

std::string_view KernelCategory(const GpuOp& op, std::string_view name) {
  HtaKernelType t = ClassifyKernel(op, name);
  if (t == HtaKernelType::kCommunication) return "communication";
  if (t == HtaKernelType::kMemory) return "memory";
  const std::string n = KernelFunctionName(name);
  // Attention before GEMM: flash/fmha kernels often carry "gemm" or "sm80" in their names too.
  if (ContainsAny(n, {"flash", "fmha", "attention", "attn", "sdpa", "mha_"})) return "attention";
  // cuBLAS/cuBLASLt's split-K reduction finishes a GEMM.
  if (ContainsAny(n, {"cublas", "splitkreduce"})) return "gemm";
  // Reductions, normalisations (batch/layer/RMS norm), sorts and scans, before GEMM: cuDNN
  // batch-norm kernels (cudnn::bn_fw_*) carry "cudnn" too; MoE finalize (a weighted sum of the
  // experts' outputs).
  if (ContainsAny(n, {"reduce",    "softmax", "_norm",      "norm_",      "layernorm",
                      "batchnorm", "rmsnorm", "groupnorm",  "bn_fw",      "bn_bw",
                      "welford",   "argmax",  "argmin",     "cumsum",     "scan",
                      "topk",      "sort",    "triton_red", "triton_per", "finalizekernel"})) {
    return "reduction";
  }
  // cuBLAS/cuBLASLt (ampere_sgemm, sm80_xmma_gemm, nvjet_*), TensorRT-LLM/FlashInfer batched GEMMs
  // (bmm_*), CUTLASS, cuDNN convolutions, Triton matmuls (triton_tem_*mm); on ROCm
  // rocBLAS/hipBLASLt Tensile kernels (Cijk_Ailk_Bljk_…) and MIOpen convolutions.
  if (n.rfind("bmm_", 0) == 0 || n.rfind("nvjet", 0) == 0 ||
      ContainsAny(n, {"gemm",
                      "cutlass",
                      "xmma",
                      "cublas",
                      "matmul",
                      "cudnn",
                      "convolution",
                      "cijk_",
                      "miopenconv",
                      "miopensp3asmconv",
                      "naive_conv",
                      "convolve",
                      "conv2d",
                      "conv3d",
                      "conv1d",
                      "_conv_",
                      "fprop",
                      "wgrad",
                      "dgrad",
                      "s1688",
                      "h16816",
                      "i8816",
                      "gemv",
                      "triton_tem_fused_mm",
                      "triton_tem_fused_addmm",
                      "triton_tem_fused_bmm"})) {
    return "gemm";
  }
  if (ContainsAny(n, {"elementwise", "vectorized", "unrolled", "pointwise", "triton_poi",
                      "fill_kernel", "copy_kernel"})) {
    return "elementwise";
  }
  return "other";
}

}  // namespace gpuvet
