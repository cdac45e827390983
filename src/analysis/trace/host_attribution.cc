// Idle-gap attribution by interval arithmetic; see host_attribution.h.
#include "analysis/trace/host_attribution.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "analysis/trace/intervals.h"

namespace gpuvet {

namespace {

// The parts of merged list `a` inside merged list `b`.
std::vector<Interval> Intersect(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t lo = std::max(a[i].start, b[j].start), hi = std::min(a[i].end, b[j].end);
    if (lo < hi) out.push_back({lo, hi});
    (a[i].end < b[j].end ? i : j)++;
  }
  return out;
}

// The parts of merged list `a` outside merged list `b`.
std::vector<Interval> Subtract(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t j = 0;
  for (Interval x : a) {
    while (j < b.size() && b[j].end <= x.start) ++j;
    size_t k = j;
    int64_t from = x.start;
    while (k < b.size() && b[k].start < x.end) {
      if (b[k].start > from) out.push_back({from, b[k].start});
      from = std::max(from, b[k].end);
      ++k;
    }
    if (from < x.end) out.push_back({from, x.end});
  }
  return out;
}

// The calls ComputeCopyStats counts as syncs (trace.sync_stalls): keep the two in step.
bool IsSync(RuntimeKind k) {
  return k == RuntimeKind::kDeviceSync || k == RuntimeKind::kStreamSync ||
         k == RuntimeKind::kEventSync || k == RuntimeKind::kMemcpy;
}

double Pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

HostAttribution ComputeHostAttribution(const RankTrace& trace, const OpWindow& window,
                                       const TemporalBreakdown& temporal) {
  HostAttribution h;
  std::vector<Interval> loader, optimizer, sync;
  for (const HostPhase& p : trace.host_phases) {
    (p.kind == HostPhaseKind::kDataLoader ? loader : optimizer)
        .push_back({p.start_ns, p.start_ns + p.dur_ns});
  }
  h.has_phases = !trace.host_phases.empty();
  for (const RuntimeCall& c : trace.runtime) {
    if (IsSync(c.kind)) sync.push_back({c.start_ns, c.start_ns + c.dur_ns});
  }
  loader = MergeIntervals(std::move(loader));
  optimizer = MergeIntervals(std::move(optimizer));
  sync = MergeIntervals(std::move(sync));

  // Per step: the TensorBoard plugin's "DataLoader" share of step time.
  int64_t opt_in_steps = 0;
  for (const TraceRange& s : trace.steps) {
    const int64_t end = s.start_ns + s.dur_ns;
    const int64_t in_loader = ClippedLength(loader, s.start_ns, end);
    ++h.steps;
    h.step_ns += s.dur_ns;
    h.dataloader_in_steps_ns += in_loader;
    opt_in_steps += ClippedLength(optimizer, s.start_ns, end);
    h.dataloader_max_step_pct = std::max(h.dataloader_max_step_pct, Pct(in_loader, s.dur_ns));
  }
  h.dataloader_step_pct = Pct(h.dataloader_in_steps_ns, h.step_ns);
  h.optimizer_step_pct = Pct(opt_in_steps, h.step_ns);

  // The GPU's idle gaps inside the span (every stream merged).
  std::vector<Interval> busy;
  busy.reserve(window.ops.size());
  for (uint32_t i : window.ops) {
    const GpuOp& op = trace.gpu_ops[i];
    busy.push_back({op.start_ns, op.start_ns + op.dur_ns});
  }
  std::vector<Interval> idle =
      Subtract({{temporal.start_ns, temporal.end_ns}}, MergeIntervals(std::move(busy)));
  if (temporal.end_ns <= temporal.start_ns) idle.clear();
  h.idle_ns = TotalLength(idle);
  // Sync time while no GPU op at all runs (ops of the last step outside `window` included):
  // exactly CopyStats::sync_idle_in_span_ns, what trace.sync_stalls judges. It lies inside
  // `idle`, the window's gaps, because every window op is a GPU op.
  std::vector<Interval> all_ops;
  all_ops.reserve(trace.gpu_ops.size());
  for (const GpuOp& op : trace.gpu_ops) all_ops.push_back({op.start_ns, op.start_ns + op.dur_ns});
  std::vector<Interval> in_sync =
      Intersect(idle, Subtract(sync, MergeIntervals(std::move(all_ops))));
  h.sync_idle_ns = TotalLength(in_sync);
  idle = Subtract(idle, in_sync);
  std::vector<Interval> in_loader = Intersect(idle, loader);
  h.dataloader_idle_ns = TotalLength(in_loader);
  idle = Subtract(idle, in_loader);
  h.optimizer_idle_ns = TotalLength(Intersect(idle, optimizer));
  h.other_idle_ns = h.idle_ns - h.sync_idle_ns - h.dataloader_idle_ns - h.optimizer_idle_ns;
  return h;
}

}  // namespace gpuvet
