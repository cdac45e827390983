// Finds the cpu.stat that counts a process's throttling: membership from /proc/PID/cgroup
// (cgroup.h ParseProcCgroup), then a walk up the hierarchy for the level that sets the quota.
#include "sources/sampler/cgroup_throttle.h"

#include <vector>

#include "sources/host/cgroup.h"
#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// True when the level `dir` (resolved) sets a CPU quota.
bool HasQuota(const std::string& dir, bool v2) {
  if (v2) {
    Result<std::string> text = ReadAttribute(dir + "/cpu.max");
    if (!text.ok()) return false;
    Result<CpuLimit> l = ParseCpuMax(*text);
    return l.ok() && !l->unlimited;
  }
  Result<std::string> quota = ReadAttribute(dir + "/cpu.cfs_quota_us");
  Result<std::string> period = ReadAttribute(dir + "/cpu.cfs_period_us");
  if (!quota.ok() || !period.ok()) return false;
  Result<CpuLimit> l = ParseCfsQuota(*quota, *period);
  return l.ok() && !l->unlimited;
}

Result<std::string> Walk(const HostPaths& paths, const std::string& mount, std::string_view cg_path,
                         bool v2) {
  const std::string mount_dir = paths.Resolve(mount);
  if (!PathExists(mount_dir)) return NotSupported(mount_dir + " absent");
  std::vector<std::string> comps;
  for (std::string_view c : Split(cg_path, '/')) {
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      comps.clear();
      break;
    }
    comps.emplace_back(c);
  }
  auto dir_of = [&](size_t n) {
    std::string d = mount_dir;
    for (size_t i = 0; i < n; ++i) d += "/" + comps[i];
    return d;
  };
  if (!PathExists(dir_of(comps.size()))) comps.clear();  // private cgroup namespace
  for (size_t n = comps.size() + 1; n-- > 0;) {
    if (HasQuota(dir_of(n), v2)) return dir_of(n) + "/cpu.stat";
  }
  return dir_of(comps.size()) + "/cpu.stat";
}

}  // namespace

Result<std::string> FindThrottleStatFile(const HostPaths& paths, int pid) {
  const std::string file = paths.Proc(std::to_string(pid) + "/cgroup");
  Result<std::string> text = ReadFile(file, 1 << 20);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return NotFound("no such process " + std::to_string(pid));
    }
    return text.status();
  }
  Result<CgroupMembership> m = ParseProcCgroup(*text);
  if (!m.ok()) return InvalidInput(file + ": " + m.status().message());
  const std::string root = "/sys/fs/cgroup";
  const bool v2_mount = PathExists(paths.Resolve(root + "/cgroup.controllers"));
  if (m->has_unified && (v2_mount || !m->has_cpu)) {
    return Walk(paths, root, m->unified_path, true);
  }
  if (m->has_cpu) {
    std::string mount = root + "/" + m->cpu_controllers;
    if (!PathExists(paths.Resolve(mount))) mount = root + "/cpu";
    return Walk(paths, mount, m->cpu_path, false);
  }
  return NotSupported("no cpu cgroup in " + file);
}

}  // namespace gpuvet
