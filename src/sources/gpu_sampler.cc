// Placeholder until the NVML session lands: no GPUs, and a note saying so.
#include "sources/gpu_sampler.h"

namespace gpuvet {

std::unique_ptr<GpuSampler> GpuSampler::Open(const NvmlOptions&, const HostPaths&,
                                             RecordingMeta* meta) {
  meta->notes["sampler.gpu"] = "GPU sampling not implemented yet in this build";
  return nullptr;
}

GpuSampler::~GpuSampler() = default;

std::vector<GpuSample> GpuSampler::Take(double) { return {}; }

}  // namespace gpuvet
