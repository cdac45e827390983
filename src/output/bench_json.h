// JSON of a `gpuvet bench` report (schema gpuvet.bench/v1, docs/bench.md): the GPUs with their
// properties, every measurement with method, sizes, samples and spread, the expectations each
// figure was held against, the findings and the verdict. Also reads such a document back as a
// baseline for --baseline.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/bench.h"
#include "util/status.h"

namespace gpuvet {

// The whole report as a JSON document (keys sorted, pretty-printed, trailing newline).
std::string RenderBenchJson(const BenchReport& report);

// The measurements of an earlier `gpuvet bench --format json` output. InvalidInput naming
// `filename` and the byte offset for malformed JSON, and the entry for a wrong schema or a
// measurement without id/gpu/peer/median.
Result<std::vector<BenchMeasurement>> ParseBenchBaseline(std::string_view text,
                                                         const std::string& filename);

}  // namespace gpuvet
