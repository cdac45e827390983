// Which inputs belong to one run: ranks are compared (stragglers, missing ranks) only inside a
// run, because ranks of different runs — another day, another world size, another GPU — share
// nothing but a step name, and their clocks are not comparable.
#pragma once

#include <vector>

#include "core/trace/trace.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// Groups the traces into runs, in input order: a trace joins the first run with the same world
// size and device class (device type and GPU name) whose time range overlaps its own and that
// has no trace of its rank yet (a trace without a rank joins only a run without ranks); else it
// starts a new run. Traces without any timed event form runs of their own.
std::vector<TraceRun> GroupRuns(const std::vector<RankTrace>& traces);

// The index into GroupRuns' result of each trace, in input order.
std::vector<size_t> RunOfEachTrace(const std::vector<RankTrace>& traces);

}  // namespace gpuvet
