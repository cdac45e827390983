// Where a workload's CPU throttling is counted: the cpu.stat of the cgroup level that enforces
// its CPU quota (the process's own cgroup or the nearest ancestor with a quota), for cgroup v2
// (cpu.max, throttled_usec) and v1 (cpu.cfs_quota_us, throttled_time). The sampler reads that file
// every sample (proc_pid_parse.h ParseCgroupCpuStat).
#pragma once

#include <string>

#include "core/host_paths.h"
#include "util/status.h"

namespace gpuvet {

// The cpu.stat file (a path already resolved through `paths`) that counts throttling for `pid`:
// the deepest level from the process's cgroup up to the mount root that has a CPU quota; without
// any quota, the process's own level (whose counters then stay at zero, truthfully). A cgroup
// directory that is not visible (private cgroup namespace) is replaced by the mount root.
// NotFound "no such process PID"; NotSupported when the process has no cpu cgroup or the
// hierarchy is not mounted; InvalidInput for a garbled /proc/PID/cgroup.
Result<std::string> FindThrottleStatFile(const HostPaths& paths, int pid);

}  // namespace gpuvet
