// The workload half of the sampler: follows one process tree (a root pid and its descendants by
// ppid), and per process reports CPU, RSS, threads, /proc/PID/io rates, files newly opened (fd
// table diff) and its busiest threads; plus the CPU throttling of the root's cgroup.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/host_paths.h"
#include "core/recording.h"
#include "sources/host/pid_stat.h"
#include "sources/sampler/proc_pid_parse.h"

namespace gpuvet {

// Work caps that keep one sample cheap on a pathological workload (noted when hit).
inline constexpr size_t kMaxTreeProcesses = 256;  // processes followed
inline constexpr size_t kMaxThreadsRead = 1024;   // thread stat files per process
inline constexpr size_t kMaxFdsResolved = 1024;   // readlink()s per process
inline constexpr size_t kMaxTopThreads = 8;       // ThreadSample entries per process

// Not thread-safe; one per sampler.
class ProcessSampler {
 public:
  explicit ProcessSampler(const HostPaths& paths);

  // Follows the tree of `pid` (0: none) and reads its baseline at once, so the next Take gives
  // rates over the time since this call. Finds the cgroup level that counts its throttling.
  void SetRoot(int pid);
  int root() const { return root_; }

  // Reads the tree: processes (root first, then by pid) with rates over `interval_s` since the
  // previous Take/SetRoot; fills the cgroup throttling fields of `workload`. A process seen for
  // the first time was born during the interval: all its CPU time and I/O count. Empty when no
  // root is set or the root has exited (noted).
  std::vector<ProcessSample> Take(double interval_s, WorkloadSample* workload);

  // Why fields are missing ("sampler.process.io" -> "…: Permission denied"). Grows over time.
  const std::map<std::string, std::string>& notes() const { return notes_; }

 private:
  // What the previous read left per process, to diff against.
  struct Prev {
    uint64_t starttime = 0;
    int ppid = 0;
    uint64_t cpu_ticks = 0;
    std::optional<PidIo> io;
    std::map<int, uint64_t> thread_ticks;       // tid -> utime+stime
    std::set<std::pair<int, std::string>> fds;  // (fd, target)
    bool fds_known = false;
    bool fds_resolved = false;  // fds carry readlink targets
  };

  // The stat of every process in the tree of root_ (root first, then by pid).
  std::vector<PidStat> ReadTree();
  // Pids of the tree from the children files; empty when the kernel has none.
  std::vector<int> TreeByChildren();
  // Pids of the tree from every process's ppid.
  std::vector<int> TreeByScan();
  // Children of every thread of `pid`; nullopt when the process or the files are missing.
  std::optional<std::vector<int>> ChildrenOf(int pid);
  // `reaped`: I/O totals of this process's children that vanished since the previous sample.
  ProcessSample ReadProcess(const PidStat& st, double interval_s, const Prev* prev,
                            const PidIo* reaped, Prev* next);
  void ReadThreads(const PidStat& st, double interval_s, const Prev* prev, Prev* next,
                   ProcessSample* out);
  void ReadFds(int pid, double interval_s, const Prev* prev, Prev* next, ProcessSample* out);
  void ReadThrottle(double interval_s, WorkloadSample* workload);
  void Note(const std::string& key, const std::string& text);

  HostPaths paths_;
  std::string proc_dir_;
  double ticks_per_s_ = 100;
  uint64_t page_bytes_ = 4096;
  int root_ = 0;
  bool use_children_ = true;  // false once the kernel proved to lack task/TID/children
  std::map<int, Prev> prev_;  // by pid
  std::optional<std::string> throttle_file_;
  std::optional<CgroupThrottle> prev_throttle_;
  std::map<std::string, std::string> notes_;
};

}  // namespace gpuvet
