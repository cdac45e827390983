// Host counters for the sampler: pure parsers of the cumulative kernel counters in /proc/stat,
// /proc/diskstats, /proc/net/dev and /proc/vmstat. The sampler reads them twice and turns the
// difference into per-second rates and shares (host_sampler.h); nothing here knows about time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace gpuvet {

// One "cpu"/"cpuN" line of /proc/stat, in USER_HZ ticks. Kernels before 2.6.11 print fewer
// columns: `fields` says how many were present (iowait needs 5, steal 8).
struct CpuTicks {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  int fields = 0;
  // Every column that counts wall time (guest time is already inside user/nice).
  uint64_t Total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  // Total minus idle and iowait: time the CPU ran something.
  uint64_t Busy() const { return Total() - idle - iowait; }
};

struct ProcStatCounters {
  std::optional<CpuTicks> total;               // the "cpu" line
  std::vector<std::optional<CpuTicks>> cores;  // index = CPU number; nullopt: not listed (offline)
  std::optional<int> procs_running;
};

// Parses /proc/stat. InvalidInput naming the line for a cpu line with fewer than 4 numbers or a
// non-numeric one, or a garbled procs_running. Lines gpuvet does not use are skipped.
Result<ProcStatCounters> ParseProcStat(std::string_view text);

// One /proc/diskstats line, as cumulative counters.
struct DiskCounters {
  std::string device;
  uint64_t sectors_read = 0;  // 512-byte units whatever the device's sector size
  uint64_t sectors_written = 0;
  uint64_t io_ticks_ms = 0;  // time with at least one request in flight
};

// Parses /proc/diskstats ("major minor name reads … sectors_read … io_ticks …"; 14, 18 or 20
// columns). InvalidInput naming the line for fewer than 14 columns or a non-numeric counter.
Result<std::vector<DiskCounters>> ParseDiskstats(std::string_view text);

// True for block devices the sampler leaves out: virtual devices whose I/O is counted again on the
// physical disk below them (loop, ram, zram, device-mapper "dm-N", software RAID "mdN") and
// removable drives (sr, fd). Partitions are decided separately (IsPartition).
bool IsVirtualBlockDevice(std::string_view name);

// Decides by name whether `name` is a partition of another device in `all`: "sda1" of "sda",
// "nvme0n1p2" of "nvme0n1", "mmcblk0p1" of "mmcblk0". Used when /sys/block cannot be listed.
bool IsPartition(std::string_view name, const std::vector<std::string>& all);

// One interface of /proc/net/dev.
struct NetCounters {
  std::string interface;
  uint64_t rx_bytes = 0;
  uint64_t tx_bytes = 0;
};

// Parses /proc/net/dev (two header lines, then "name: 16 numbers"). InvalidInput naming the line
// for a line without ':' or with fewer than 9 numbers after it.
Result<std::vector<NetCounters>> ParseNetDev(std::string_view text);

// The value of `key` in a "key value" file such as /proc/vmstat ("pgmajfault 1234"); nullopt when
// the key is absent or its value is not a number.
std::optional<uint64_t> ParseKeyValue(std::string_view text, std::string_view key);

}  // namespace gpuvet
