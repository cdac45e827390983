// What kind of work the GPU did: time per kernel category (GEMM/conv, attention, elementwise,
// reduction, communication, memory, other), the heaviest kernel names, and how many kernels a
// CUDA graph launched (HTA drops those, HTA#290; gpuvet counts them like any other).
#pragma once

#include "analysis/trace/op_window.h"
#include "analysis/trace/trace_options.h"
#include "core/trace.h"
#include "core/trace_report.h"

namespace gpuvet {

// Categories sorted by descending time (ties by category order); top names by descending total
// time until options.top_kernel_share of all op time is covered, at most options.top_kernel_count.
KernelBreakdown ComputeKernelBreakdown(const RankTrace& trace, const OpWindow& window,
                                       const TraceOptions& options);

}  // namespace gpuvet
