// Pure parsers for the per-process files the sampler follows a workload with: /proc/PID/io and a
// cgroup's cpu.stat throttling counters (v1 and v2). /proc/PID/stat has its one parser in
// sources/host/pid_stat.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "util/status.h"

namespace gpuvet {

// /proc/PID/io ("rchar: N" lines). A missing key is a parse error: every kernel since 2.6.20
// prints all of them.
struct PidIo {
  uint64_t rchar = 0;  // bytes passed to read()-like calls, page cache hits included
  uint64_t wchar = 0;
  uint64_t syscr = 0;  // read()-like system calls
  uint64_t syscw = 0;
  uint64_t read_bytes = 0;   // bytes fetched from storage
  uint64_t write_bytes = 0;  // bytes sent towards storage
};

// InvalidInput naming the first missing or garbled key.
Result<PidIo> ParsePidIo(std::string_view text);

// Throttling counters from a cgroup's cpu.stat, in common units.
struct CgroupThrottle {
  uint64_t nr_throttled = 0;  // periods in which the group hit its quota
  uint64_t throttled_us = 0;  // v2 throttled_usec; v1 throttled_time (ns) / 1000
};

// Parses cpu.stat of cgroup v2 (nr_throttled, throttled_usec) or v1 (nr_throttled,
// throttled_time in ns). NotSupported when neither pair is present (v2 without the cpu
// controller enabled prints only usage_usec/user_usec/system_usec).
Result<CgroupThrottle> ParseCgroupCpuStat(std::string_view text);

}  // namespace gpuvet
