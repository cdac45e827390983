// Container detection: whether gpuvet (or the process it inspects) runs inside a container, which
// runtime made it, and the evidence for that — /.dockerenv, /run/.containerenv, container cgroup
// paths in /proc/1/cgroup and /proc/PID/cgroup (docker, kubepods, libpod, crio, containerd, lxc),
// an overlay root in /proc/PID/mountinfo, and the "container" / KUBERNETES_SERVICE_HOST variables.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/host_paths.h"
#include "core/host_state.h"

namespace gpuvet {

// The runtime a cgroup path names ("docker", "kubernetes", "podman", "cri-o", "containerd",
// "lxc"), or "" for a host path ("/", "/user.slice/…", "/system.slice/ssh.service").
std::string_view RuntimeFromCgroupPath(std::string_view path);

// True when /proc/PID/mountinfo text mounts "/" from an overlay filesystem (the image layers of
// docker, podman and containerd). Garbled lines are skipped.
bool MountinfoHasOverlayRoot(std::string_view mountinfo);

// Detects the container from the files above (through `paths`) and the variables in `env`
// (already read). `pid` 0 means gpuvet itself (/proc/self). Never fails: unreadable files are
// simply not evidence. The runtime is the most specific one found (kubernetes over the
// containerd/cri-o/docker underneath it).
void DetectContainer(const HostPaths& paths, int pid, const GpuEnvironment& env,
                     ContainerState* out);

}  // namespace gpuvet
