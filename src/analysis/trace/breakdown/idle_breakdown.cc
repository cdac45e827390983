// Idle-time breakdown per stream.
#include "analysis/trace/breakdown/idle_breakdown.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

namespace gpuvet {

namespace {

std::unordered_map<int64_t, int64_t> LaunchStarts(const RankTrace& trace) {
  std::unordered_map<int64_t, int64_t> launch_start;  // correlation -> runtime call start
  launch_start.reserve(trace.runtime.size());
  for (const RuntimeCall& c : trace.runtime) {
    if (c.correlation != -1) launch_start.emplace(c.correlation, c.start_ns);
  }
  return launch_start;
}

// Adds the gap before `op` (the GPU or stream idle since `idle_since`) to its category.
void Classify(const GpuOp& op, int64_t idle_since,
              const std::unordered_map<int64_t, int64_t>& launch_start,
              const TraceThresholds& thresholds, StreamIdle& s) {
  int64_t gap = std::max<int64_t>(0, op.start_ns - idle_since);
  auto it = op.correlation == -1 ? launch_start.end() : launch_start.find(op.correlation);
  if (it != launch_start.end() && it->second > idle_since) {
    s.host_wait_ns += gap;
    if (gap < thresholds.launch_gap_max_ns) s.host_wait_short_ns += gap;
  } else if (gap < thresholds.consecutive_kernel_delay_ns) {
    s.kernel_wait_ns += gap;
  } else {
    s.other_ns += gap;
  }
}

void SetRatios(StreamIdle& s) {
  if (int64_t total = s.idle_ns(); total > 0) {
    s.host_wait_ratio = static_cast<double>(s.host_wait_ns) / static_cast<double>(total);
    s.kernel_wait_ratio = static_cast<double>(s.kernel_wait_ns) / static_cast<double>(total);
    s.other_ratio = static_cast<double>(s.other_ns) / static_cast<double>(total);
  }
}

}  // namespace

StreamIdle ComputeGpuIdle(const RankTrace& trace, const OpWindow& window,
                          const TraceThresholds& thresholds) {
  StreamIdle s;
  const std::vector<uint32_t>& ops = window.ops;  // in gpu_ops order: by start
  const std::unordered_map<int64_t, int64_t> launch_start = LaunchStarts(trace);
  int64_t busy_until = 0;
  for (size_t k = 0; k < ops.size(); ++k) {
    const GpuOp& op = trace.gpu_ops[ops[k]];
    s.busy_ns += op.dur_ns;
    if (k > 0 && op.start_ns > busy_until) Classify(op, busy_until, launch_start, thresholds, s);
    busy_until = k == 0 ? op.start_ns + op.dur_ns : std::max(busy_until, op.start_ns + op.dur_ns);
  }
  s.ops = ops.size();
  SetRatios(s);
  return s;
}

std::vector<StreamIdle> ComputeIdleBreakdown(const RankTrace& trace, const OpWindow& window,
                                             const TraceThresholds& thresholds) {
  const std::unordered_map<int64_t, int64_t> launch_start = LaunchStarts(trace);
  std::map<std::pair<int, int>, std::vector<uint32_t>> by_stream;
  for (uint32_t i : window.ops) {
    const GpuOp& op = trace.gpu_ops[i];
    by_stream[{op.device, op.stream}].push_back(i);
  }
  std::vector<StreamIdle> out;
  for (auto& [key, ops] : by_stream) {
    StreamIdle s;
    s.device = key.first;
    s.stream = key.second;
    s.ops = ops.size();
    for (uint32_t i : ops) s.busy_ns += trace.gpu_ops[i].dur_ns;
    for (size_t k = 1; k < ops.size(); ++k) {
      const GpuOp& prev = trace.gpu_ops[ops[k - 1]];
      Classify(trace.gpu_ops[ops[k]], prev.start_ns + prev.dur_ns, launch_start, thresholds, s);
    }
    SetRatios(s);
    out.push_back(s);
  }
  return out;
}

}  // namespace gpuvet
