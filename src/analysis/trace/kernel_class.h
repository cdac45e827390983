// Naming GPU ops: HTA's three-way kernel type (what the temporal breakdown counts as compute) and
// gpuvet's finer category for the kernel breakdown. Both are decided from the kernel name (and the
// op kind for copies), because that is all a trace reliably carries.
#pragma once

#include <string_view>

#include "core/trace.h"

namespace gpuvet {

// HTA hta/utils/utils.py get_kernel_type: COMMUNICATION when the name contains "nccl" (or
// "rccl"), MEMORY for memcpy/memset ops (or names containing "Memcpy"/"Memset"), else COMPUTATION.
enum class HtaKernelType { kComputation, kCommunication, kMemory };

HtaKernelType ClassifyHta(const GpuOp& op, std::string_view name);

// The breakdown category of a GPU op: "gemm" (GEMM and convolution), "attention", "elementwise",
// "reduction", "communication", "memory", "other". Returns a string literal.
std::string_view KernelCategory(const GpuOp& op, std::string_view name);

// The fixed category order used in reports.
inline constexpr std::string_view kKernelCategories[] = {
    "gemm", "attention", "elementwise", "reduction", "communication", "memory", "other"};

}  // namespace gpuvet
