// JSON rendering of a trace report (schema gpuvet.trace/v1): the inputs with their format and
// warnings, every per-rank analysis, the cross-rank comparison, the findings (same shape as
// `gpuvet check`'s) and the verdict. Times are microseconds (`_us`, as HTA reports them),
// percentages 0–100 rounded to 2 decimals; keys are sorted and nothing depends on the clock.
#pragma once

#include <string>

#include "core/trace/trace_report.h"

namespace gpuvet {

// The whole report as a JSON document (pretty-printed, trailing newline).
std::string RenderTraceJson(const TraceReport& report);

}  // namespace gpuvet
