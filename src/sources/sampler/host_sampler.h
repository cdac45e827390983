// The host half of the sampler: reads the kernel's cumulative counters (CPU ticks, PSI stall
// totals, disk sectors and busy time, network bytes, major faults) plus MemAvailable, and turns two
// reads into one HostSample of shares and per-second rates. Whole disks only (host_counters.h).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/host_paths.h"
#include "core/recording.h"
#include "sources/sampler/host_counters.h"

namespace gpuvet {

// One read of an RDMA port's counters and state (the sampler's IbPortSample before the diff).
struct IbCounters {
  std::string port;  // "mlx5_0/1"
  std::string link_layer;
  double rate_gbps = 0;
  bool active = false;
  std::optional<uint64_t> xmit_words, rcv_words;  // port_{xmit,rcv}_data: octets / 4
  std::optional<uint64_t> xmit_wait;              // port_xmit_wait ticks
  std::optional<uint64_t> cnp;                    // np_cnp_sent + rp_cnp_handled
  std::optional<uint64_t> errors;  // symbol_error + port_rcv_errors + link_downed + recoveries
};

// One read of every host counter. Absent members could not be read (the reason is in the
// sampler's notes).
struct HostSnapshot {
  std::optional<ProcStatCounters> stat;
  // PSI total= values in microseconds.
  std::optional<uint64_t> psi_cpu_some_us, psi_io_some_us, psi_io_full_us, psi_memory_some_us,
      psi_memory_full_us;
  std::optional<uint64_t> mem_available_bytes;
  std::optional<uint64_t> major_faults;
  std::optional<std::vector<DiskCounters>> disks;  // whole disks only
  std::optional<std::vector<NetCounters>> nets;    // without "lo"
  std::vector<IbCounters> ib;                      // every RDMA port found at construction
};

// Rates and shares between two snapshots taken `interval_s` apart (> 0). A counter missing from
// either snapshot leaves its field absent; a counter that went backwards (a device replaced, the
// kernel's iowait accounting) counts as zero progress. Devices present in only one snapshot are
// left out. CPUs listed in only one snapshot get core_busy_pct -1 (offline, see recording.h).
HostSample DiffHost(const HostSnapshot& prev, const HostSnapshot& cur, double interval_s);

// Reads the host counters under a HostPaths. Not thread-safe; one per sampler.
class HostSampler {
 public:
  // Lists /sys/block once to tell whole disks from partitions (a name heuristic when unreadable),
  // and /sys/class/infiniband/*/ports once for the RDMA ports to sample.
  explicit HostSampler(const HostPaths& paths);

  // Reads every counter file. A file that is missing or garbled leaves its members absent and
  // records why in notes() (once per file).
  HostSnapshot Read();

  // Reads and returns the rates since the previous Take (or the first Read via Take of a fresh
  // sampler: then the shares cover `interval_s` since that read).
  HostSample Take(double interval_s);

  // Why fields are missing: "sampler.host.psi" -> "/proc/pressure/cpu absent (kernel without
  // PSI)". Grows when a new problem appears.
  const std::map<std::string, std::string>& notes() const { return notes_; }

 private:
  // Whole-disk test: listed in /sys/block and not virtual.
  bool KeepDisk(const std::string& name, const std::vector<std::string>& all) const;
  void Note(const std::string& key, const std::string& text);

  std::string stat_path_, diskstats_path_, netdev_path_, meminfo_path_, vmstat_path_;
  std::string psi_cpu_path_, psi_io_path_, psi_memory_path_;
  std::optional<std::set<std::string>> sys_block_;  // nullopt: /sys/block not listable
  struct IbPortPath {
    std::string name;  // "mlx5_0/1"
    std::string dir;   // the port directory under the root
    std::string link_layer;
  };
  std::vector<IbPortPath> ib_ports_;
  // One RDMA port's counters; unreadable counters stay absent (noted once).
  IbCounters ReadIbPort(const IbPortPath& p);
  std::optional<HostSnapshot> prev_;
  std::map<std::string, std::string> notes_;
};

}  // namespace gpuvet
