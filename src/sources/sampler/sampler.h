// The sampler behind `gpuvet record` and `watch`: one Take() is one row of a recording
// (core/recording.h) — every GPU through one persistent NVML session (gpu_sampler.h), the host's
// kernel counters (host_sampler.h) and the workload's process tree (process_sampler.h), as rates
// over the time since the previous Take. Missing data is an absent field and a note, never zero.
#pragma once

#include <chrono>
#include <memory>

#include "core/host_paths.h"
#include "core/recording.h"
#include "sources/nvml/nvml_source.h"
#include "util/status.h"

namespace gpuvet {

struct SamplerOptions {
  HostPaths paths;        // --root (fixture trees in tests)
  NvmlOptions nvml;       // library path, per-call timeout (src/sources/nvml/nvml_source.h)
  bool read_gpus = true;  // false: host only
  int root_pid = 0;       // workload's root process; 0 = no process tree
};

class GpuSampler;
class HostSampler;
class ProcessSampler;

// Not thread-safe: one thread calls Take/SetRootPid. Destruction never blocks, even after an NVML
// call hung (the stuck call is abandoned, see bounded_call.h).
class Sampler {
 public:
  // Opens NVML once (a missing library/driver is not an error: no GPUs, and a note in meta().notes
  // saying why), reads static GPU facts and the baseline counters for the first rates.
  // InvalidInput for a negative root_pid.
  static Result<std::unique_ptr<Sampler>> Create(const SamplerOptions& options);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Host, kernel, driver, CUDA version, GPUs (RecordedGpu), online_cpus, cgroup cpu quota, notes.
  // The caller fills producer, command, target_pid, interval_s, start_unix_s. Notes may grow
  // after a Take (a GPU lost, an NVML call that hung, a file that became unreadable).
  const RecordingMeta& meta() const { return meta_; }

  // One sample: rates over the time since the previous Take (or Create). Sets unix_time and
  // interval_s; the caller sets t. Never blocks longer than about one NVML call timeout.
  Sample Take();

  // Follow another process tree from the next Take (record --pid / the spawned child). Reads the
  // new tree's baseline now, and updates meta().cpu_quota_cores for its cgroup. 0 stops following.
  void SetRootPid(int pid);

 private:
  explicit Sampler(const SamplerOptions& options);
  void MergeNotes();

  SamplerOptions options_;
  RecordingMeta meta_;
  std::unique_ptr<HostSampler> host_;
  std::unique_ptr<ProcessSampler> processes_;
  std::unique_ptr<GpuSampler> gpus_;  // null when GPUs are not read
  std::chrono::steady_clock::time_point last_;
};

}  // namespace gpuvet
