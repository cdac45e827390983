// Naming GPU ops: HTA's three-way kernel type, gpuvet's kernel type (HTA's, with communication
// recognised by what the kernel is rather than only by NCCL's name) and gpuvet's finer category
// for the kernel breakdown. Decided from the kernel name, the op kind for copies and Kineto's
// collective args, because that is all a trace reliably carries.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/trace/trace.h"

namespace gpuvet {

// The function a kernel name names, lowered: the qualified name without return type, template
// arguments or parameters ("void moe::dev::finalize::finalizeKernelVecLoad<cutlass::…>(…)" ->
// "moe::dev::finalize::finalizekernelvecload"). A generic launcher (cutlass::Kernel,
// cutlass::Kernel2, cutlass::device_kernel) is named by its first template argument's function
// ("cutlass::device_kernel<flash::FlashAttnFwdSm90<…>>" -> "flash::flashattnfwdsm90"). A plain
// name (nvjet_tst_…, triton_poi_…) is returned lowered.
std::string KernelFunctionName(std::string_view name);

// HTA hta/utils/utils.py get_kernel_type: COMMUNICATION when the name contains "nccl" (or
// "rccl"), MEMORY for memcpy/memset ops (or names containing "Memcpy"/"Memset"), else COMPUTATION.
enum class HtaKernelType { kComputation, kCommunication, kMemory };

HtaKernelType ClassifyHta(const GpuOp& op, std::string_view name);

// The communication library or mechanism a kernel belongs to, from its function name
// (KernelFunctionName; NCCL/RCCL from the whole name, as HTA): "nccl" (NCCL/RCCL), "msccl",
// "nvshmem", "deepep" (DeepEP dispatch/combine: deep_ep::, dpsk::ep::), "symmetric_memory" (PyTorch
// SymmetricMemory multimem/one-shot/two-shot kernels), "custom_allreduce" (inference engines'
// own all-reduce: vLLM cross_device_reduce, TensorRT-LLM allreduce, quick reduce…),
// "collective" (a kernel Kineto tagged with collective args) — or "" for a kernel that does not
// communicate. Memcpy/memset ops are never communication. Returns a string literal.
std::string_view CommunicationKind(const GpuOp& op, std::string_view name);

// gpuvet's kernel type: HTA's, except that every kernel with a CommunicationKind is
// kCommunication and a device DMA kernel (MTIA "dma" ops) is kMemory. On traces whose only
// communication is NCCL/RCCL and without DMA kernels it equals ClassifyHta.
HtaKernelType ClassifyKernel(const GpuOp& op, std::string_view name);

// ClassifyKernel once per distinct (name, op kind) of a trace: a trace repeats a few hundred names
// millions of times. Not thread-safe; `trace` must outlive it.
class KernelTypeCache {
 public:
  explicit KernelTypeCache(const RankTrace& trace);
  HtaKernelType Of(const GpuOp& op);

 private:
  const RankTrace& trace_;
  std::vector<int8_t> kernel_, collective_;  // per name id: -1 not yet classified
};

// The breakdown category of a GPU op: "gemm" (GEMM and convolution), "attention", "elementwise",
// "reduction", "communication", "memory", "other", decided from the function name
// (KernelFunctionName), never from template arguments: a reduction templated on cutlass types is
// not a GEMM. Families: cuBLAS/cuBLASLt (…gemm…, nvjet_*), TensorRT-LLM/FlashInfer batched GEMMs
// (bmm_*), CUTLASS, cuDNN, rocBLAS/hipBLASLt (Cijk_*), MIOpen, FlashAttention/FMHA, Triton
// (triton_poi/red/per/tem). Returns a string literal.
std::string_view KernelCategory(const GpuOp& op, std::string_view name);

// The fixed category order used in reports.
inline constexpr std::string_view kKernelCategories[] = {
    "gemm", "attention", "elementwise", "reduction", "communication", "memory", "other"};

// Report names of the kernel types, in HTA's order (computation, communication, memory).
std::string_view KernelTypeName(HtaKernelType t);

}  // namespace gpuvet
