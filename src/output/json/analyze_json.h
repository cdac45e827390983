// JSON rendering of an analyze report (schema gpuvet.analyze/v1, documented in
// docs/json-schema.md). Keys are sorted; numbers are rounded to 2 decimals (4 for ratios such as
// r²) so the output is stable; nothing depends on the clock but `generated_at` (--now in tests).
#pragma once

#include <string>

#include "core/analyze_report.h"

namespace gpuvet {

// The whole report as a JSON document (pretty-printed, trailing newline).
std::string RenderAnalyzeJson(const AnalyzeReport& report);

}  // namespace gpuvet
