// Terminal rendering of an analyze report: what was recorded, the steady phases with their labels,
// every label with its evidence (value and threshold) and decision in the layout `gpuvet trace`
// uses for findings, periodic stalls, memory growth, throttling, energy and work, the upgrade
// forecast, and the verdict line last.
#pragma once

#include <string>

#include "core/analyze_report.h"

namespace gpuvet {

// `color`: ANSI colours (callers decide: TTY and NO_COLOR).
std::string RenderAnalyzeText(const AnalyzeReport& report, bool color);

// The final line alone, e.g. "verdict: host_cpu_bound/single_thread_feeder (78.0 % of wall time,
// confidence high): ...".
std::string AnalyzeVerdictLine(const AnalyzeReport& report);

}  // namespace gpuvet
