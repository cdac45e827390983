// Wiring of the per-rank analyses, the cross-rank comparison and the verdict.
#include "analysis/trace/analyze.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/trace/breakdown/idle_breakdown.h"
#include "analysis/trace/breakdown/kernel_breakdown.h"
#include "analysis/trace/breakdown/temporal_breakdown.h"
#include "analysis/trace/copy_analysis.h"
#include "analysis/trace/counter_analysis.h"
#include "analysis/trace/host_attribution.h"
#include "analysis/trace/launch_analysis.h"
#include "analysis/trace/op_window.h"
#include "analysis/trace/startup.h"
#include "analysis/trace/straggler.h"
#include "analysis/trace/trace_forecast.h"
#include "analysis/trace/verdict.h"

namespace gpuvet {

namespace {

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "rank N"; the file name when the trace names no rank, and both when another input claims the
// same rank (two runs given together); plus the process/device of a split Nsight export.
std::string Subject(const RankTrace& t, bool rank_shared) {
  std::string base = BaseName(t.source);
  if (t.rank >= 0) {
    if (rank_shared) base += t.part.empty() ? "" : ", " + t.part;
    return rank_shared      ? fmt::format("rank {} ({})", t.rank, base)
           : t.part.empty() ? fmt::format("rank {}", t.rank)
                            : fmt::format("rank {} ({})", t.rank, t.part);
  }
  if (base.empty()) base = "trace";
  return t.part.empty() ? base : fmt::format("{} ({})", base, t.part);
}

RankAnalysis AnalyzeWindow(const RankTrace& t, const TraceOptions& options, bool rank_shared,
                           bool detect_startup);

// Start-up first: when one-time work dominates, the rest of the trace is analysed on its own
// (its verdict is the steady state's) and the rank is labelled startup.
void JudgeStartup(const RankTrace& t, const TraceOptions& options, bool rank_shared,
                  RankAnalysis& a) {
  a.startup = ComputeStartup(t, options.thresholds);
  if (!a.startup.detected) return;
  RankTrace rest = TraceAfter(t, a.startup.end_ns);
  RankAnalysis steady = AnalyzeWindow(rest, options, rank_shared, false);
  a.startup.steady = steady.has_gpu_ops ? steady.verdict
                                        : TraceVerdict{Bottleneck::kInsufficientData, 0, "low",
                                                       "no GPU operations after the start-up work"};
  if (steady.has_gpu_ops) a.steady_state.push_back(std::move(steady));
}

RankAnalysis AnalyzeWindow(const RankTrace& t, const TraceOptions& options, bool rank_shared,
                           bool detect_startup) {
  RankAnalysis a;
  a.source = t.source;
  a.format = t.format;
  a.subject = Subject(t, rank_shared);
  a.rank = t.rank;
  a.world_size = t.world_size;
  a.device_type = t.device_type;
  a.has_gpu_ops = !t.gpu_ops.empty();
  a.truncated = t.truncated;
  a.events_seen = t.events_seen;
  a.input_bytes = t.input_bytes;
  for (const RuntimeCall& c : t.runtime) {
    if (c.kind == RuntimeKind::kLaunch || c.kind == RuntimeKind::kGraphLaunch ||
        c.kind == RuntimeKind::kMemcpy || c.kind == RuntimeKind::kMemcpyAsync ||
        c.kind == RuntimeKind::kMemset) {
      ++a.gpu_work_calls;
    }
  }
  a.profiler_events = t.profiler_events;
  a.gpu_capture_note = t.gpu_capture_note;
  a.warnings = t.warnings;
  a.gpu_name = t.gpu_name;
  OpWindow window = SelectHtaOps(t);
  a.temporal = ComputeTemporal(t, window);
  a.idle = ComputeIdleBreakdown(t, window, options.thresholds);
  a.gpu_idle = ComputeGpuIdle(t, window, options.thresholds);
  a.kernels = ComputeKernelBreakdown(t, window, options);
  a.launch = ComputeLaunchStats(t, window);
  a.copies = ComputeCopyStats(t, options.thresholds, a.temporal.start_ns, a.temporal.end_ns);
  a.overlap = ComputeCommOverlap(t, window);
  a.steps = ComputeSteps(t);
  a.counters = ComputeCounterStats(t);
  a.host = ComputeHostAttribution(t, window, a.temporal);
  for (const UnanalysedEvents& u : t.unanalysed) {
    a.unsupported.push_back({u.category, u.device, u.events});
  }
  if (options.time_budget && a.has_gpu_ops) a.budget = ComputeTimeBudget(t, window, a);
  if (detect_startup && a.has_gpu_ops) JudgeStartup(t, options, rank_shared, a);
  a.verdict = RankVerdict(a, options.thresholds);
  return a;
}

}  // namespace

RankAnalysis AnalyzeRank(const RankTrace& t, const TraceOptions& options, bool rank_shared) {
  return AnalyzeWindow(t, options, rank_shared, true);
}

TraceReport AnalyzeTraces(std::vector<RankTrace> ranks, const TraceOptions& options) {
  TraceReport r;
  r.ranks.reserve(ranks.size());
  r.cross = ComputeCrossRank(ranks, options.thresholds);
  auto shared = [&r](int rank) {
    for (const auto& [dup, files] : r.cross.duplicate_ranks) {
      if (dup == rank) return true;
    }
    return false;
  };
  for (const RankTrace& t : ranks) {
    r.ranks.push_back(AnalyzeRank(t, options, t.rank >= 0 && shared(t.rank)));
    AppendRankFindings(r.ranks.back(), options.thresholds, r.findings);
  }
  AppendCrossRankFindings(r.cross, options.thresholds, r.findings);
  r.verdict = OverallVerdict(r.ranks);
  if ((!r.cross.duplicate_ranks.empty() || r.cross.runs.size() > 1) && r.ranks.size() > 1) {
    // Separate runs: an overall label would mix them; each input's own verdict is the answer.
    r.verdict.confidence = "low";
    r.verdict.reason += fmt::format("; the inputs are {} separate runs, read each one's verdict",
                                    std::max<size_t>(2, r.cross.runs.size()));
  }
  r.worst = WorstSeverity(r.findings);
  return r;
}

}  // namespace gpuvet
