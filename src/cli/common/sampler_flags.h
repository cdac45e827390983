// The flags `record` and `watch` share to set up the sampler (--root, --nvml-lib,
// --nvml-timeout-ms, --no-gpu), registered and turned into SamplerOptions in one place.
#pragma once

#include <string>

#include "sources/sampler/sampler.h"

namespace CLI {
class App;
}

namespace gpuvet {

struct SamplerFlags {
  std::string root;
  std::string nvml_lib;
  int nvml_timeout_ms = 2000;
  bool no_gpu = false;
};

// Registers the four flags on `cmd`, bound to `flags` (which must outlive parsing); `no_gpu_help`
// says what --no-gpu leaves for this command.
void AddSamplerFlags(CLI::App* cmd, SamplerFlags* flags, const std::string& no_gpu_help);

// The sampler set-up these flags describe, following the process tree of `root_pid` (0: none).
SamplerOptions ToSamplerOptions(const SamplerFlags& flags, int root_pid);

}  // namespace gpuvet
