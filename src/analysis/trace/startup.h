// Start-up detection: a trace taken at the start of a job (no schedule, or a schedule that does
// not skip warm-up) shows one-time work — stream/event/module creation, allocations, NCCL set-up,
// first launches that load code, CUDA-graph capture — not the job's steady state. This measures
// that work's share of the window and cuts the trace after it, so the verdict can be taken on
// the rest.
#pragma once

#include <cstdint>

#include "analysis/trace/trace_options.h"
#include "core/trace/trace.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// The one-time host work of `trace` over its window (from the first GPU op, or the first one-time
// call before it, to the last GPU op or runtime call; without GPU ops from the first runtime
// call): runtime calls that create streams/events/modules/graphs or allocate/free memory,
// CUDA-graph capture from cudaStreamBeginCapture to cudaStreamEndCapture on a thread, first
// launches of a kernel name taking >= startup_first_launch_ns, a thread's first runtime call of
// that length before the first GPU op (lazy context creation, whatever the call), and NCCL
// communicator set-up. `detected` when
// the union covers >= startup_pct of the window; `steady` is left for the caller.
StartupStats ComputeStartup(const RankTrace& trace, const TraceThresholds& thresholds);

// A copy of `trace` holding only what starts at or after `cut_ns` (GPU ops, runtime calls,
// steps, annotations, host phases); names and metadata are kept.
RankTrace TraceAfter(const RankTrace& trace, int64_t cut_ns);

}  // namespace gpuvet
