// Across ranks: world size, missing ranks, and straggler ranks in the spirit of HTA's
// find_stragglers_with_late_start_comm_kernels: collectives end together, so the rank that starts
// a significant collective last in a step is the one the others waited for.
#pragma once

#include <vector>

#include "analysis/trace/trace_options.h"
#include "core/trace/trace.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// Compares ranks with a known rank number and GPU ops. Steps are matched across ranks by name
// (the whole trace is one step when no rank marks steps). In each step and rank, the last
// communication kernel of each name whose launch call (or, without one, the kernel) starts in the
// step and that lasts at least straggler_min_normalized_duration × mean step time is a candidate;
// the compared name is the one present on every rank in the most steps (ties: the largest mean
// spread of its duration across ranks, HTA's choice, then name). Per compared step the rank with
// the latest start is late. A rank is a straggler when late in at least straggler_late_share of at
// least straggler_min_steps compared steps.
CrossRank ComputeCrossRank(const std::vector<RankTrace>& ranks, const TraceThresholds& thresholds);

}  // namespace gpuvet
