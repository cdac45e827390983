// Temporal breakdown, comm/compute overlap and per-step busy time.
#include "analysis/trace/breakdown/temporal_breakdown.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "analysis/trace/intervals.h"
#include "analysis/trace/kernel_class.h"

namespace gpuvet {

namespace {

double Pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

Interval Of(const GpuOp& op) { return {op.start_ns, op.start_ns + op.dur_ns}; }

}  // namespace

TemporalBreakdown ComputeTemporal(const RankTrace& trace, const OpWindow& window) {
  TemporalBreakdown t;
  t.last_step_excluded = window.last_step_excluded;
  t.ops_counted = window.ops.size();
  if (window.ops.empty()) return t;
  std::vector<Interval> all, compute;
  all.reserve(window.ops.size());
  KernelTypeCache types(trace);
  for (uint32_t i : window.ops) {
    const GpuOp& op = trace.gpu_ops[i];
    all.push_back(Of(op));
    if (types.Of(op) == HtaKernelType::kComputation) {
      compute.push_back(Of(op));
    }
  }
  std::vector<Interval> merged = MergeIntervals(std::move(all));
  t.start_ns = merged.front().start;
  t.end_ns = merged.back().end;
  t.span_ns = t.end_ns - t.start_ns;
  t.idle_ns = t.span_ns - TotalLength(merged);
  t.compute_ns = TotalLength(MergeIntervals(std::move(compute)));
  t.non_compute_ns = t.span_ns - t.compute_ns - t.idle_ns;
  t.idle_pct = Pct(t.idle_ns, t.span_ns);
  t.compute_pct = Pct(t.compute_ns, t.span_ns);
  t.non_compute_pct = Pct(t.non_compute_ns, t.span_ns);
  return t;
}

CommOverlap ComputeCommOverlap(const RankTrace& trace, const OpWindow& window) {
  std::vector<Interval> comm, compute;
  std::vector<CommKindTime> kinds;               // a handful
  std::unordered_map<uint64_t, size_t> kind_of;  // (name, collective) -> index into kinds
  KernelTypeCache types(trace);
  for (uint32_t i : window.ops) {
    const GpuOp& op = trace.gpu_ops[i];
    HtaKernelType type = types.Of(op);
    if (type == HtaKernelType::kCommunication) {
      comm.push_back(Of(op));
      auto [slot, fresh] = kind_of.try_emplace((uint64_t{op.name} << 1) | op.collective, 0);
      if (fresh) {
        std::string_view kind = CommunicationKind(op, trace.Name(op.name));
        size_t k = 0;
        while (k < kinds.size() && kinds[k].kind != kind) ++k;
        if (k == kinds.size()) kinds.push_back({std::string(kind), 0, 0});
        slot->second = k;
      }
      ++kinds[slot->second].count;
      kinds[slot->second].time_ns += op.dur_ns;
    }
    if (type == HtaKernelType::kComputation) compute.push_back(Of(op));
  }
  CommOverlap o;
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const auto& x, const auto& y) { return x.time_ns > y.time_ns; });
  o.kinds = std::move(kinds);
  std::vector<Interval> comm_merged = MergeIntervals(std::move(comm));
  o.comm_ns = TotalLength(comm_merged);
  o.overlapped_ns = IntersectionLength(comm_merged, MergeIntervals(std::move(compute)));
  o.exposed_ns = o.comm_ns - o.overlapped_ns;
  o.overlap_pct = Pct(o.overlapped_ns, o.comm_ns);
  return o;
}

std::vector<StepStat> ComputeSteps(const RankTrace& trace) {
  std::vector<StepStat> out;
  if (trace.steps.empty()) return out;
  std::vector<Interval> all;
  all.reserve(trace.gpu_ops.size());
  for (const GpuOp& op : trace.gpu_ops) all.push_back(Of(op));
  std::vector<Interval> merged = MergeIntervals(std::move(all));
  for (const TraceRange& s : trace.steps) {
    StepStat st;
    st.name = trace.Name(s.name);
    st.start_ns = s.start_ns;
    st.dur_ns = s.dur_ns;
    st.gpu_busy_ns = ClippedLength(merged, s.start_ns, s.start_ns + s.dur_ns);
    st.busy_pct = Pct(st.gpu_busy_ns, s.dur_ns);
    st.idle_pct = s.dur_ns > 0 ? 100.0 - st.busy_pct : 0.0;
    out.push_back(std::move(st));
  }
  return out;
}

}  // namespace gpuvet
