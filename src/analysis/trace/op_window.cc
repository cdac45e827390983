// HTA's last-step filter over the trace model.
#include "analysis/trace/op_window.h"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_set>

namespace gpuvet {

OpWindow SelectHtaOps(const RankTrace& trace) {
  OpWindow w;
  std::set<uint32_t> step_names;
  int64_t last_start = INT64_MIN;
  for (const TraceRange& s : trace.steps) {
    step_names.insert(s.name);
    last_start = std::max(last_start, s.start_ns);
  }
  w.last_step_excluded = step_names.size() > 1;
  std::unordered_set<int64_t> early;
  if (w.last_step_excluded) {
    for (const RuntimeCall& c : trace.runtime) {
      if (c.start_ns < last_start && c.correlation != -1) early.insert(c.correlation);
    }
  }
  w.ops.reserve(trace.gpu_ops.size());
  for (uint32_t i = 0; i < trace.gpu_ops.size(); ++i) {
    const GpuOp& op = trace.gpu_ops[i];
    if (w.last_step_excluded && op.correlation != -1 && !early.count(op.correlation)) continue;
    w.ops.push_back(i);
  }
  return w;
}

}  // namespace gpuvet
