// HostPaths: the one place that turns a host path ("/proc/meminfo") into the path gpuvet reads
// (`--root DIR` + path). Every source takes a HostPaths, so every source runs on a fixture tree.
#pragma once

#include <string>
#include <string_view>

namespace gpuvet {

class HostPaths {
 public:
  // `root` is "" or "/" for the live system, or a directory holding proc/, sys/, dev/.
  explicit HostPaths(std::string root = "");

  // root + host_path; `host_path` must be absolute ("/sys/bus/pci/devices").
  std::string Resolve(std::string_view host_path) const;

  std::string Proc(std::string_view rel) const;  // Resolve("/proc/" + rel)
  std::string Sys(std::string_view rel) const;   // Resolve("/sys/" + rel)
  std::string Dev(std::string_view rel) const;   // Resolve("/dev/" + rel)

  const std::string& root() const { return root_; }
  bool is_live() const { return root_.empty(); }

 private:
  std::string root_;  // without trailing slash; "" for the live system
};

}  // namespace gpuvet
