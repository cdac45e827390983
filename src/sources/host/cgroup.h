// cgroup source: the CPU and memory limits that actually apply to a process. Limits nest, so the
// effective one is the tightest on the path from the process's cgroup up to the root; a container
// with a private cgroup namespace sees its own cgroup as the root ("0::/").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/host_paths.h"
#include "core/host_state.h"
#include "util/status.h"

namespace gpuvet {

// What /proc/PID/cgroup says about the process ("ID:controllers:path" lines).
struct CgroupMembership {
  bool has_unified = false;  // a "0::/path" line (cgroup v2, or the v2 half of a hybrid host)
  std::string unified_path;
  bool has_cpu = false;         // a v1 line whose controllers include "cpu"
  std::string cpu_controllers;  // that line's controller list, e.g. "cpu,cpuacct" (its mount dir)
  std::string cpu_path;
  bool has_memory = false;  // a v1 line whose controllers include "memory"
  std::string memory_path;
};

// An effective CPU limit: unlimited, or `cores` = quota / period.
struct CpuLimit {
  bool unlimited = false;
  double cores = 0;
};

// An effective memory limit: unlimited, or `bytes`.
struct MemoryLimit {
  bool unlimited = false;
  uint64_t bytes = 0;
};

// Parses /proc/PID/cgroup. InvalidInput naming the line for a line without two ':' or with a
// non-numeric hierarchy id. Empty text yields an empty membership.
Result<CgroupMembership> ParseProcCgroup(std::string_view text);

// cgroup v2 cpu.max: "max 100000" -> unlimited; "200000 100000" -> 2.0 cores.
Result<CpuLimit> ParseCpuMax(std::string_view text);

// cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us: quota -1 -> unlimited; else quota / period.
Result<CpuLimit> ParseCfsQuota(std::string_view quota_text, std::string_view period_text);

// cgroup v2 memory.max: "max" -> unlimited, else bytes.
Result<MemoryLimit> ParseMemoryMax(std::string_view text);

// cgroup v1 memory.limit_in_bytes: bytes; >= 2^62 means unlimited (the kernel prints
// PAGE_COUNTER_MAX pages, 0x7ffffffffffff000 on 4 KiB pages, when no limit is set).
Result<MemoryLimit> ParseV1MemoryLimit(std::string_view text);

// Reads the cgroup of `pid` (0 = this process, /proc/self) and its effective CPU and memory
// limits under /sys/fs/cgroup. v2 when /sys/fs/cgroup/cgroup.controllers exists (or the process has
// only a v2 line); v1 otherwise. A cgroup directory that does not exist under the mount (private
// cgroup namespace) is replaced by the mount root. Unlimited limits set the *_unlimited flags and
// leave the Reading Unsupported with a note; unreadable or garbled files become Errors naming the
// file; a pid that does not exist gives Errors "no such process PID".
CgroupState ReadCgroup(const HostPaths& paths, int pid);

}  // namespace gpuvet
