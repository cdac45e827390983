// Copy volumes, pageable copies, syncs and scalar reads.
#include "analysis/trace/copy_analysis.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/trace/intervals.h"

namespace gpuvet {

namespace {

constexpr CopyKind kDirectionOrder[] = {CopyKind::kHtoD, CopyKind::kDtoH, CopyKind::kDtoD,
                                        CopyKind::kPtoP, CopyKind::kHtoH, CopyKind::kOther};

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

int DirectionIndex(CopyKind k) {
  for (int i = 0; i < 5; ++i) {
    if (kDirectionOrder[i] == k) return i;
  }
  return 5;
}

}  // namespace

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

  for (const GpuOp& op : trace.gpu_ops) {
    if (op.kind != GpuOpKind::kMemcpy) continue;
    CopyDirection& d = dirs[DirectionIndex(op.copy)];
    ++d.count;
    d.bytes += op.bytes;
    d.time_ns += op.dur_ns;
    copy_intervals.push_back({op.start_ns, op.start_ns + op.dur_ns});
    if (op.src == MemKind::kPageable || op.dst == MemKind::kPageable) {
      ++s.pageable_count;
      s.pageable_bytes += op.bytes;
      s.pageable_ns += op.dur_ns;
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
    } else if (c.kind == RuntimeKind::kMemcpyAsync && next_on_thread[call->second] >= 0) {
      const RuntimeCall& n = trace.runtime[next_on_thread[call->second]];
      if (n.kind == RuntimeKind::kStreamSync || n.kind == RuntimeKind::kDeviceSync) {
        ++s.scalar_reads;
        s.scalar_read_ns += n.dur_ns;
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

  SyncKindStat syncs[] = {{"device", 0, 0}, {"stream", 0, 0}, {"event", 0, 0}, {"memcpy", 0, 0}};
  for (const RuntimeCall& c : trace.runtime) {
    int k = c.kind == RuntimeKind::kDeviceSync   ? 0
            : c.kind == RuntimeKind::kStreamSync ? 1
            : c.kind == RuntimeKind::kEventSync  ? 2
            : c.kind == RuntimeKind::kMemcpy     ? 3
                                                 : -1;
    if (k < 0) continue;
    ++syncs[k].count;
    syncs[k].time_ns += c.dur_ns;
    s.sync_ns += c.dur_ns;
    s.sync_in_span_ns += std::max<int64_t>(
        0, std::min(c.start_ns + c.dur_ns, span_end_ns) - std::max(c.start_ns, span_start_ns));
  }
  for (const SyncKindStat& k : syncs) {
    if (k.count > 0) s.syncs.push_back(k);
  }
  return s;
}

}  // namespace gpuvet
