// The device cgroup policy over the /dev/nvidia* nodes: which nodes the process's cgroup lets it
// open. cgroup v1 lists the policy in devices.list; cgroup v2 enforces it with an eBPF program
// that cannot be read from the filesystem, so an open() probe answers instead: EPERM (not EACCES)
// on an existing node is the device cgroup refusing it — the state a container is left in after
// `systemctl daemon-reload` re-applies the host's cgroup settings.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_paths.h"
#include "core/host_state.h"
#include "util/status.h"

namespace gpuvet {

// One devices.list rule: "c 195:* rwm", "a *:* rwm". -1 stands for '*'.
struct DeviceRule {
  char type = 'a';  // 'a' all, 'c' char, 'b' block
  int major = -1, minor = -1;
  std::string access;  // subset of "rwm"
  std::string text;    // the line as read
};

// Parses devices.list text. InvalidInput naming the line for a malformed rule.
Result<std::vector<DeviceRule>> ParseDevicesList(std::string_view text);

// The first rule allowing read+write access to char device major:minor, or nullptr.
const DeviceRule* AllowingRule(const std::vector<DeviceRule>& rules, int major, int minor);

// Character device majors by driver name from /proc/devices ("195 nvidia-frontend").
std::map<std::string, int> ParseProcDevices(std::string_view text);

// The major:minor a /dev node name stands for when stat cannot tell (fixture trees hold regular
// files): nvidiaN -> frontend:N, nvidiactl -> frontend:255, nvidia-modeset -> frontend:254,
// nvidia-uvm -> uvm:0, nvidia-uvm-tools -> uvm:1. The frontend major is 195 when /proc/devices
// does not say. {-1,-1} for other names or an unknown uvm major.
std::pair<int, int> NvidiaDeviceNumber(std::string_view name,
                                       const std::map<std::string, int>& majors);

// Opens `path` read-write as CUDA would and closes it; returns 0 or the errno.
using DeviceProbe = int (*)(const std::string& path);
int OpenProbe(const std::string& path);

// Reads the policy of `pid`'s cgroup (0 = gpuvet itself) over the existing nodes in `nodes`:
// v1 devices.list through `paths` (the process's devices cgroup, or the mount root when its
// directory is not visible), or on v2 the note saying what cannot be seen. Each existing real
// character device is probed with `probe` unless it is null (the caller passes null where a probe
// would not answer the question: another process's access, or outside a container, where opening
// every GPU again only costs time); fixture files are never probed.
DeviceCgroupState ReadDeviceCgroup(const HostPaths& paths, int pid,
                                   const std::vector<DeviceNode>& nodes,
                                   DeviceProbe probe = OpenProbe);

}  // namespace gpuvet
