// GPU device nodes: whether /dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidiaN exist and whether
// this process may open them read-write, which is what CUDA needs. A missing node or a wrong mode
// makes CUDA fail or fall back to the CPU without a clear message.
#pragma once

#include <string>
#include <vector>

#include "core/host_paths.h"
#include "core/host_state.h"

namespace gpuvet {

// Inspects /dev/NAME (through `paths`): existence, char-device type and mode via stat (following a
// symlink to the node it names), and access(R_OK) / access(W_OK) by this process. `path` in the
// result is the host path "/dev/NAME". Fixture trees hold regular files, so is_char_device may be
// false there.
DeviceNode ReadDeviceNode(const HostPaths& paths, const std::string& name);

// Reads /dev/nvidiactl, /dev/nvidia-uvm, then /dev/nvidiaN for each minor in `gpu_minors` (in the
// given order, duplicates and negative values dropped).
std::vector<DeviceNode> ReadDeviceNodes(const HostPaths& paths, const std::vector<int>& gpu_minors);

}  // namespace gpuvet
