// Who holds the GPU while it idles: the DataLoader, the optimizer, host synchronisation, or the
// rest of the host's work between kernels (Python, framework overhead). The host_cpu_bound
// verdict names the holder, because each asks for a different fix.
#pragma once

#include "analysis/trace/op_window.h"
#include "core/trace/trace.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// The DataLoader's share of profiler-step time (per step and overall) and the attribution of
// the GPU's idle gaps inside [temporal.start_ns, temporal.end_ns) over the ops in `window`:
// each idle nanosecond goes to the first of sync calls (device/stream/event sync, synchronous
// copies) while no GPU op runs (the same time as CopyStats::sync_idle_in_span_ns), DataLoader
// ops, optimizer ops (step, zero_grad) that covers it, else to "other".
HostAttribution ComputeHostAttribution(const RankTrace& trace, const OpWindow& window,
                                       const TemporalBreakdown& temporal);

}  // namespace gpuvet
