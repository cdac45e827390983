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
  // Correlation -> index in gpu_ops of each DtoH copy, and per (device, stream) the last op
  // before it: the op a blocking DtoH queues behind.
  std::unordered_map<int64_t, size_t> dtoh_ops;
  std::unordered_map<int64_t, uint32_t> behind;           // correlation -> name id of that op
  std::unordered_map<uint64_t, uint32_t> last_on_stream;  // (device << 32 | stream) -> name id
  KernelTypeCache types(trace);
  for (size_t oi = 0; oi < trace.gpu_ops.size(); ++oi) {
    const GpuOp& op = trace.gpu_ops[oi];
    all_ops.push_back({op.start_ns, op.start_ns + op.dur_ns});
    const uint64_t stream_key =
        (uint64_t{static_cast<uint32_t>(op.device)} << 32) | static_cast<uint32_t>(op.stream);
    if (op.kind == GpuOpKind::kMemcpy && op.copy == CopyKind::kDtoH && op.correlation != -1) {
      dtoh_ops.emplace(op.correlation, oi);
      auto prev = last_on_stream.find(stream_key);
      if (prev != last_on_stream.end()) behind.emplace(op.correlation, prev->second);
    }
    last_on_stream[stream_key] = op.name;
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
    // The read's wait is the copy call's own (a pageable or synchronous copy returns only once
    // the data is on the host) plus the sync after it; the copy stays a blocking copy.
    if (c.kind == RuntimeKind::kMemcpy) {
      ++s.scalar_reads;
      s.scalar_read_ns += c.dur_ns;
    } else if (c.kind == RuntimeKind::kMemcpyAsync && next_on_thread[call->second] >= 0) {
      const RuntimeCall& n = trace.runtime[next_on_thread[call->second]];
      if (n.kind == RuntimeKind::kStreamSync || n.kind == RuntimeKind::kDeviceSync) {
        ++s.scalar_reads;
        s.scalar_read_ns += c.dur_ns + n.dur_ns;
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
  std::vector<Interval> sync_intervals, blocking_intervals;
  const std::vector<Interval> busy = MergeIntervals(std::move(all_ops));
  auto in_span = [&](const RuntimeCall& c) {
    return std::max<int64_t>(
        0, std::min(c.start_ns + c.dur_ns, span_end_ns) - std::max(c.start_ns, span_start_ns));
  };
  for (const RuntimeCall& c : trace.runtime) {
    const bool blocking = c.kind == RuntimeKind::kMemcpy ||
                          (c.kind == RuntimeKind::kMemcpyAsync && c.correlation != -1 &&
                           pageable_calls.count(c.correlation) > 0);
    if (blocking) {
      const int64_t end = c.start_ns + c.dur_ns;
      ++s.blocking_copies;
      s.blocking_copy_ns += c.dur_ns;
      s.blocking_copy_in_span_ns += in_span(c);
      s.blocking_copy_max_ns = std::max(s.blocking_copy_max_ns, c.dur_ns);
      blocking_intervals.push_back({c.start_ns, end});
      const int64_t gpu_busy = ClippedLength(busy, c.start_ns, end);
      s.blocking_copy_idle_max_ns = std::max(s.blocking_copy_idle_max_ns, c.dur_ns - gpu_busy);
      auto dtoh = c.correlation == -1 ? dtoh_ops.end() : dtoh_ops.find(c.correlation);
      if (dtoh != dtoh_ops.end()) {
        // The GPU-busy part of the call other than the copy itself: queued work it waits for.
        const GpuOp& op = trace.gpu_ops[dtoh->second];
        const int64_t own = std::max<int64_t>(
            0, std::min(end, op.start_ns + op.dur_ns) - std::max(c.start_ns, op.start_ns));
        const int64_t wait = std::max<int64_t>(0, gpu_busy - own);
        if (wait > 0) {
          ++s.dtoh_gpu_waits;
          s.dtoh_gpu_wait_ns += wait;
          if (wait > s.dtoh_gpu_wait_max_ns) {
            s.dtoh_gpu_wait_max_ns = wait;
            s.dtoh_gpu_wait_max_bytes = op.bytes;
            s.dtoh_gpu_wait_call = trace.Name(c.name);
            auto b = behind.find(c.correlation);
            s.dtoh_gpu_wait_behind = b == behind.end() ? "" : trace.Name(b->second);
          }
        }
      }
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
  s.sync_idle_in_span_ns = TotalLength(sync_in_span) - IntersectionLength(sync_in_span, busy);
  std::vector<Interval> blocking_in_span =
      Clip(MergeIntervals(std::move(blocking_intervals)), span_start_ns, span_end_ns);
  s.blocking_copy_idle_in_span_ns =
      TotalLength(blocking_in_span) - IntersectionLength(blocking_in_span, busy);
  for (const SyncKindStat& k : syncs) {
    if (k.count > 0) s.syncs.push_back(k);
  }
  return s;
}

}  // namespace gpuvet
