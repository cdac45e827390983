// NUMA node CPU lists and the thread-affinity guard (bench_affinity.h).
#include "sources/bench/bench_affinity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet::bench {

Result<std::vector<int>> NodeCpus(const HostPaths& paths, int node) {
  const std::string path = paths.Sys(fmt::format("devices/system/node/node{}/cpulist", node));
  auto text = ReadAttribute(path);
  if (!text.ok()) return text.status();
  if (Trim(*text).empty()) return std::vector<int>{};  // a memory-only node (CXL, HBM)
  auto cpus = ParseCpuList(*text);
  if (!cpus.ok()) return InvalidInput(path + ": " + cpus.status().message());
  return *cpus;
}

Result<NumaNode> RemoteNode(const HostPaths& paths, int local) {
  const std::string dir = paths.Sys("devices/system/node");
  std::error_code ec;
  std::vector<int> nodes;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!StartsWith(name, "node")) continue;
    if (auto n = ParseInt(std::string_view(name).substr(4)); n && *n >= 0 && *n < 65536) {
      nodes.push_back(static_cast<int>(*n));
    }
  }
  if (ec && nodes.empty()) return NotFound(fmt::format("cannot list {}: {}", dir, ec.message()));
  std::sort(nodes.begin(), nodes.end());
  for (int n : nodes) {
    if (n == local) continue;
    auto cpus = NodeCpus(paths, n);
    if (cpus.ok() && !cpus->empty()) return NumaNode{n, *cpus};
  }
  return NotFound(fmt::format("no NUMA node with CPUs other than node {} in {}", local, dir));
}

Result<std::unique_ptr<ScopedAffinity>> ScopedAffinity::Pin(const std::vector<int>& cpus) {
  std::unique_ptr<ScopedAffinity> guard(new ScopedAffinity());
  CPU_ZERO(&guard->saved_);
  if (sched_getaffinity(0, sizeof(cpu_set_t), &guard->saved_) != 0) {
    return Unavailable(fmt::format("sched_getaffinity: {}", std::strerror(errno)));
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) {
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  }
  if (CPU_COUNT(&set) == 0) return InvalidInput("empty CPU set");
  if (sched_setaffinity(0, sizeof(cpu_set_t), &set) != 0) {
    return Unavailable(
        fmt::format("sched_setaffinity({}): {}", FormatCpuList(cpus), std::strerror(errno)));
  }
  return guard;
}

ScopedAffinity::~ScopedAffinity() { sched_setaffinity(0, sizeof(cpu_set_t), &saved_); }

}  // namespace gpuvet::bench
