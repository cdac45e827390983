// Run grouping by world size, device class, time overlap and distinct ranks; see run_groups.h.
#include "analysis/trace/run_groups.h"

#include <algorithm>
#include <string>

namespace gpuvet {

namespace {

struct Span {
  int64_t start = INT64_MAX;
  int64_t end = INT64_MIN;
  bool valid() const { return start <= end; }
};

Span SpanOf(const RankTrace& t) {
  Span s;
  auto add = [&s](int64_t start, int64_t dur) {
    s.start = std::min(s.start, start);
    s.end = std::max(s.end, start + dur);
  };
  for (const GpuOp& op : t.gpu_ops) add(op.start_ns, op.dur_ns);
  for (const RuntimeCall& c : t.runtime) add(c.start_ns, c.dur_ns);
  for (const TraceRange& r : t.steps) add(r.start_ns, r.dur_ns);
  return s;
}

std::string DeviceClass(const RankTrace& t) {
  std::string type = t.device_type.empty() ? "no device" : t.device_type;
  return t.gpu_name.empty() ? type : t.gpu_name + " (" + type + ")";
}

}  // namespace

std::vector<size_t> RunOfEachTrace(const std::vector<RankTrace>& traces) {
  struct Open {
    TraceRun run;
    std::vector<Span> spans;
  };
  std::vector<Open> runs;
  std::vector<size_t> of;
  for (const RankTrace& t : traces) {
    Span span = SpanOf(t);
    std::string device = DeviceClass(t);
    size_t chosen = runs.size();
    for (size_t i = 0; i < runs.size() && span.valid(); ++i) {
      const TraceRun& r = runs[i].run;
      // A rank without device events (a CPU-only rank of the job) matches any device class.
      bool same_device = r.device == device || t.device_type.empty() || r.device == "no device";
      if (r.world_size != t.world_size || !same_device) continue;
      if ((t.rank < 0) != r.ranks.empty()) continue;
      if (t.rank >= 0 && std::count(r.ranks.begin(), r.ranks.end(), t.rank) > 0) continue;
      bool overlaps = std::any_of(runs[i].spans.begin(), runs[i].spans.end(), [&](const Span& s) {
        return s.valid() && s.start <= span.end && span.start <= s.end;
      });
      if (overlaps) {
        chosen = i;
        break;
      }
    }
    if (chosen == runs.size()) {
      runs.emplace_back();
      runs.back().run.world_size = t.world_size;
      runs.back().run.device = device;
    }
    if (runs[chosen].run.device == "no device") runs[chosen].run.device = device;
    if (t.rank >= 0) runs[chosen].run.ranks.push_back(t.rank);
    runs[chosen].spans.push_back(span);
    of.push_back(chosen);
  }
  return of;
}

std::vector<TraceRun> GroupRuns(const std::vector<RankTrace>& traces) {
  std::vector<size_t> of = RunOfEachTrace(traces);
  size_t n = of.empty() ? 0 : *std::max_element(of.begin(), of.end()) + 1;
  std::vector<TraceRun> runs(n);
  std::vector<int64_t> step_total(n, 0);
  for (size_t i = 0; i < traces.size(); ++i) {
    const RankTrace& t = traces[i];
    TraceRun& r = runs[of[i]];
    Span span = SpanOf(t);
    if (r.sources.empty() || r.device == "no device") r.device = DeviceClass(t);
    if (r.sources.empty()) {
      r.world_size = t.world_size;
      r.start_ns = span.valid() ? span.start : 0;
      r.end_ns = span.valid() ? span.end : 0;
    } else if (span.valid()) {
      r.start_ns = std::min(r.start_ns, span.start);
      r.end_ns = std::max(r.end_ns, span.end);
    }
    r.sources.push_back(t.source);
    if (t.rank >= 0) r.ranks.push_back(t.rank);
    for (const TraceRange& s : t.steps) {
      ++r.steps;
      step_total[of[i]] += s.dur_ns;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    std::sort(runs[i].ranks.begin(), runs[i].ranks.end());
    if (runs[i].steps > 0) {
      runs[i].mean_step_ns = step_total[i] / static_cast<int64_t>(runs[i].steps);
    }
  }
  return runs;
}

}  // namespace gpuvet
