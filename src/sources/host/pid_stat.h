// /proc/PID/stat (and the same format in /proc/PID/task/TID/stat): the one parser of it, used by
// the recording sampler (process tree, threads), `record --pid` (is the process a zombie) and
// anything else that needs a process's state, parent or CPU time. Reads go through HostPaths.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/host_paths.h"
#include "util/status.h"

namespace gpuvet {

// The fields of /proc/PID/stat gpuvet uses (proc(5) numbering in comments).
struct PidStat {
  int pid = 0;             // (1)
  std::string comm;        // (2) without the parentheses; may hold spaces and ')'
  char state = '?';        // (3) R, S, D, Z (zombie), T, t, X, I
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

// Reads and parses the stat file at `path`, already resolved through HostPaths (a process's or a
// thread's). The read error as ReadFile gives it (NotFound once the process has exited), or
// InvalidInput "PATH: why" when the file does not parse. Thread-safe.
Result<PidStat> ReadStatFile(const std::string& path);

// ReadStatFile of /proc/PID/stat under `paths`.
Result<PidStat> ReadPidStat(const HostPaths& paths, int pid);

}  // namespace gpuvet
