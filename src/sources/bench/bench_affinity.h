// CPU placement for the host side of the copy benchmarks: the CPUs of a NUMA node (from sysfs via
// HostPaths), a node remote to a GPU, and a guard that pins the calling thread and restores its
// previous affinity. Host buffers are allocated and first touched after pinning, so with Linux's
// default first-touch policy their pages land on the pinned node.
#pragma once

#include <sched.h>

#include <memory>
#include <vector>

#include "core/host_paths.h"
#include "util/status.h"

namespace gpuvet::bench {

// The CPUs of NUMA node `node` (/sys/devices/system/node/nodeN/cpulist). NotFound when the node
// does not exist; InvalidInput naming the file when its text is not a CPU list.
Result<std::vector<int>> NodeCpus(const HostPaths& paths, int node);

struct NumaNode {
  int node = -1;
  std::vector<int> cpus;
};

// The lowest-numbered NUMA node other than `local` that has CPUs. NotFound when there is none
// (a single-socket host), naming the directory searched.
Result<NumaNode> RemoteNode(const HostPaths& paths, int local);

// Pins the calling thread to a CPU set for its lifetime and restores the affinity it had before.
class ScopedAffinity {
 public:
  // Unavailable with the errno text when sched_setaffinity refuses the set (e.g. CPUs outside the
  // process's cpuset, or CPU ids from a fixture tree that this host does not have).
  static Result<std::unique_ptr<ScopedAffinity>> Pin(const std::vector<int>& cpus);
  ~ScopedAffinity();
  ScopedAffinity(const ScopedAffinity&) = delete;
  ScopedAffinity& operator=(const ScopedAffinity&) = delete;

 private:
  ScopedAffinity() = default;
  cpu_set_t saved_;
};

}  // namespace gpuvet::bench
