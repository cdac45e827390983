// Pure parsers for the per-process files the sampler follows a workload with: /proc/PID/stat (and
// the same format in /proc/PID/task/TID/stat), /proc/PID/io, and a cgroup's cpu.stat throttling
// counters (v1 and v2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/status.h"

namespace gpuvet {

// The fields of /proc/PID/stat the sampler uses (proc(5) numbering in comments).
struct PidStat {
  int pid = 0;             // (1)
  std::string comm;        // (2) without the parentheses; may hold spaces and ')'
  char state = '?';        // (3)
  int ppid = 0;            // (4)
  uint64_t utime = 0;      // (14) clock ticks
  uint64_t stime = 0;      // (15)
  int num_threads = 0;     // (20)
  uint64_t starttime = 0;  // (22) clock ticks after boot
  int64_t rss_pages = 0;   // (24)
};

// Parses one stat line. The comm is everything between the first '(' and the last ')', so a
// process named "a) b (" still parses. InvalidInput for a truncated line or a non-numeric field.
Result<PidStat> ParsePidStat(std::string_view text);

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
