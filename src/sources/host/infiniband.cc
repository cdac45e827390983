// The RDMA devices of /sys/class/infiniband (kernel Documentation/ABI/stable/
// sysfs-class-infiniband): ports/N/{link_layer,state,phys_state,rate}, the counters/ and
// hw_counters/ files, the device/ link to the PCIe function; then each GPU's nearest device.
#include "sources/host/infiniband.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "sources/host/pci_sysfs.h"
#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

constexpr size_t kMaxDevices = 256;   // a node has a handful; a garbled tree cannot run away
constexpr size_t kMaxPorts = 64;      // per device
constexpr size_t kMaxCounters = 512;  // per port, counters/ and hw_counters/ together

// Names in a directory, sorted; NotFound/Error as a Status.
Result<std::vector<std::string>> ListNames(const std::string& dir, size_t cap) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory) {
      return NotFound(dir + " absent");
    }
    return Unavailable("cannot list " + dir + ": " + ec.message());
  }
  std::vector<std::string> names;
  for (; it != std::filesystem::directory_iterator() && names.size() < cap; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec) return Unavailable("cannot list " + dir + ": " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

Reading<std::string> ReadState(const std::string& path) {
  auto text = ReadAttribute(path);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return Reading<std::string>::Unsupported(path + " absent");
    }
    return Reading<std::string>::Error(text.status().message());
  }
  auto st = ParseIbState(*text);
  if (!st.ok()) return Reading<std::string>::Error(path + ": " + st.status().message());
  return Reading<std::string>::Of(*st);
}

void ReadCounters(const std::string& dir, std::string_view label, IbPort* port) {
  auto names = ListNames(dir, kMaxCounters);
  if (!names.ok()) {
    if (names.status().code() != StatusCode::kNotFound) {
      port->counter_errors.push_back(std::string(label) + ": " + names.status().message());
    }
    return;
  }
  for (const std::string& name : *names) {
    if (name == "lifespan") continue;  // hw_counters' refresh interval (ms), not a counter
    if (port->counters.size() >= kMaxCounters) break;
    const std::string path = dir + "/" + name;
    auto text = ReadAttribute(path);
    if (!text.ok()) {
      // Directories (per-VL subfolders on some drivers) are not counters.
      if (text.status().message().find("directory") != std::string::npos) continue;
      port->counter_errors.push_back(std::string(label) + "/" + name + ": " +
                                     text.status().message());
      continue;
    }
    // A counter the port's management agent does not offer reads "N/A (no PMA)".
    if (StartsWith(*text, "N/A")) continue;
    auto v = ParseIbCounter(*text);
    if (!v.ok()) {
      port->counter_errors.push_back(std::string(label) + "/" + name + ": " + v.status().message());
      continue;
    }
    port->counters[name] = *v;
  }
}

IbPort ReadPort(const std::string& dir, int number) {
  IbPort p;
  p.port = number;
  auto layer = ReadAttribute(dir + "/link_layer");
  if (layer.ok() && (*layer == "InfiniBand" || *layer == "Ethernet")) {
    p.link_layer = Reading<std::string>::Of(*layer);
  } else if (layer.ok()) {
    p.link_layer = Reading<std::string>::Error(dir + "/link_layer: unknown link layer '" +
                                               std::string(*layer).substr(0, 40) + "'");
  } else if (layer.status().code() == StatusCode::kNotFound) {
    p.link_layer = Reading<std::string>::Unsupported(dir + "/link_layer absent");
  } else {
    p.link_layer = Reading<std::string>::Error(layer.status().message());
  }
  p.state = ReadState(dir + "/state");
  p.phys_state = ReadState(dir + "/phys_state");
  auto rate_text = ReadAttribute(dir + "/rate");
  if (!rate_text.ok()) {
    if (rate_text.status().code() == StatusCode::kNotFound) {
      p.rate_gbps = Reading<double>::Unsupported(dir + "/rate absent");
    } else {
      p.rate_gbps = Reading<double>::Error(rate_text.status().message());
    }
    p.width = p.rate_gbps.error() ? Reading<int>::Error(p.rate_gbps.note)
                                  : Reading<int>::Unsupported(p.rate_gbps.note);
  } else if (auto rate = ParseIbRate(*rate_text); !rate.ok()) {
    p.rate_gbps = Reading<double>::Error(dir + "/rate: " + rate.status().message());
    p.width = Reading<int>::Error(p.rate_gbps.note);
  } else {
    p.rate_gbps = Reading<double>::Of(rate->gbps);
    p.width = rate->width > 0 ? Reading<int>::Of(rate->width)
                              : Reading<int>::Unsupported(dir + "/rate names no width");
    p.speed_name = rate->speed_name;
  }
  ReadCounters(dir + "/counters", "counters", &p);
  ReadCounters(dir + "/hw_counters", "hw_counters", &p);
  return p;
}

IbDevice ReadDevice(const HostPaths& paths, const std::string& name) {
  IbDevice d;
  d.name = name;
  const std::string host_dir = "/sys/class/infiniband/" + name;
  const std::string dir = paths.Resolve(host_dir);
  if (auto t = ReadAttribute(dir + "/hca_type"); t.ok()) d.hca_type = std::string(*t).substr(0, 64);
  if (auto t = ReadAttribute(dir + "/fw_ver"); t.ok()) d.fw_ver = std::string(*t).substr(0, 64);
  auto real = ResolveHostPath(paths, host_dir + "/device");
  if (!real.ok()) {
    d.pci = Reading<PciFunction>::Error(host_dir + "/device: " + real.status().message());
  } else {
    std::string address = real->substr(real->rfind('/') + 1);
    if (!IsPciAddress(address)) {
      d.pci = Reading<PciFunction>::Unsupported(host_dir + "/device is not a PCI function (" +
                                                *real + ")");
    } else {
      d.pci_address = address;
      d.sysfs_path = *real;
      auto f = ReadPciFunction(paths, *real, address);
      d.pci = f.ok() ? Reading<PciFunction>::Of(std::move(f).value())
                     : Reading<PciFunction>::Error(*real + ": " + f.status().message());
    }
    if (auto nets = ListNames(paths.Resolve(*real + "/net"), 16); nets.ok()) d.net_devices = *nets;
  }
  auto ports = ListNames(dir + "/ports", kMaxPorts);
  if (ports.ok()) {
    for (const std::string& p : *ports) {
      auto n = ParseUint(p);
      if (!n || *n > 255) continue;
      d.ports.push_back(ReadPort(dir + "/ports/" + p, static_cast<int>(*n)));
    }
    std::sort(d.ports.begin(), d.ports.end(),
              [](const IbPort& a, const IbPort& b) { return a.port < b.port; });
  }
  return d;
}

// The path components below /sys/devices ("pci0000:16", "0000:16:02.0", "0000:17:00.0").
std::vector<std::string_view> Components(std::string_view path) {
  constexpr std::string_view kDevices = "/sys/devices/";
  if (StartsWith(path, kDevices)) path.remove_prefix(kDevices.size());
  std::vector<std::string_view> out;
  for (std::string_view c : Split(path, '/')) {
    if (!c.empty()) out.push_back(c);
  }
  return out;
}

int NumaOf(const Reading<int>& r) { return r.has() ? *r : -1; }

}  // namespace

Result<IbRate> ParseIbRate(std::string_view text) {
  text = Trim(text);
  std::vector<std::string_view> words = SplitWhitespace(text);
  if (words.size() < 2 || !StartsWith(words[1], "Gb/sec")) {
    return InvalidInput("rate '" + std::string(text.substr(0, 40)) +
                        "' is not '<number> Gb/sec (…)'");
  }
  auto gbps = ParseDouble(words[0]);
  if (!gbps || !(*gbps >= 0) || *gbps > 1e5) {
    return InvalidInput("rate '" + std::string(words[0].substr(0, 20)) + "' is not a number");
  }
  IbRate r;
  r.gbps = *gbps;
  for (size_t i = 2; i < words.size(); ++i) {
    std::string_view w = words[i];
    while (!w.empty() && (w.front() == '(')) w.remove_prefix(1);
    while (!w.empty() && (w.back() == ')')) w.remove_suffix(1);
    if (w.size() >= 2 && (w.back() == 'X' || w.back() == 'x')) {
      if (auto n = ParseUint(w.substr(0, w.size() - 1)); n && *n >= 1 && *n <= 32) {
        r.width = static_cast<int>(*n);
        continue;
      }
    }
    if (!w.empty() && w.size() <= 8) r.speed_name = std::string(w);
  }
  return r;
}

Result<std::string> ParseIbState(std::string_view text) {
  text = Trim(text);
  size_t colon = text.find(':');
  if (colon == std::string_view::npos || !ParseUint(Trim(text.substr(0, colon)))) {
    return InvalidInput("state '" + std::string(text.substr(0, 40)) + "' is not '<n>: <name>'");
  }
  std::string_view name = Trim(text.substr(colon + 1));
  if (name.empty() || name.size() > 32) {
    return InvalidInput("state '" + std::string(text.substr(0, 40)) + "' has no name");
  }
  return std::string(name);
}

Result<uint64_t> ParseIbCounter(std::string_view text) {
  std::string_view t = Trim(text);
  auto v = ParseUint(t);
  if (!v || t.empty() || t.front() == '+' || t.front() == '-') {
    return InvalidInput("'" + std::string(t.substr(0, 40)) + "' is not a count");
  }
  return *v;
}

std::string PcieRelation(std::string_view a_path, int a_numa, std::string_view b_path, int b_numa) {
  std::vector<std::string_view> a = Components(a_path), b = Components(b_path);
  size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
  if (common == 0 || a.empty() || b.empty() || !StartsWith(a[0], "pci")) {
    if (a_numa >= 0 && b_numa >= 0) return a_numa == b_numa ? "NODE" : "SYS";
    return "?";
  }
  // common == 1: only the host bridge (root complex) is shared; 2: the root port above a
  // switch; more: a switch's upstream port. One switch between them: both paths continue with
  // exactly a downstream port and the device.
  if (common == 1) return "PHB";
  if (common >= 3 && a.size() - common == 2 && b.size() - common == 2) return "PIX";
  return "PXB";
}

int PcieRelationRank(std::string_view relation) {
  static constexpr std::string_view kOrder[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
  for (int i = 0; i < 5; ++i) {
    if (relation == kOrder[i]) return i;
  }
  return 5;
}

Reading<InfinibandState> ReadInfiniband(const HostPaths& paths,
                                        const Reading<std::vector<GpuPciTopology>>& gpus) {
  using R = Reading<InfinibandState>;
  const std::string dir = paths.Sys("class/infiniband");
  auto names = ListNames(dir, kMaxDevices);
  if (!names.ok()) {
    if (names.status().code() == StatusCode::kNotFound) {
      return R::Unsupported(dir + " absent (no RDMA devices)");
    }
    return R::Error(names.status().message());
  }
  InfinibandState st;
  for (const std::string& name : *names) st.devices.push_back(ReadDevice(paths, name));
  if (st.devices.empty()) return R::Unsupported(dir + " is empty (no RDMA devices)");

  if (gpus.has()) {
    for (const GpuPciTopology& g : *gpus) {
      GpuNicPath path;
      path.gpu_address = g.gpu.address;
      path.gpu_numa = g.gpu.numa_node;
      auto gpu_real = ResolveHostPath(paths, "/sys/bus/pci/devices/" + g.gpu.address);
      int best = 99;
      for (const IbDevice& d : st.devices) {
        if (d.sysfs_path.empty()) continue;
        Reading<int> nic_numa =
            d.pci.has() ? d.pci->numa_node : Reading<int>::Unsupported("no PCI function");
        if (path.gpu_numa.has() && nic_numa.has() && *nic_numa == *path.gpu_numa) {
          path.same_numa_nics.push_back(d.name);
        }
        std::string rel = PcieRelation(gpu_real.ok() ? *gpu_real : "", NumaOf(path.gpu_numa),
                                       d.sysfs_path, NumaOf(nic_numa));
        int rank = PcieRelationRank(rel);
        if (rank < best) {
          best = rank;
          path.nic = d.name;
          path.relation = rel;
          path.nic_numa = nic_numa;
        }
      }
      st.gpu_paths.push_back(std::move(path));
    }
  }
  return R::Of(std::move(st));
}

}  // namespace gpuvet
