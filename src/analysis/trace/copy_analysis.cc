// Copy volumes, exposed host<->device copy time, pageable and blocking copies, syncs (and the
// part of them while the GPU idles) and scalar reads.
#include "analysis/trace/copy_analysis.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "analysis/trace/intervals.h"
#include "analysis/trace/kernel_class.h"

namespace gpuvet {

namespace {

constexpr CopyKind kDirectionOrder[] = {CopyKind::kHtoD, CopyKind::kDtoH, CopyKind::kDtoD,
                                        CopyKind::kPtoP, CopyKind::kHtoH, CopyKind::kOther};

// The merged intervals cut to [lo, hi).
std::vector<Interval> Clip(const std::vector<Interval>& merged, int64_t lo, int64_t hi) {
  std::vector<Interval> out;
  for (const Interval& iv : merged) {
    int64_t s = std::max(iv.start, lo), e = std::min(iv.end, hi);
    if (s < e) out.push_back({s, e});
  }
  return out;
}

bool HostLink(CopyKind k) { return k == CopyKind::kHtoD || k == CopyKind::kDtoH; }

int DirectionIndex(CopyKind k) {
  for (int i = 0; i < 5; ++i) {
    if (kDirectionOrder[i] == k) return i;
  }
  return 5;
}

}  // namespace

const char* DirectionName(CopyKind k) {
  switch (k) {
    case CopyKind::kHtoD:
      return "HtoD";
    case CopyKind::kDtoH:
      return "DtoH";
    case CopyKind::kDtoD:
      return "DtoD";
    case CopyKind::kPtoP:
      return "PtoP";
    case CopyKind::kHtoH:
      return "HtoH";
    default:
      return "other";
  }
}

CopyStats ComputeCopyStats(const RankTrace& trace, const TraceThresholds& thresholds,
                           int64_t span_start_ns, int64_t span_end_ns) {
  CopyStats s;
  CopyDirection dirs[6];
  std::vector<Interval> copy_intervals;
  // The next runtime call on the same thread, for scalar-read detection.
  std::vector<int32_t> next_on_thread(trace.runtime.size(), -1);
  std::unordered_map<int32_t, int32_t> last_on_thread;
  std::unordered_map<int64_t, int32_t> by_correlation;
  for (size_t i = 0; i < trace.runtime.size(); ++i) {
    const RuntimeCall& c = trace.runtime[i];
    auto [it, fresh] = last_on_thread.try_emplace(c.tid, static_cast<int32_t>(i));
    if (!fresh) {
      next_on_thread[it->second] = static_cast<int32_t>(i);
      it->second = static_cast<int32_t>(i);
    }
    if (c.correlation != -1) by_correlation.emplace(c.correlation, static_cast<int32_t>(i));
  }

  std::vector<Interval> all_ops, compute, host_copies;
  all_ops.reserve(trace.gpu_ops.size());
  std::unordered_set<int64_t> pageable_calls;  // correlations of pageable copies
  // Correlations of scalar reads: the host waits there for the queue, not for the copy, and
  // trace.sync_stalls reports that wait; they are not blocking copies.
  std::unordered_set<int64_t> scalar_calls;
  KernelTypeCache types(trace);
  for (const GpuOp& op : trace.gpu_ops) {
    all_ops.push_back({op.start_ns, op.start_ns + op.dur_ns});
    if (op.kind == GpuOpKind::kKernel && types.Of(op) == HtaKernelType::kComputation) {
      compute.push_back(all_ops.back());
    }
    if (op.kind != GpuOpKind::kMemcpy) continue;
    CopyDirection& d = dirs[DirectionIndex(op.copy)];
    ++d.count;
    d.bytes += op.bytes;
    d.time_ns += op.dur_ns;
    copy_intervals.push_back({op.start_ns, op.start_ns + op.dur_ns});
    if (HostLink(op.copy)) host_copies.push_back(copy_intervals.back());
    if (op.src == MemKind::kPageable || op.dst == MemKind::kPageable) {
      ++s.pageable_count;
      s.pageable_bytes += op.bytes;
      s.pageable_ns += op.dur_ns;
      if (op.correlation != -1) pageable_calls.insert(op.correlation);
    }
    if (op.copy != CopyKind::kDtoH || op.bytes > thresholds.scalar_read_max_bytes ||
        op.correlation == -1) {
      continue;
    }
    auto call = by_correlation.find(op.correlation);
    if (call == by_correlation.end()) continue;
    const RuntimeCall& c = trace.runtime[call->second];
    if (c.kind == RuntimeKind::kMemcpy) {
      ++s.scalar_reads;
      s.scalar_read_ns += c.dur_ns;
      scalar_calls.insert(op.correlation);
    } else if (c.kind == RuntimeKind::kMemcpyAsync && next_on_thread[call->second] >= 0) {
      const RuntimeCall& n = trace.runtime[next_on_thread[call->second]];
      if (n.kind == RuntimeKind::kStreamSync || n.kind == RuntimeKind::kDeviceSync) {
        ++s.scalar_reads;
        s.scalar_read_ns += n.dur_ns;
        scalar_calls.insert(op.correlation);
      }
    }
  }
  for (int i = 0; i < 6; ++i) {
    if (dirs[i].count == 0) continue;
    dirs[i].direction = DirectionName(i < 5 ? kDirectionOrder[i] : CopyKind::kOther);
    if (dirs[i].time_ns > 0) {
      // bytes per nanosecond == GB/s (1 GB = 1e9 bytes).
      dirs[i].gb_per_s = static_cast<double>(dirs[i].bytes) / static_cast<double>(dirs[i].time_ns);
    }
    s.directions.push_back(dirs[i]);
  }
  std::vector<Interval> merged = MergeIntervals(std::move(copy_intervals));
  s.copy_busy_ns = TotalLength(merged);
  s.copy_busy_in_span_ns = ClippedLength(merged, span_start_ns, span_end_ns);
  std::vector<Interval> host_in_span =
      Clip(MergeIntervals(std::move(host_copies)), span_start_ns, span_end_ns);
  s.host_copy_in_span_ns = TotalLength(host_in_span);
  s.host_copy_exposed_in_span_ns =
      s.host_copy_in_span_ns - IntersectionLength(host_in_span, MergeIntervals(std::move(compute)));

  SyncKindStat syncs[] = {{"device", 0, 0}, {"stream", 0, 0}, {"event", 0, 0}, {"memcpy", 0, 0}};
  std::vector<Interval> sync_intervals;
  auto in_span = [&](const RuntimeCall& c) {
    return std::max<int64_t>(
        0, std::min(c.start_ns + c.dur_ns, span_end_ns) - std::max(c.start_ns, span_start_ns));
  };
  for (const RuntimeCall& c : trace.runtime) {
    const bool scalar = c.correlation != -1 && scalar_calls.count(c.correlation) > 0;
    const bool blocking = !scalar && (c.kind == RuntimeKind::kMemcpy ||
                                      (c.kind == RuntimeKind::kMemcpyAsync && c.correlation != -1 &&
                                       pageable_calls.count(c.correlation) > 0));
    if (blocking) {
      ++s.blocking_copies;
      s.blocking_copy_ns += c.dur_ns;
      s.blocking_copy_in_span_ns += in_span(c);
      s.blocking_copy_max_ns = std::max(s.blocking_copy_max_ns, c.dur_ns);
    }
    int k = c.kind == RuntimeKind::kDeviceSync   ? 0
            : c.kind == RuntimeKind::kStreamSync ? 1
            : c.kind == RuntimeKind::kEventSync  ? 2
            : c.kind == RuntimeKind::kMemcpy     ? 3
                                                 : -1;
    if (k < 0) continue;
    ++syncs[k].count;
    syncs[k].time_ns += c.dur_ns;
    s.sync_ns += c.dur_ns;
    s.sync_in_span_ns += in_span(c);
    sync_intervals.push_back({c.start_ns, c.start_ns + c.dur_ns});
  }
  std::vector<Interval> sync_in_span =
      Clip(MergeIntervals(std::move(sync_intervals)), span_start_ns, span_end_ns);
  s.sync_idle_in_span_ns = TotalLength(sync_in_span) -
                           IntersectionLength(sync_in_span, MergeIntervals(std::move(all_ops)));
  for (const SyncKindStat& k : syncs) {
    if (k.count > 0) s.syncs.push_back(k);
  }
  return s;
}

}  // namespace gpuvet
