// The entry point of the trace analyses: from the trace model of each rank to a TraceReport with
// every per-rank analysis, the cross-rank comparison, the findings and the verdict. The `gpuvet
// trace` command calls this between the readers and the renderers.
#pragma once

#include <vector>

#include "analysis/trace/trace_options.h"
#include "core/trace/trace.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// Analyses one rank (no cross-rank part, no findings). `rank_shared`: another input claims the same
// rank (two runs given together), so the subject names the file too.
RankAnalysis AnalyzeRank(const RankTrace& trace, const TraceOptions& options,
                         bool rank_shared = false);

// Analyses every rank (CPU-only ones included: they get a trace.input info finding), compares
// ranks, and derives findings (per rank in input order, then cross-rank) and verdicts. Pure: no
// I/O, no clock; the same input gives the same report.
TraceReport AnalyzeTraces(std::vector<RankTrace> ranks, const TraceOptions& options);

}  // namespace gpuvet
