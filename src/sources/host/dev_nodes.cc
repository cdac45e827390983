// Device node checks with stat(2) and access(2). access() answers for the real uid, which is the
// user a job would run CUDA as; that is the question asked here.
#include "sources/host/dev_nodes.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace gpuvet {

DeviceNode ReadDeviceNode(const HostPaths& paths, const std::string& name) {
  DeviceNode node;
  node.path = "/dev/" + name;
  std::string real = paths.Dev(name);
  struct stat st;
  if (::stat(real.c_str(), &st) != 0) return node;
  node.exists = true;
  node.is_char_device = S_ISCHR(st.st_mode);
  node.mode = st.st_mode & 07777;
  node.readable = ::access(real.c_str(), R_OK) == 0;
  node.writable = ::access(real.c_str(), W_OK) == 0;
  return node;
}

std::vector<DeviceNode> ReadDeviceNodes(const HostPaths& paths,
                                        const std::vector<int>& gpu_minors) {
  std::vector<DeviceNode> nodes;
  nodes.push_back(ReadDeviceNode(paths, "nvidiactl"));
  nodes.push_back(ReadDeviceNode(paths, "nvidia-uvm"));
  std::vector<int> seen;
  for (int minor : gpu_minors) {
    if (minor < 0 || std::find(seen.begin(), seen.end(), minor) != seen.end()) continue;
    seen.push_back(minor);
    nodes.push_back(ReadDeviceNode(paths, "nvidia" + std::to_string(minor)));
  }
  return nodes;
}

}  // namespace gpuvet
