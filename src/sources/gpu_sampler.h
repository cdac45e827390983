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
#include "sources/nvml_source.h"

namespace gpuvet {

class GpuSampler {
 public:
  // Loads NVML, initialises it and reads each GPU's static facts (meta->gpus, driver_version,
  // cuda_version) and the baselines the first sample needs. Never fails: without a library, a
  // driver or GPUs it returns null and says why in meta->notes["sampler.gpu"].
  static std::unique_ptr<GpuSampler> Open(const NvmlOptions& options, const HostPaths& paths,
                                          RecordingMeta* meta);
  // Frees GPM samples and shuts NVML down, unless a call is still hung (then leaks on purpose).
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  // One GpuSample per GPU of meta->gpus, in order. Bounded by about one call timeout.
  std::vector<GpuSample> Take(double interval_s);

  // Why fields are missing or stopped ("sampler.gpu.1" -> "lost: nvmlX answered GPU_IS_LOST").
  const std::map<std::string, std::string>& notes() const { return notes_; }

 private:
  GpuSampler() = default;
  std::map<std::string, std::string> notes_;
};

}  // namespace gpuvet
