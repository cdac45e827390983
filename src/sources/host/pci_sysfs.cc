// PCI sysfs reader. Symlinks (/sys/bus/pci/devices/ADDR, driver) are resolved by hand inside the
// --root tree rather than by the OS, so a fixture tree's absolute or ".."-heavy links can never
// make gpuvet read outside it, and the resolved host path tells us the upstream bridge.
#include "sources/host/pci_sysfs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Linux MAXSYMLINKS (include/linux/namei.h): links followed before ELOOP.
constexpr int kMaxSymlinks = 40;

// PCI class codes (PCI Code and ID Assignment Specification): base class 0x03 display,
// subclass 0x00 VGA-compatible, 0x02 3D controller. Compared on class >> 8.
constexpr uint32_t kClassVga = 0x0300;
constexpr uint32_t kClass3d = 0x0302;

// The PCIe spec's widest link is x32.
constexpr int kMaxLinkWidth = 32;

bool IsHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
  });
}

std::string JoinHost(const std::vector<std::string>& comps) {
  std::string out;
  for (const std::string& c : comps) out += "/" + c;
  return out.empty() ? "/" : out;
}

// Reads an attribute and parses it: a missing file or a NotSupported parse becomes Unsupported, any
// other failure an Error naming the file.
template <typename T, typename Parser>
Reading<T> ReadField(const std::string& path, Parser parse) {
  auto text = ReadAttribute(path);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound)
      return Reading<T>::Unsupported(path + " absent");
    return Reading<T>::Error(text.status().message());
  }
  Result<T> v = parse(*text);
  if (v.ok()) return Reading<T>::Of(*v);
  if (v.status().code() == StatusCode::kNotSupported) {
    return Reading<T>::Unsupported(path + ": " + v.status().message());
  }
  return Reading<T>::Error(path + ": " + v.status().message());
}

Result<uint32_t> ReadHexId(const std::string& path) {
  auto text = ReadAttribute(path);
  if (!text.ok()) return text.status();
  auto v = ParseUint(*text);
  if (!v || *v > 0xffffffffu) return InvalidInput(path + ": not a hex id: '" + *text + "'");
  return static_cast<uint32_t>(*v);
}

Reading<AerCounts> ReadAer(const std::string& dir) {
  struct File {
    const char* name;
    const char* key;
    uint64_t AerCounts::*field;
  };
  // Attribute names and keys from drivers/pci/pcie/aer.c (aer_stats_attrs, since Linux 4.17).
  const File files[] = {{"aer_dev_correctable", "TOTAL_ERR_COR", &AerCounts::correctable},
                        {"aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", &AerCounts::nonfatal},
                        {"aer_dev_fatal", "TOTAL_ERR_FATAL", &AerCounts::fatal}};
  AerCounts counts;
  for (const File& f : files) {
    std::string path = dir + "/" + f.name;
    auto text = ReadFile(path, 1 << 16);
    if (!text.ok()) {
      if (text.status().code() == StatusCode::kNotFound) {
        return Reading<AerCounts>::Unsupported("no AER counters (" + path + " absent)");
      }
      return Reading<AerCounts>::Error(text.status().message());
    }
    auto v = ParseAerTotal(*text, f.key);
    if (!v.ok()) return Reading<AerCounts>::Error(path + ": " + v.status().message());
    counts.*f.field = *v;
  }
  return Reading<AerCounts>::Of(counts);
}

Reading<int> ReadNumaNode(const std::string& path) {
  auto text = ReadAttribute(path);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return Reading<int>::Unsupported(path + " absent (kernel without NUMA)");
    }
    return Reading<int>::Error(text.status().message());
  }
  auto v = ParseInt(*text);
  if (v && *v == -1) return Reading<int>::Unsupported("firmware gives no NUMA node (numa_node -1)");
  if (!v || *v < 0 || *v > 65535) {
    return Reading<int>::Error(path + ": not a NUMA node number: '" + *text + "'");
  }
  return Reading<int>::Of(static_cast<int>(*v));
}

std::string DriverName(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path target = std::filesystem::read_symlink(dir + "/driver", ec);
  if (ec) return "";
  return target.filename().string();
}

}  // namespace

Result<double> ParseLinkSpeed(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return InvalidInput("empty link speed");
  if (ToLower(text) == "unknown") {
    return NotSupported("link speed 'Unknown' (link down, device powered off or virtual bridge)");
  }
  std::vector<std::string_view> words = SplitWhitespace(text);
  if (words.size() < 2 || words[1] != "GT/s") {
    return InvalidInput("not a link speed: '" + std::string(text) + "'");
  }
  auto v = ParseDouble(words[0]);
  // Largest defined rate: 64 GT/s (PCIe 6.0); allow headroom for later generations.
  if (!v || !(*v > 0) || *v > 1024) {
    return InvalidInput("not a link speed: '" + std::string(text) + "'");
  }
  return *v;
}

Result<int> ParseLinkWidth(std::string_view text) {
  auto v = ParseInt(text);
  if (!v || *v < 0 || *v > kMaxLinkWidth) {
    return InvalidInput("not a link width: '" + std::string(Trim(text)) + "'");
  }
  if (*v == 0) return NotSupported("link width 0 (not reported)");
  return static_cast<int>(*v);
}

Result<uint64_t> ParseAerTotal(std::string_view text, std::string_view key) {
  for (std::string_view line : Split(text, '\n')) {
    std::vector<std::string_view> words = SplitWhitespace(line);
    if (words.empty() || words[0] != key) continue;
    if (words.size() != 2) return InvalidInput("bad line '" + std::string(Trim(line)) + "'");
    auto v = ParseUint(words[1]);
    if (!v) return InvalidInput("bad count in '" + std::string(Trim(line)) + "'");
    return *v;
  }
  return InvalidInput("no " + std::string(key) + " line");
}

bool IsPciAddress(std::string_view s) {
  // dddd:bb:dd.f — domain (4 hex), bus (2 hex), device (2 hex), function (one digit 0-7).
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  return IsHex(s.substr(0, 4)) && IsHex(s.substr(5, 2)) && IsHex(s.substr(8, 2)) && s[11] >= '0' &&
         s[11] <= '7';
}

std::string ParentPciAddress(std::string_view real_path) {
  while (!real_path.empty() && real_path.back() == '/') real_path.remove_suffix(1);
  size_t slash = real_path.rfind('/');
  if (slash == std::string_view::npos) return "";
  std::string_view parent = real_path.substr(0, slash);
  size_t pslash = parent.rfind('/');
  std::string_view name = pslash == std::string_view::npos ? parent : parent.substr(pslash + 1);
  return IsPciAddress(name) ? std::string(name) : "";
}

Result<std::string> ResolveHostPath(const HostPaths& paths, std::string_view host_path) {
  std::deque<std::string> pending;
  for (std::string_view c : Split(host_path, '/')) pending.emplace_back(c);
  std::vector<std::string> resolved;
  int links = 0;
  while (!pending.empty()) {
    std::string comp = std::move(pending.front());
    pending.pop_front();
    if (comp.empty() || comp == ".") continue;
    if (comp == "..") {
      if (!resolved.empty()) resolved.pop_back();  // ".." at the root stays at the root
      continue;
    }
    resolved.push_back(comp);
    std::string real = paths.Resolve(JoinHost(resolved));
    struct stat st;
    if (::lstat(real.c_str(), &st) != 0) {
      int err = errno;
      std::string msg = "cannot resolve " + real + ": " + std::strerror(err);
      if (err == ENOENT || err == ENOTDIR) return NotFound(msg);
      if (err == EACCES || err == EPERM) return PermissionDenied(msg);
      return Unavailable(msg);
    }
    if (!S_ISLNK(st.st_mode)) continue;
    if (++links > kMaxSymlinks) return InvalidInput("too many symlinks resolving " + real);
    char buf[4096];
    ssize_t n = ::readlink(real.c_str(), buf, sizeof(buf));
    if (n < 0) return Unavailable("cannot read link " + real + ": " + std::strerror(errno));
    if (static_cast<size_t>(n) >= sizeof(buf)) return InvalidInput("link target too long: " + real);
    std::string_view target(buf, static_cast<size_t>(n));
    resolved.pop_back();
    if (StartsWith(target, "/")) resolved.clear();
    std::vector<std::string_view> parts = Split(target, '/');
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) pending.emplace_front(*it);
  }
  return JoinHost(resolved);
}

Result<PciFunction> ReadPciFunction(const HostPaths& paths, const std::string& host_dir,
                                    const std::string& address) {
  const std::string dir = paths.Resolve(host_dir);
  PciFunction f;
  f.address = address;
  auto vendor = ReadHexId(dir + "/vendor");
  if (!vendor.ok()) return vendor.status();
  auto class_code = ReadHexId(dir + "/class");
  if (!class_code.ok()) return class_code.status();
  f.vendor = *vendor;
  f.class_code = *class_code;
  f.device = ReadHexId(dir + "/device").value_or(0);

  f.link.speed_gts = ReadField<double>(dir + "/current_link_speed", ParseLinkSpeed);
  f.link.max_speed_gts = ReadField<double>(dir + "/max_link_speed", ParseLinkSpeed);
  f.link.width = ReadField<int>(dir + "/current_link_width", ParseLinkWidth);
  f.link.max_width = ReadField<int>(dir + "/max_link_width", ParseLinkWidth);
  // Current width 0 while the maximum is known is a link that is down (a GPU that fell off the
  // bus, a link that never trained, or the port above it): a reading (x0), not "not reported".
  // Functions that do not model a link (emulated devices in a VM) show 0 for both and stay
  // "not reported".
  if (f.link.width.unsupported() && f.link.width.note.find("link width 0") != std::string::npos &&
      f.link.max_width.has()) {
    f.link.width = Reading<int>::Of(0);
  }
  f.link.speed_unknown = f.link.speed_gts.unsupported() &&
                         f.link.speed_gts.note.find("'Unknown'") != std::string::npos &&
                         f.link.max_speed_gts.has();
  auto power = ReadAttribute(dir + "/power_state");
  if (power.ok() && !power->empty()) {
    f.power_state = Reading<std::string>::Of(*power);
  } else if (!power.ok() && power.status().code() != StatusCode::kNotFound) {
    f.power_state = Reading<std::string>::Error(power.status().message());
  } else {
    f.power_state = Reading<std::string>::Unsupported(dir + "/power_state absent");
  }
  f.aer = ReadAer(dir);
  f.numa_node = ReadNumaNode(dir + "/numa_node");
  f.local_cpus = ReadField<std::vector<int>>(dir + "/local_cpulist", ParseCpuList);
  f.driver = DriverName(dir);
  return f;
}

Reading<std::vector<GpuPciTopology>> ReadPciGpus(const HostPaths& paths) {
  using R = Reading<std::vector<GpuPciTopology>>;
  const std::string list_host = "/sys/bus/pci/devices";
  const std::string list_dir = paths.Resolve(list_host);
  std::error_code ec;
  std::filesystem::directory_iterator it(list_dir, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) return R::Unsupported(list_dir + " absent");
    return R::Error("cannot list " + list_dir + ": " + ec.message());
  }
  std::vector<std::string> names;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (IsPciAddress(name)) names.push_back(name);
  }
  if (ec) return R::Error("cannot list " + list_dir + ": " + ec.message());
  std::sort(names.begin(), names.end());

  std::vector<GpuPciTopology> gpus;
  for (const std::string& name : names) {
    auto real = ResolveHostPath(paths, list_host + "/" + name);
    if (!real.ok()) continue;
    auto gpu = ReadPciFunction(paths, *real, name);
    if (!gpu.ok() || gpu->vendor != kNvidiaPciVendor) continue;
    uint32_t cls = gpu->class_code >> 8;
    if (cls != kClassVga && cls != kClass3d) continue;
    GpuPciTopology topo;
    topo.gpu = std::move(gpu).value();
    std::string bridge = ParentPciAddress(*real);
    if (!bridge.empty()) {
      std::string parent_dir = real->substr(0, real->rfind('/'));
      auto up = ReadPciFunction(paths, parent_dir, bridge);
      if (up.ok()) topo.upstream_bridge = std::move(up).value();
    }
    gpus.push_back(std::move(topo));
  }
  return R::Of(std::move(gpus));
}

}  // namespace gpuvet
