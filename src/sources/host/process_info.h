// Process source: for one process (gpuvet itself or --pid), its name, the CPUs it may run on and
// whether its memory maps show a GPU in use (/dev/nvidia* or the CUDA/NVML driver libraries).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/host_paths.h"
#include "core/host_state.h"
#include "util/status.h"

namespace gpuvet {

// The fields gpuvet uses from /proc/PID/status.
struct ProcStatus {
  std::string name;               // "Name:" (the comm, at most 15 characters)
  int pid = 0;                    // "Pid:"
  std::vector<int> cpus_allowed;  // "Cpus_allowed_list:"
};

// Parses /proc/PID/status. InvalidInput naming the line for a garbled Pid or Cpus_allowed_list,
// or when Cpus_allowed_list is missing.
Result<ProcStatus> ParseProcStatus(std::string_view text);

// GPU use visible in /proc/PID/maps.
struct GpuMappings {
  bool maps_gpu = false;
  std::vector<std::string> evidence;  // distinct matching paths, first kMaxGpuEvidence
};

// At most this many matching map paths are kept as evidence; more add nothing for a reader.
inline constexpr size_t kMaxGpuEvidence = 5;

// Scans /proc/PID/maps text for mapped /dev/nvidia* nodes (a live GPU context mmaps them) and the
// driver libraries libcuda.so* and libnvidia-ml.so*. Lines without a path are skipped.
GpuMappings ScanMapsForGpu(std::string_view maps_text);

// Reads /proc/PID/status and /proc/PID/maps for `pid` (0 = this process via /proc/self; the
// result's pid is then taken from the status file). A pid that does not exist gives Errors
// "no such process PID"; unreadable maps (another user's process without ptrace rights) an Error
// naming the file.
ProcessState ReadProcess(const HostPaths& paths, int pid);

}  // namespace gpuvet
