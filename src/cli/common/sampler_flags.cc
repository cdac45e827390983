// Shared sampler flags of `record` and `watch` (see sampler_flags.h).
#include "cli/common/sampler_flags.h"

#include <CLI/CLI.hpp>
#include <chrono>

namespace gpuvet {

void AddSamplerFlags(CLI::App* cmd, SamplerFlags* flags, const std::string& no_gpu_help) {
  cmd->add_option("--root", flags->root, "Read /proc and /sys under this directory (tests)");
  cmd->add_option("--nvml-lib", flags->nvml_lib, "Path of libnvidia-ml.so.1 to load")
      ->envname("GPUVET_NVML_LIB");
  cmd->add_option("--nvml-timeout-ms", flags->nvml_timeout_ms,
                  "Give up on an NVML call after this many milliseconds")
      ->check(CLI::Range(10, 600000));
  cmd->add_flag("--no-gpu", flags->no_gpu, no_gpu_help);
}

SamplerOptions ToSamplerOptions(const SamplerFlags& flags, int root_pid) {
  SamplerOptions options;
  options.paths = HostPaths(flags.root);
  options.nvml.library_path = flags.nvml_lib;
  options.nvml.call_timeout = std::chrono::milliseconds(flags.nvml_timeout_ms);
  options.read_gpus = !flags.no_gpu;
  options.root_pid = root_pid;
  return options;
}

}  // namespace gpuvet
