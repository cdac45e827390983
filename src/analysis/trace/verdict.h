// The verdict of `gpuvet trace`: per rank a bottleneck label in the shared vocabulary with the
// share of the span it explains and a confidence, and the `trace.*` findings with the numbers and
// thresholds behind them. Pure functions of the analyses and TraceThresholds.
#pragma once

#include <vector>

#include "analysis/trace/trace_options.h"
#include "core/finding.h"
#include "core/trace/trace_report.h"

namespace gpuvet {

// The rank's label: no_gpu_activity without GPU ops (counter mode: the roofline label or
// counters_only); insufficient_data for a too short window; else the bottleneck (host_cpu_bound,
// launch_bound, idle, comm_bound, transfer_bound) whose threshold is crossed with the largest
// share of the span; else compute_bound. Idle causes are the streams' idle-category ratios
// weighted by each stream's busy time; idle with no host or launch cause counts as comm_bound
// when exposed communication crosses its threshold, else as idle.
TraceVerdict RankVerdict(const RankAnalysis& a, const TraceThresholds& th);

// The rank's trace.* findings (input, idle, host_cpu_bound, launch_bound, transfer_bound,
// pageable_copies, sync_stalls, comm_bound, compute_bound) appended to `out`.
void AppendRankFindings(const RankAnalysis& a, const TraceThresholds& th,
                        std::vector<Finding>& out);

// trace.straggler for the cross-rank comparison and trace.input for missing ranks (warn when
// several ranks were given, info for a single rank's trace).
void AppendCrossRankFindings(const CrossRank& x, const TraceThresholds& th,
                             std::vector<Finding>& out);

// The overall label: with one GPU rank, its verdict; else the bottleneck label most GPU ranks
// share (ties: the larger mean share), preferred over compute_bound even when fewer ranks have it,
// because in synchronous training every rank waits for the slowest; no_gpu_activity when no
// rank has GPU ops.
TraceVerdict OverallVerdict(const std::vector<RankAnalysis>& ranks);

}  // namespace gpuvet
