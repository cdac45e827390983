// Launch overhead and queue length.
#include "analysis/trace/launch_analysis.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

namespace gpuvet {

namespace {

// Nearest-rank percentile of a sorted, non-empty vector.
int64_t Percentile(const std::vector<int64_t>& sorted, double p) {
  size_t rank = static_cast<size_t>(p / 100.0 * static_cast<double>(sorted.size()) + 0.999999);
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

}  // namespace

LaunchStats ComputeLaunchStats(const RankTrace& trace) {
  OpWindow all;
  all.ops.resize(trace.gpu_ops.size());
  for (size_t i = 0; i < all.ops.size(); ++i) all.ops[i] = static_cast<uint32_t>(i);
  return ComputeLaunchStats(trace, all);
}

LaunchStats ComputeLaunchStats(const RankTrace& trace, const OpWindow& window) {
  std::vector<bool> in_window(trace.gpu_ops.size(), false);
  for (uint32_t i : window.ops) in_window[i] = true;
  std::unordered_map<int64_t, const RuntimeCall*> calls;
  calls.reserve(trace.runtime.size());
  for (const RuntimeCall& c : trace.runtime) {
    if (c.correlation != -1) calls.emplace(c.correlation, &c);
  }
  LaunchStats s;
  std::vector<int64_t> delays, kernel_durs, launch_durs;
  int64_t launch_sum = 0, kernel_sum = 0;
  // Queue events per stream: (time, delta).
  std::map<std::pair<int, int>, std::vector<std::pair<int64_t, int>>> queue_events;
  for (size_t i = 0; i < trace.gpu_ops.size(); ++i) {
    const GpuOp& op = trace.gpu_ops[i];
    if (op.correlation == -1) continue;
    auto it = calls.find(op.correlation);
    if (it == calls.end()) continue;
    const RuntimeCall& call = *it->second;
    if (in_window[i] &&
        (call.kind == RuntimeKind::kLaunch || call.kind == RuntimeKind::kMemcpyAsync ||
         call.kind == RuntimeKind::kMemset)) {
      auto& ev = queue_events[{op.device, op.stream}];
      // Queued from its launch call until it starts running, as HTA's queue length counts it.
      ev.emplace_back(call.start_ns, +1);
      ev.emplace_back(op.start_ns, -1);
    }
    if (call.kind != RuntimeKind::kLaunch || op.kind != GpuOpKind::kKernel) continue;
    ++s.launches;
    if (op.dur_ns < call.dur_ns) ++s.shorter_than_launch;
    launch_sum += call.dur_ns;
    launch_durs.push_back(call.dur_ns);
    kernel_sum += op.dur_ns;
    kernel_durs.push_back(op.dur_ns);
    delays.push_back(op.start_ns - call.start_ns);
  }
  if (s.launches > 0) {
    auto n = static_cast<int64_t>(s.launches);
    s.shorter_pct = 100.0 * static_cast<double>(s.shorter_than_launch) / static_cast<double>(n);
    s.launch_mean_ns = launch_sum / n;
    std::sort(launch_durs.begin(), launch_durs.end());
    s.launch_median_ns = Percentile(launch_durs, 50);
    s.kernel_mean_ns = kernel_sum / n;
    std::sort(kernel_durs.begin(), kernel_durs.end());
    s.kernel_median_ns = Percentile(kernel_durs, 50);
    std::sort(delays.begin(), delays.end());
    s.delay_p50_ns = Percentile(delays, 50);
    s.delay_p95_ns = Percentile(delays, 95);
  }
  for (auto& [key, ev] : queue_events) {
    std::sort(ev.begin(), ev.end());  // on equal times −1 sorts before +1: completions first
    StreamQueue q;
    q.device = key.first;
    q.stream = key.second;
    int64_t len = 0, sum = 0;
    for (const auto& [t, d] : ev) {
      len += d;
      sum += len;
      q.max_queue = std::max<int>(q.max_queue, static_cast<int>(len));
    }
    q.mean_queue = static_cast<double>(sum) / static_cast<double>(ev.size());
    s.queues.push_back(q);
  }
  return s;
}

}  // namespace gpuvet
