// HostPaths implementation: plain concatenation; the root is normalised once.
#include "core/host_paths.h"

namespace gpuvet {

HostPaths::HostPaths(std::string root) : root_(std::move(root)) {
  while (!root_.empty() && root_.back() == '/') root_.pop_back();
}

std::string HostPaths::Resolve(std::string_view host_path) const {
  std::string out = root_;
  if (host_path.empty() || host_path.front() != '/') out += '/';
  out += host_path;
  return out;
}

std::string HostPaths::Proc(std::string_view rel) const {
  return Resolve(std::string("/proc/") + std::string(rel));
}
std::string HostPaths::Sys(std::string_view rel) const {
  return Resolve(std::string("/sys/") + std::string(rel));
}
std::string HostPaths::Dev(std::string_view rel) const {
  return Resolve(std::string("/dev/") + std::string(rel));
}

}  // namespace gpuvet
