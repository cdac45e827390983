// Test helper: builds small RankTraces by hand (times in microseconds for readability), so each
// analysis can be checked against numbers worked out on paper. Header-only; tests only.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/trace/trace.h"

namespace gpuvet {

class TraceBuilder {
 public:
  TraceBuilder() { t_.names.push_back(""); }

  // A kernel on (device 0, `stream`) from `start_us` for `dur_us`; returns its correlation.
  int64_t Kernel(const std::string& name, double start_us, double dur_us, int stream = 7) {
    GpuOp op = Op(name, start_us, dur_us, stream);
    t_.gpu_ops.push_back(op);
    return op.correlation;
  }

  // A kernel plus its cudaLaunchKernel call on thread 1.
  int64_t Launched(const std::string& name, double launch_us, double launch_dur_us, double start_us,
                   double dur_us, int stream = 7) {
    int64_t corr = Kernel(name, start_us, dur_us, stream);
    Call("cudaLaunchKernel", RuntimeKind::kLaunch, launch_us, launch_dur_us, corr);
    return corr;
  }

  // A memcpy op; `call` kind enqueues it when not kOther (then on thread 1).
  int64_t Copy(CopyKind dir, uint64_t bytes, double start_us, double dur_us, MemKind host,
               RuntimeKind call = RuntimeKind::kOther, double call_us = 0, double call_dur_us = 0,
               int stream = 7) {
    const char* name = dir == CopyKind::kHtoD   ? "Memcpy HtoD"
                       : dir == CopyKind::kDtoH ? "Memcpy DtoH"
                                                : "Memcpy DtoD";
    GpuOp op = Op(name, start_us, dur_us, stream);
    op.kind = GpuOpKind::kMemcpy;
    op.copy = dir;
    op.bytes = bytes;
    op.src = dir == CopyKind::kHtoD ? host : MemKind::kDevice;
    op.dst = dir == CopyKind::kDtoH ? host : MemKind::kDevice;
    t_.gpu_ops.push_back(op);
    if (call != RuntimeKind::kOther) Call("cudaMemcpy", call, call_us, call_dur_us, op.correlation);
    return op.correlation;
  }

  void Call(const std::string& name, RuntimeKind kind, double start_us, double dur_us,
            int64_t corr = -1, int tid = 1) {
    RuntimeCall c;
    c.start_ns = Ns(start_us);
    c.dur_ns = Ns(dur_us);
    c.correlation = corr;
    c.name = Intern(name);
    c.tid = tid;
    c.kind = kind;
    t_.runtime.push_back(c);
  }

  // A cuda_profiler_range of kernel `name` with its counters (metric name, value).
  void Counters(const std::string& name,
                const std::vector<std::pair<std::string, double>>& metrics) {
    CounterRange r;
    r.name = Intern(name);
    r.first = static_cast<uint32_t>(t_.counter_values.size());
    r.count = static_cast<uint32_t>(metrics.size());
    for (const auto& [m, v] : metrics) t_.counter_values.push_back({Intern(m), v});
    t_.counter_ranges.push_back(r);
  }

  void Step(const std::string& name, double start_us, double dur_us) {
    t_.steps.push_back({Ns(start_us), Ns(dur_us), Intern(name), 1});
  }

  // A DataLoader / optimizer host op on thread 1.
  void Phase(HostPhaseKind kind, double start_us, double dur_us) {
    t_.host_phases.push_back({Ns(start_us), Ns(dur_us), 1, kind});
  }

  RankTrace& trace() { return t_; }

  // The trace with ops and calls sorted by start, as readers deliver them.
  RankTrace Build() {
    std::stable_sort(t_.gpu_ops.begin(), t_.gpu_ops.end(),
                     [](const GpuOp& a, const GpuOp& b) { return a.start_ns < b.start_ns; });
    std::stable_sort(
        t_.runtime.begin(), t_.runtime.end(),
        [](const RuntimeCall& a, const RuntimeCall& b) { return a.start_ns < b.start_ns; });
    if (t_.device_type.empty() && !t_.gpu_ops.empty()) t_.device_type = "cuda";
    return t_;
  }

  static int64_t Ns(double us) { return static_cast<int64_t>(us * 1000 + (us >= 0 ? 0.5 : -0.5)); }

 private:
  GpuOp Op(const std::string& name, double start_us, double dur_us, int stream) {
    GpuOp op;
    op.start_ns = Ns(start_us);
    op.dur_ns = Ns(dur_us);
    op.correlation = next_corr_++;
    op.name = Intern(name);
    op.device = 0;
    op.stream = stream;
    return op;
  }

  uint32_t Intern(const std::string& s) {
    for (uint32_t i = 0; i < t_.names.size(); ++i) {
      if (t_.names[i] == s) return i;
    }
    t_.names.push_back(s);
    return static_cast<uint32_t>(t_.names.size() - 1);
  }

  RankTrace t_;
  int64_t next_corr_ = 1;
};

}  // namespace gpuvet
