// JSON rendering of `gpuvet trace A --compare B` (schema gpuvet.trace_compare/v1, documented in
// docs/json-schema.md): both runs, the step split, idle, categories, copies, syncs, communication,
// the matched and one-sided kernels, the likely causes and the answer. Times are microseconds per
// step (`_us`), rounded to 3 decimals; keys are sorted.
#pragma once

#include <string>

#include "core/trace/trace_compare.h"

namespace gpuvet {

// The comparison as a JSON document (pretty-printed, trailing newline).
std::string RenderTraceCompareJson(const TraceComparison& c);

}  // namespace gpuvet
