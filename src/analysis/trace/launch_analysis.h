// Launch overhead: how long the host spends launching each kernel compared with how long the
// kernel runs, how far ahead of the GPU the host is (launch delay), and how many ops wait on each
// stream (HTA's queue length). Tiny kernels that run shorter than their launch mark a job bound by
// launch overhead rather than by the GPU.
#pragma once

#include "analysis/trace/op_window.h"
#include "core/trace/trace.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// Over every GPU op joined by correlation to the runtime call that enqueued it. Launch figures
// (launches, shorter_than_launch, durations, delays) use kernels launched by a kLaunch call over
// the whole trace; queue lengths use the ops in `window` (HTA's analysis window: its queue length
// reads the trace after the last ProfilerStep's kernels are dropped) enqueued by kLaunch,
// kMemcpyAsync or kMemset calls, as HTA's TraceCounters.get_queue_length_time_series does (+1 at
// the call's start, −1 when the op starts, starts first on ties; mean over all samples). Queues
// sorted by (device, stream).
LaunchStats ComputeLaunchStats(const RankTrace& trace, const OpWindow& window);

// The same with every GPU op of the trace in the window.
LaunchStats ComputeLaunchStats(const RankTrace& trace);

}  // namespace gpuvet
