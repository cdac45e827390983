// Terminal rendering of a trace report: a one-line verdict per rank, then per rank the temporal
// breakdown, idle time per stream, kernel categories and top kernels, launch and copy figures;
// the cross-rank comparison; then the findings in the same grouped layout as `gpuvet check`
// (problems in full with evidence, meaning and decision) and the overall verdict line.
#pragma once

#include <string>

#include "core/trace/trace_report.h"

namespace gpuvet {

// `color`: ANSI colours (callers decide: TTY and NO_COLOR).
std::string RenderTraceText(const TraceReport& report, bool color);

// The final line alone, e.g. "verdict: host_cpu_bound (27.3 % of the GPU span, confidence high)".
std::string TraceVerdictLine(const TraceReport& report);

}  // namespace gpuvet
