// The GPU half of the sampler: one persistent NVML session (init once, device handles cached) that
// reads per-GPU figures every sample, GPM metrics where the GPU offers them, and per-process GPU
// memory and SM use. Each GPU's read runs as one time-bounded batch on the NVML worker thread
// (bounded_call.h): a hung call drops the rest of that sample, and later samples resume when NVML
// answers again.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/host_paths.h"
#include "core/recording.h"
#include "sources/nvml/nvml_source.h"

namespace gpuvet {

class BoundedExecutor;
class NvmlLibrary;

namespace gpu_sampler_internal {
struct GpuSlot;
}

// Not thread-safe: one thread calls Take.
class GpuSampler {
 public:
  // Loads NVML, initialises it and reads each GPU's static facts (meta->gpus, driver_version,
  // cuda_version; NUMA node from sysfs through `paths`) and the baselines the first sample needs
  // (GPM sample, per-process utilisation timestamp). Never fails: without a library, a driver or
  // GPUs it returns null and says why in meta->notes["sampler.gpu"].
  static std::unique_ptr<GpuSampler> Open(const NvmlOptions& options, const HostPaths& paths,
                                          RecordingMeta* meta);
  // Frees GPM samples and shuts NVML down (bounded), unless a call is still hung: then the stuck
  // call's closure keeps the library and its GPU's state alive until it returns.
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  // One GpuSample per GPU of meta->gpus, in order; fields NVML did not answer are absent.
  // `interval_s` is unused today (NVML times its own windows) and kept for symmetry. Bounded by
  // about one call timeout: a GPU whose batch hangs keeps the fields read before the hang, the GPUs
  // after it are absent, and while the call stays hung later samples have absent GPU fields.
  std::vector<GpuSample> Take(double interval_s);

  // Why fields are missing or stopped: "sampler.gpu.1" -> "lost: …", "sampler.gpu.hang",
  // "sampler.gpu.0.not_supported" -> "nvmlDeviceGetTotalEnergyConsumption, …", "sampler.gpm".
  const std::map<std::string, std::string>& notes() const { return notes_; }

 private:
  GpuSampler();
  // Records what the last batch of slot `i` found (lost, errors, unsupported calls) in notes_.
  void NoteSlot(size_t i);

  std::shared_ptr<NvmlLibrary> lib_;  // shared with the closures on the NVML worker
  std::unique_ptr<BoundedExecutor> exec_;
  std::vector<std::shared_ptr<gpu_sampler_internal::GpuSlot>> slots_;
  std::map<std::string, std::string> notes_;
};

}  // namespace gpuvet
