// What kind of work the GPU did: time per kernel category (GEMM/conv, attention, elementwise,
// reduction, communication, memory, other), HTA's kernel-type table (exclusive union time per
// combination of computation, communication and memory, with "overlapping" rows), the heaviest
// kernel names per kernel type as HTA lists them, and how many kernels a CUDA graph launched (HTA
// drops those, HTA#290; gpuvet counts them like any other).
#pragma once

#include "analysis/trace/op_window.h"
#include "analysis/trace/trace_options.h"
#include "core/trace/trace.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// Over the ops in `window`. Categories sorted by descending time (ties by category order). Kernel
// types (gpuvet's: ClassifyKernel) as HTA's _get_gpu_kernel_type_time, descending. Top names per
// type as HTA's _aggr_gpu_kernel_time: every name when a type has at most
// options.top_kernel_count of them; else the names by descending time whose running total stays
// within the options.top_kernel_share quantile of the running totals, at most top_kernel_count,
// and one "others" row for the rest.
KernelBreakdown ComputeKernelBreakdown(const RankTrace& trace, const OpWindow& window,
                                       const TraceOptions& options);

}  // namespace gpuvet
