// The host source: runs every /proc, /sys and /dev reader and the kernel log reader once and
// assembles a HostState. This is the only entry point the check command needs for the host side.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/host_paths.h"
#include "core/host_state.h"

namespace gpuvet {

struct HostOptions {
  int pid = 0;                     // process to inspect (--pid); 0 = gpuvet itself
  std::string kernel_log_file;     // --kernel-log FILE; "" = read the live kernel log
  std::string env_file;            // --env-file FILE; "" = the process's (or gpuvet's) environment
  std::vector<int> gpu_minors;     // N of /dev/nvidiaN (NVML minor numbers); empty = 0..count-1
                                   // of the NVIDIA GPUs found on the PCI bus
  std::vector<uint32_t> gpu_pids;  // PIDs NVML listed on the GPUs: their owners are read
};

// Reads the whole host state through `paths`. Never fails as a whole: each field carries its own
// value, Unsupported or Error reading. process_is_target is true when options.pid != 0.
HostState ReadHostState(const HostPaths& paths, const HostOptions& options);

}  // namespace gpuvet
