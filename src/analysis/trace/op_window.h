// The GPU ops the span-based analyses look at, chosen as HTA chooses them
// (Trace._filter_irrelevant_gpu_kernels), so gpuvet's temporal and idle breakdowns can be checked
// against HTA's: with more than one ProfilerStep, the last (often incomplete) step is dropped.
#pragma once

#include <cstdint>
#include <vector>

#include "core/trace/trace.h"

namespace gpuvet {

struct OpWindow {
  std::vector<uint32_t> ops;  // indices into RankTrace::gpu_ops, in gpu_ops order (by start)
  bool last_step_excluded = false;
};

// With more than one distinct profiler step name, keeps the GPU ops whose launching runtime call
// (joined by correlation) started before the last step began, and ops with no correlation (-1);
// ops whose launch is not in the trace are dropped, as HTA's inner join drops them. Otherwise
// keeps every GPU op.
OpWindow SelectHtaOps(const RankTrace& trace);

}  // namespace gpuvet
