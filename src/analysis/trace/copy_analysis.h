// Host-device copies and host synchronisation: volume, time and achieved bandwidth per copy
// direction, copies that touch pageable host memory, synchronous copies and explicit syncs, and
// `.item()`-style scalar reads (a small device-to-host copy the host immediately waits for).
#pragma once

#include "analysis/trace/trace_options.h"
#include "core/trace/trace.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// The report name of a copy direction: "HtoD", "DtoH", "DtoD", "PtoP", "HtoH", else "other".
const char* DirectionName(CopyKind k);

// Over all memcpy ops and runtime calls of the trace. Directions appear only when they have
// copies, in the order HtoD, DtoH, DtoD, PtoP, HtoH, other. Syncs list device, stream, event and
// memcpy (synchronous cudaMemcpy) calls that occurred. A scalar read is a DtoH copy of at most
// thresholds.scalar_read_max_bytes whose enqueuing call is a synchronous kMemcpy (its time counts)
// or a kMemcpyAsync followed, as the next runtime call on the same thread, by a stream or device
// sync (the copy call's and that sync's time count). copy_busy_in_span_ns and sync_in_span_ns clip
// the copies and the sync calls to [span_start_ns, span_end_ns), the window the verdict's shares
// divide by; so do the exposed host<->device copy time (not covered by any computation kernel,
// ClassifyKernel), the blocking copy calls (synchronous cudaMemcpy, pageable cudaMemcpyAsync, of
// any size) and the sync and blocking-copy time while no GPU op runs. A blocking DtoH call's time
// while other GPU ops run is a wait for the GPU (dtoh_gpu_wait_*), named by the op it queued
// behind.
CopyStats ComputeCopyStats(const RankTrace& trace, const TraceThresholds& thresholds,
                           int64_t span_start_ns, int64_t span_end_ns);

}  // namespace gpuvet
