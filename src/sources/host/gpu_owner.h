// GPU process owners: for each PID NVML lists on a GPU, the Slurm job or Kubernetes pod and
// container it belongs to and its user, read from /proc/PID/{status,cgroup,environ} and
// /etc/passwd through HostPaths. Parsers are pure; ReadGpuProcessOwners does the reading.
//
// Layouts recognised in a cgroup path (any line of /proc/PID/cgroup, v1 or v2):
//   Slurm v1   /slurm/uid_1000/job_4242/step_0/task_0 (also /slurm_<node>/… with multiple slurmd)
//   Slurm v2   /system.slice/slurmstepd.scope/job_4242/step_0/user/task_0 (or <node>_slurmstepd)
//   k8s v1/v2 cgroupfs  /kubepods/burstable/pod<UID>/<CID>, /kubepods/pod<UID>/<CID> (guaranteed)
//   k8s systemd  /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<UID>.slice/
//                cri-containerd-<CID>.scope (also docker-<CID>.scope, crio-<CID>.scope)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_paths.h"
#include "core/host_state.h"

namespace gpuvet {

// Fills the Slurm and Kubernetes fields of `owner` (slurm_job, pod_uid, container_id,
// container_runtime, qos, cgroup) from one cgroup path. Returns false when the path shows
// neither a Slurm job nor a pod.
bool OwnerFromCgroupPath(std::string_view path, GpuProcessOwner& owner);

// Applies OwnerFromCgroupPath to each "ID:controllers:path" line of /proc/PID/cgroup; the first
// line that names an owner wins (Slurm v1 may place the job in only some controllers). Lines
// that are not of that form are skipped. With no owner, `cgroup` is the unified (or first) path.
void OwnerFromProcCgroup(std::string_view text, GpuProcessOwner& owner);

// SLURM_JOB_ID (or the older SLURM_JOBID) from a NUL-separated /proc/PID/environ; nullopt when
// absent or not all digits.
std::optional<std::string> SlurmJobFromEnviron(std::string_view environ);

// The real uid ("Uid:" first field) and the Name of /proc/PID/status; missing ones stay empty.
void OwnerFromProcStatus(std::string_view status, GpuProcessOwner& owner);

// The login name of `uid` in /etc/passwd text; "" when not listed.
std::string UserNameOf(std::string_view passwd, uint32_t uid);

// The owner of the process whose /proc entry is `proc_entry` ("4242", or "self": a workload
// gpuvet spawns inherits its cgroup, uid and Slurm environment). `pid` is what the result
// carries. `passwd` caches /etc/passwd across calls (nullopt: not read yet).
GpuProcessOwner ReadProcessOwner(const HostPaths& paths, const std::string& proc_entry,
                                 uint32_t pid, std::optional<std::string>* passwd);

// One owner per distinct PID in `pids` (sorted by PID; 0 is skipped). A process whose /proc entry
// is gone, or that lives in another PID namespace than `paths` shows, gets a note and nothing
// else; an unreadable environ (another user's process without CAP_SYS_PTRACE) is a note too.
std::vector<GpuProcessOwner> ReadGpuProcessOwners(const HostPaths& paths,
                                                  std::vector<uint32_t> pids);

}  // namespace gpuvet
