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

// An earlier `gpuvet bench --format json` output: its measurements (with their status; reports
// without "status" count an entry with a "skipped" reason as unavailable), its mode and the PCI
// bus id of each GPU when present. InvalidInput naming `filename` and the byte offset for
// malformed JSON, and the entry for a wrong schema or a measurement without id/gpu/peer, or
// without a numeric median while measured.
Result<BenchBaseline> ParseBenchBaseline(std::string_view text, const std::string& filename);

}  // namespace gpuvet
