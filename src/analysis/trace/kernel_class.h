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

// HTA hta/utils/utils.py get_kernel_type: COMMUNICATION when the name contains "nccl" (or
// "rccl"), MEMORY for memcpy/memset ops (or names containing "Memcpy"/"Memset"), else COMPUTATION.
enum class HtaKernelType { kComputation, kCommunication, kMemory };

HtaKernelType ClassifyHta(const GpuOp& op, std::string_view name);

// The communication library or mechanism a kernel belongs to: "nccl" (NCCL/RCCL, as HTA),
// "msccl", "nvshmem", "deepep" (DeepEP dispatch/combine), "symmetric_memory" (PyTorch
// SymmetricMemory multimem/one-shot/two-shot kernels), "custom_allreduce" (inference engines'
// own all-reduce: vLLM cross_device_reduce, TensorRT-LLM allreduce, quick reduce…),
// "collective" (a kernel Kineto tagged with collective args) — or "" for a kernel that does not
// communicate. Memcpy/memset ops are never communication. Returns a string literal.
std::string_view CommunicationKind(const GpuOp& op, std::string_view name);

// gpuvet's kernel type: HTA's, except that every kernel with a CommunicationKind is
// kCommunication. On traces whose only communication is NCCL/RCCL it equals ClassifyHta.
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
// "reduction", "communication", "memory", "other". Returns a string literal.
std::string_view KernelCategory(const GpuOp& op, std::string_view name);

// The fixed category order used in reports.
inline constexpr std::string_view kKernelCategories[] = {
    "gemm", "attention", "elementwise", "reduction", "communication", "memory", "other"};

// Report names of the kernel types, in HTA's order (computation, communication, memory).
std::string_view KernelTypeName(HtaKernelType t);

}  // namespace gpuvet
