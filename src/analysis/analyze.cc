// Wiring of the per-rank analyses, the cross-rank comparison and the verdict.
#include "analysis/analyze.h"

#include <fmt/format.h>

#include "analysis/copy_analysis.h"
#include "analysis/idle_breakdown.h"
#include "analysis/kernel_breakdown.h"
#include "analysis/launch_analysis.h"
#include "analysis/op_window.h"
#include "analysis/straggler.h"
#include "analysis/temporal_breakdown.h"
#include "analysis/verdict.h"

namespace gpuvet {

namespace {

std::string Subject(const RankTrace& t) {
  if (t.rank >= 0) return fmt::format("rank {}", t.rank);
  size_t slash = t.source.find_last_of('/');
  std::string base = slash == std::string::npos ? t.source : t.source.substr(slash + 1);
  return base.empty() ? "trace" : base;
}

}  // namespace

RankAnalysis AnalyzeRank(const RankTrace& t, const TraceOptions& options) {
  RankAnalysis a;
  a.source = t.source;
  a.format = t.format;
  a.subject = Subject(t);
  a.rank = t.rank;
  a.world_size = t.world_size;
  a.device_type = t.device_type;
  a.has_gpu_ops = !t.gpu_ops.empty();
  a.truncated = t.truncated;
  a.events_seen = t.events_seen;
  a.input_bytes = t.input_bytes;
  a.warnings = t.warnings;
  OpWindow window = SelectHtaOps(t);
  a.temporal = ComputeTemporal(t, window);
  a.idle = ComputeIdleBreakdown(t, window, options.thresholds);
  a.kernels = ComputeKernelBreakdown(t, window, options);
  a.launch = ComputeLaunchStats(t);
  a.copies = ComputeCopyStats(t, options.thresholds);
  a.overlap = ComputeCommOverlap(t, window);
  a.steps = ComputeSteps(t);
  a.verdict = RankVerdict(a, options.thresholds);
  return a;
}

TraceReport AnalyzeTraces(std::vector<RankTrace> ranks, const TraceOptions& options) {
  TraceReport r;
  r.ranks.reserve(ranks.size());
  for (const RankTrace& t : ranks) {
    r.ranks.push_back(AnalyzeRank(t, options));
    AppendRankFindings(r.ranks.back(), options.thresholds, r.findings);
  }
  r.cross = ComputeCrossRank(ranks, options.thresholds);
  AppendCrossRankFindings(r.cross, options.thresholds, r.findings);
  r.verdict = OverallVerdict(r.ranks);
  r.worst = WorstSeverity(r.findings);
  return r;
}

}  // namespace gpuvet
