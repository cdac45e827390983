// HTA's idle-time breakdown per (device, stream): why each stream sat idle between two of its
// ops. Host wait means the host had not yet asked for the next op when the previous one ended;
// kernel wait means a short back-to-back gap; anything else (waiting on an event, another stream)
// is other.
#pragma once

#include <vector>

#include "analysis/trace/op_window.h"
#include "analysis/trace/trace_options.h"
#include "core/trace/trace.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// HTA BreakdownAnalysis._analyze_idle_time_for_stream for every (device, stream) with ops in
// `window`: for each op after the first, gap = start − end of the previous op on the stream (by
// start order); host wait when the op's launching runtime call (joined by correlation) started
// after the previous op ended; else kernel wait when gap < consecutive_kernel_delay_ns; else other.
// Negative gaps (overlapping ops on one stream) count as zero, where HTA adds them negative.
// Host-wait gaps shorter than launch_gap_max_ns are also summed in host_wait_short_ns.
// Sorted by (device, stream).
std::vector<StreamIdle> ComputeIdleBreakdown(const RankTrace& trace, const OpWindow& window,
                                             const TraceThresholds& thresholds);

// The gaps of the merged timeline of every window op (all streams and devices), each classified
// by the op that ends it as the per-stream breakdown does: host wait when that op's launch call
// started after the GPU had gone idle, kernel wait when shorter than the consecutive-kernel delay,
// other otherwise. A gap on one stream while another runs is not idle here; a gap on every
// stream at once (the host between two phases of a multi-stream step) is.
StreamIdle ComputeGpuIdle(const RankTrace& trace, const OpWindow& window,
                          const TraceThresholds& thresholds);

}  // namespace gpuvet
