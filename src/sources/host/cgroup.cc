// cgroup source. The walk from the process's cgroup to the mount root reads one limit file per
// level; a level without the file (controller not enabled there, or the root) imposes nothing.
#include "sources/host/cgroup.h"

#include <optional>
#include <vector>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// cgroup v1 memory.limit_in_bytes at or above this is "no limit" (see ParseV1MemoryLimit).
constexpr uint64_t kV1UnlimitedBytes = uint64_t{1} << 62;

bool HasController(std::string_view list, std::string_view name) {
  for (std::string_view c : Split(list, ',')) {
    if (c == name) return true;
  }
  return false;
}

// Components of a cgroup path; nullopt when it tries to climb with "..".
std::optional<std::vector<std::string>> PathComponents(std::string_view path) {
  std::vector<std::string> comps;
  for (std::string_view c : Split(path, '/')) {
    if (c.empty() || c == ".") continue;
    if (c == "..") return std::nullopt;
    comps.emplace_back(c);
  }
  return comps;
}

std::string HostDir(const std::string& mount, const std::vector<std::string>& comps, size_t n) {
  std::string dir = mount;
  for (size_t i = 0; i < n; ++i) dir += "/" + comps[i];
  return dir;
}

// Reads one level's limit: nullopt when the file(s) are absent at that level.
template <typename Limit>
using LevelReader = Result<std::optional<Limit>> (*)(const std::string& fixture_dir);

Result<std::optional<CpuLimit>> ReadCpuMaxLevel(const std::string& dir) {
  std::string path = dir + "/cpu.max";
  auto text = ReadAttribute(path);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) return std::optional<CpuLimit>();
    return text.status();
  }
  auto v = ParseCpuMax(*text);
  if (!v.ok()) return InvalidInput(path + ": " + v.status().message());
  return std::optional<CpuLimit>(*v);
}

Result<std::optional<CpuLimit>> ReadCfsLevel(const std::string& dir) {
  std::string quota_path = dir + "/cpu.cfs_quota_us";
  auto quota = ReadAttribute(quota_path);
  if (!quota.ok()) {
    if (quota.status().code() == StatusCode::kNotFound) return std::optional<CpuLimit>();
    return quota.status();
  }
  auto period = ReadAttribute(dir + "/cpu.cfs_period_us");
  if (!period.ok()) return period.status();
  auto v = ParseCfsQuota(*quota, *period);
  if (!v.ok()) return InvalidInput(quota_path + ": " + v.status().message());
  return std::optional<CpuLimit>(*v);
}

template <typename Limit, Result<Limit> (*Parse)(std::string_view), const char* kFile>
Result<std::optional<Limit>> ReadMemoryLevel(const std::string& dir) {
  std::string path = dir + "/" + kFile;
  auto text = ReadAttribute(path);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) return std::optional<Limit>();
    return text.status();
  }
  auto v = Parse(*text);
  if (!v.ok()) return InvalidInput(path + ": " + v.status().message());
  return std::optional<Limit>(*v);
}

constexpr char kMemoryMax[] = "memory.max";
constexpr char kMemoryLimitInBytes[] = "memory.limit_in_bytes";

double Key(const CpuLimit& l) { return l.cores; }
double Key(const MemoryLimit& l) { return static_cast<double>(l.bytes); }

// The tightest limit from the process's cgroup directory up to the mount root. `where` receives
// the directory the walk started from (the root when the cgroup's own directory is not visible).
template <typename Limit>
Result<Limit> WalkUp(const HostPaths& paths, const std::string& mount, std::string_view cg_path,
                     LevelReader<Limit> read, std::string& where) {
  if (!PathExists(paths.Resolve(mount))) return NotSupported(paths.Resolve(mount) + " absent");
  std::vector<std::string> comps = PathComponents(cg_path).value_or(std::vector<std::string>{});
  if (!PathExists(paths.Resolve(HostDir(mount, comps, comps.size())))) comps.clear();
  where = HostDir(mount, comps, comps.size());
  Limit tightest;
  tightest.unlimited = true;
  for (size_t n = comps.size() + 1; n-- > 0;) {
    auto level = read(paths.Resolve(HostDir(mount, comps, n)));
    if (!level.ok()) return level.status();
    if (!level->has_value() || (*level)->unlimited) continue;
    if (tightest.unlimited || Key(**level) < Key(tightest)) tightest = **level;
  }
  return tightest;
}

void SetCpu(CgroupState& s, const Result<CpuLimit>& r, const std::string& where, const char* file) {
  if (!r.ok()) {
    s.cpu_quota_cores = r.status().code() == StatusCode::kNotSupported
                            ? Reading<double>::Unsupported(r.status().message())
                            : Reading<double>::Error(r.status().message());
  } else if (r->unlimited) {
    s.cpu_unlimited = true;
    s.cpu_quota_cores = Reading<double>::Unsupported(std::string("no CPU quota (") + file +
                                                     " unlimited from " + where + " to the root)");
  } else {
    s.cpu_quota_cores = Reading<double>::Of(r->cores);
  }
}

void SetMemory(CgroupState& s, const Result<MemoryLimit>& r, const std::string& where,
               const char* file) {
  if (!r.ok()) {
    s.memory_max_bytes = r.status().code() == StatusCode::kNotSupported
                             ? Reading<uint64_t>::Unsupported(r.status().message())
                             : Reading<uint64_t>::Error(r.status().message());
  } else if (r->unlimited) {
    s.memory_unlimited = true;
    s.memory_max_bytes = Reading<uint64_t>::Unsupported(
        std::string("no memory limit (") + file + " unlimited from " + where + " to the root)");
  } else {
    s.memory_max_bytes = Reading<uint64_t>::Of(r->bytes);
  }
}

}  // namespace

Result<CgroupMembership> ParseProcCgroup(std::string_view text) {
  CgroupMembership m;
  int line_no = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    if (Trim(line).empty()) continue;
    size_t c1 = line.find(':');
    size_t c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos || !ParseInt(line.substr(0, c1))) {
      return InvalidInput("line " + std::to_string(line_no) + ": not 'ID:controllers:path': '" +
                          std::string(line) + "'");
    }
    std::string_view id = Trim(line.substr(0, c1));
    std::string_view controllers = line.substr(c1 + 1, c2 - c1 - 1);
    std::string path(line.substr(c2 + 1));
    if (id == "0" && controllers.empty()) {
      m.has_unified = true;
      m.unified_path = path;
    }
    if (HasController(controllers, "cpu")) {
      m.has_cpu = true;
      m.cpu_controllers = std::string(controllers);
      m.cpu_path = path;
    }
    if (HasController(controllers, "memory")) {
      m.has_memory = true;
      m.memory_path = path;
    }
  }
  return m;
}

Result<CpuLimit> ParseCpuMax(std::string_view text) {
  std::vector<std::string_view> w = SplitWhitespace(text);
  if (w.empty() || w.size() > 2)
    return InvalidInput("not 'QUOTA PERIOD': '" + std::string(text) + "'");
  if (w[0] == "max") return CpuLimit{true, 0};
  auto quota = ParseInt(w[0]);
  auto period = w.size() == 2 ? ParseInt(w[1]) : std::nullopt;
  if (!quota || !period || *quota <= 0 || *period <= 0) {
    return InvalidInput("not 'QUOTA PERIOD': '" + std::string(Trim(text)) + "'");
  }
  return CpuLimit{false, static_cast<double>(*quota) / static_cast<double>(*period)};
}

Result<CpuLimit> ParseCfsQuota(std::string_view quota_text, std::string_view period_text) {
  auto quota = ParseInt(quota_text);
  if (quota && *quota == -1) return CpuLimit{true, 0};
  auto period = ParseInt(period_text);
  if (!quota || *quota <= 0)
    return InvalidInput("bad quota '" + std::string(Trim(quota_text)) + "'");
  if (!period || *period <= 0) {
    return InvalidInput("bad period '" + std::string(Trim(period_text)) + "'");
  }
  return CpuLimit{false, static_cast<double>(*quota) / static_cast<double>(*period)};
}

Result<MemoryLimit> ParseMemoryMax(std::string_view text) {
  if (Trim(text) == "max") return MemoryLimit{true, 0};
  auto v = ParseUint(text);
  if (!v || StartsWith(Trim(text), "0x")) {
    return InvalidInput("not a byte count or 'max': '" + std::string(Trim(text)) + "'");
  }
  return MemoryLimit{false, *v};
}

Result<MemoryLimit> ParseV1MemoryLimit(std::string_view text) {
  auto v = ParseUint(text);
  if (!v || StartsWith(Trim(text), "0x")) {
    return InvalidInput("not a byte count: '" + std::string(Trim(text)) + "'");
  }
  if (*v >= kV1UnlimitedBytes) return MemoryLimit{true, 0};
  return MemoryLimit{false, *v};
}

CgroupState ReadCgroup(const HostPaths& paths, int pid) {
  CgroupState s;
  std::string file =
      pid == 0 ? paths.Proc("self/cgroup") : paths.Proc(std::to_string(pid) + "/cgroup");
  auto fail = [&](Reading<double> cpu, Reading<uint64_t> mem) {
    s.cpu_quota_cores = std::move(cpu);
    s.memory_max_bytes = std::move(mem);
    return s;
  };
  auto text = ReadFile(file, 1 << 20);
  if (!text.ok()) {
    std::string why = text.status().message();
    if (text.status().code() == StatusCode::kNotFound) {
      if (pid != 0) {
        why = "no such process " + std::to_string(pid);
      } else {
        return fail(Reading<double>::Unsupported(file + " absent (kernel without cgroups)"),
                    Reading<uint64_t>::Unsupported(file + " absent (kernel without cgroups)"));
      }
    }
    return fail(Reading<double>::Error(why), Reading<uint64_t>::Error(why));
  }
  auto m = ParseProcCgroup(*text);
  if (!m.ok()) {
    std::string why = file + ": " + m.status().message();
    return fail(Reading<double>::Error(why), Reading<uint64_t>::Error(why));
  }

  const std::string root = "/sys/fs/cgroup";
  bool v2_mount = PathExists(paths.Resolve(root + "/cgroup.controllers"));
  std::string where;
  if (m->has_unified && (v2_mount || (!m->has_cpu && !m->has_memory))) {
    s.version = 2;
    s.path = m->unified_path;
    SetCpu(s, WalkUp<CpuLimit>(paths, root, s.path, ReadCpuMaxLevel, where), where, "cpu.max");
    SetMemory(s,
              WalkUp<MemoryLimit>(paths, root, s.path,
                                  ReadMemoryLevel<MemoryLimit, ParseMemoryMax, kMemoryMax>, where),
              where, "memory.max");
    return s;
  }
  if (m->has_cpu || m->has_memory) {
    s.version = 1;
    s.path = m->has_cpu ? m->cpu_path : m->memory_path;
    if (m->has_cpu) {
      // The hierarchy is mounted under its controller list; distributions add "cpu" symlinks.
      std::string mount = root + "/" + m->cpu_controllers;
      if (!PathExists(paths.Resolve(mount))) mount = root + "/cpu";
      SetCpu(s, WalkUp<CpuLimit>(paths, mount, m->cpu_path, ReadCfsLevel, where), where,
             "cpu.cfs_quota_us");
    } else {
      s.cpu_quota_cores = Reading<double>::Unsupported("no cpu controller in " + file);
    }
    if (m->has_memory) {
      SetMemory(s,
                WalkUp<MemoryLimit>(
                    paths, root + "/memory", m->memory_path,
                    ReadMemoryLevel<MemoryLimit, ParseV1MemoryLimit, kMemoryLimitInBytes>, where),
                where, "memory.limit_in_bytes");
    } else {
      s.memory_max_bytes = Reading<uint64_t>::Unsupported("no memory controller in " + file);
    }
    return s;
  }
  std::string why = "no cpu or memory cgroup in " + file;
  return fail(Reading<double>::Unsupported(why), Reading<uint64_t>::Unsupported(why));
}

}  // namespace gpuvet
