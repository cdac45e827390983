// JSON of a `gpuvet bench` report (schema gpuvet.bench/v1, docs/bench.md): the GPUs with their
// properties, every measurement with method, sizes, samples and spread, the expectations each
// figure was held against, the findings and the verdict. core/bench_document.h reads it back (as
// a --baseline, and for the fleet).
#pragma once

#include <string>

#include "core/bench.h"

namespace gpuvet {

// The whole report as a JSON document (keys sorted, pretty-printed, trailing newline).
std::string RenderBenchJson(const BenchReport& report);

}  // namespace gpuvet
