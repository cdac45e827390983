// Device cgroup reader: devices.list (v1) evaluated per node, the v2 limits stated, and the
// open() probe that tells a device-cgroup denial (EPERM) from a permission-bit one (EACCES).
#include "sources/host/device_cgroup.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// The NVIDIA character device major registered for /dev/nvidia* and /dev/nvidiactl.
constexpr int kNvidiaFrontendMajor = 195;

std::optional<int> Number(std::string_view s) {
  if (s == "*") return -1;
  auto v = ParseInt(s);
  if (!v || *v < 0 || *v > (1 << 20)) return std::nullopt;
  return static_cast<int>(*v);
}

// The v1 devices cgroup path of the process ("4:devices:/docker/abc"), or nullopt.
std::optional<std::string> DevicesCgroupPath(std::string_view proc_cgroup) {
  for (std::string_view line : Split(proc_cgroup, '\n')) {
    size_t first = line.find(':');
    size_t second = line.find(':', first + 1);
    if (first == std::string_view::npos || second == std::string_view::npos) continue;
    for (std::string_view c : Split(line.substr(first + 1, second - first - 1), ',')) {
      if (c == "devices") return std::string(line.substr(second + 1));
    }
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<DeviceRule>> ParseDevicesList(std::string_view text) {
  std::vector<DeviceRule> rules;
  int line_no = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    line = Trim(line);
    if (line.empty()) continue;
    std::vector<std::string_view> f = SplitWhitespace(line);
    auto bad = [&] {
      return InvalidInput(fmt::format("devices.list:{}: '{}' is not a device rule", line_no,
                                      std::string(line.substr(0, 40))));
    };
    if (f.size() != 3 || f[0].size() != 1 || (f[0] != "a" && f[0] != "c" && f[0] != "b")) {
      return bad();
    }
    size_t colon = f[1].find(':');
    if (colon == std::string_view::npos) return bad();
    auto major = Number(f[1].substr(0, colon));
    auto minor = Number(f[1].substr(colon + 1));
    if (!major || !minor || f[2].find_first_not_of("rwm") != std::string_view::npos) return bad();
    rules.push_back({f[0][0], *major, *minor, std::string(f[2]), std::string(line)});
  }
  return rules;
}

const DeviceRule* AllowingRule(const std::vector<DeviceRule>& rules, int major, int minor) {
  for (const DeviceRule& r : rules) {
    if (r.type != 'a' && r.type != 'c') continue;
    if (r.major != -1 && r.major != major) continue;
    if (r.minor != -1 && r.minor != minor) continue;
    if (r.access.find('r') == std::string::npos || r.access.find('w') == std::string::npos) {
      continue;
    }
    return &r;
  }
  return nullptr;
}

std::map<std::string, int> ParseProcDevices(std::string_view text) {
  std::map<std::string, int> out;
  bool chars = false;
  for (std::string_view line : Split(text, '\n')) {
    line = Trim(line);
    if (line == "Character devices:") {
      chars = true;
      continue;
    }
    if (line == "Block devices:") chars = false;
    if (!chars) continue;
    std::vector<std::string_view> f = SplitWhitespace(line);
    if (f.size() != 2) continue;
    if (auto major = ParseInt(f[0]); major && *major >= 0) out[std::string(f[1])] = *major;
  }
  return out;
}

std::pair<int, int> NvidiaDeviceNumber(std::string_view name,
                                       const std::map<std::string, int>& majors) {
  int frontend = kNvidiaFrontendMajor;
  if (auto it = majors.find("nvidia-frontend"); it != majors.end())
    frontend = it->second;
  else if (auto it2 = majors.find("nvidia"); it2 != majors.end())
    frontend = it2->second;
  int uvm = -1;
  if (auto it = majors.find("nvidia-uvm"); it != majors.end()) uvm = it->second;
  if (name == "nvidiactl") return {frontend, 255};
  if (name == "nvidia-modeset") return {frontend, 254};
  if (name == "nvidia-uvm") return {uvm, uvm < 0 ? -1 : 0};
  if (name == "nvidia-uvm-tools") return {uvm, uvm < 0 ? -1 : 1};
  if (StartsWith(name, "nvidia")) {
    if (auto n = ParseInt(name.substr(6)); n && *n >= 0 && *n < 254) {
      return {frontend, static_cast<int>(*n)};
    }
  }
  return {-1, -1};
}

int OpenProbe(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return errno;
  ::close(fd);
  return 0;
}

DeviceCgroupState ReadDeviceCgroup(const HostPaths& paths, int pid,
                                   const std::vector<DeviceNode>& nodes, DeviceProbe probe) {
  DeviceCgroupState state;
  std::string proc = pid > 0 ? std::to_string(pid) : "self";
  auto membership = ReadFile(paths.Proc(proc + "/cgroup"), 1 << 20);
  std::optional<std::string> v1_path;
  if (membership.ok()) v1_path = DevicesCgroupPath(*membership);
  std::vector<DeviceRule> rules;
  if (v1_path && PathExists(paths.Sys("fs/cgroup/devices"))) {
    state.version = 1;
    std::string dir = "fs/cgroup/devices" + (*v1_path == "/" ? std::string() : *v1_path);
    // A private cgroup namespace shows the container's own cgroup as the mount root.
    if (!PathExists(paths.Sys(dir))) dir = "fs/cgroup/devices";
    state.path = "/sys/" + dir;
    std::string file = state.path + "/devices.list";
    auto text = ReadFile(paths.Sys(dir + "/devices.list"), 1 << 20);
    if (!text.ok()) {
      state.v1_rules = Reading<std::vector<std::string>>::Error(text.status().message());
    } else if (auto parsed = ParseDevicesList(*text); !parsed.ok()) {
      state.v1_rules =
          Reading<std::vector<std::string>>::Error(file + ": " + parsed.status().message());
    } else {
      rules = std::move(parsed).value();
      std::vector<std::string> lines;
      for (const DeviceRule& r : rules) lines.push_back(r.text);
      state.v1_rules = Reading<std::vector<std::string>>::Of(std::move(lines));
    }
  } else if (PathExists(paths.Sys("fs/cgroup/cgroup.controllers"))) {
    state.version = 2;
    state.note =
        "cgroup v2 enforces device access with an eBPF program (BPF_CGROUP_DEVICE) attached to "
        "the cgroup; its rules cannot be read from /sys (bpftool cgroup show needs "
        "CAP_SYS_ADMIN), so each node is probed with open() instead";
  } else {
    state.note = "no devices cgroup found (no v1 devices controller, no cgroup v2 mount)";
  }
  std::map<std::string, int> majors;
  if (auto text = ReadFile(paths.Proc("devices"), 1 << 20); text.ok()) {
    majors = ParseProcDevices(*text);
  }
  for (const DeviceNode& node : nodes) {
    if (!node.exists) continue;
    DeviceCgroupAccess a;
    a.path = node.path;
    std::string name = node.path.substr(node.path.rfind('/') + 1);
    std::string real = paths.Dev(name);
    struct stat st {};
    if (node.is_char_device && ::stat(real.c_str(), &st) == 0 && S_ISCHR(st.st_mode)) {
      a.major = static_cast<int>(major(st.st_rdev));
      a.minor = static_cast<int>(minor(st.st_rdev));
      if (probe != nullptr) a.probe_errno = probe(real);
    } else {
      std::tie(a.major, a.minor) = NvidiaDeviceNumber(name, majors);
    }
    if (state.version == 1 && state.v1_rules.has() && a.major >= 0) {
      const DeviceRule* r = AllowingRule(rules, a.major, a.minor);
      a.v1_verdict = r ? "allowed" : "denied";
      if (r) a.v1_rule = r->text;
    }
    state.nodes.push_back(std::move(a));
  }
  return state;
}

}  // namespace gpuvet
