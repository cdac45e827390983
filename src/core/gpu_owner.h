// Who is on each GPU: the GPU's NVML process list joined with the owners the host source read
// (HostState::gpu_process_owners), grouped by owner. The one place the check, metrics and
// recording renderers get "job 4242 (alice)" from, so they agree.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/gpu_state.h"
#include "core/host_state.h"

namespace gpuvet {

// The processes of one owner on one GPU. An owner is (Slurm job, pod UID, container id, user);
// processes with nothing known about them share the owner with empty fields and their user.
struct GpuOwnerGroup {
  std::string job;           // Slurm job id
  std::string pod_uid;       // Kubernetes pod UID
  std::string container_id;  // container id (full)
  std::string user;          // login name, else "uid N", else ""
  std::vector<uint32_t> pids;
  std::vector<std::string> comms;  // distinct process names, in PID order
  uint64_t used_memory_bytes = 0;
  std::string note;  // the first process's note (why its owner is not known), if any
};

// The note of a process whose owner was not read at all (a capture from another host).
inline constexpr char kOwnerNotRead[] =
    "not read (a capture from another host, or the host side was not read)";

// The user label of an owner: its login name, "uid N" when only the uid is known, else "".
std::string OwnerUser(const GpuProcessOwner& owner);

// The owner groups of one GPU, in the order of their lowest PID. A PID without an entry in
// `owners` (the host side was not read, e.g. an offline capture) forms a group with only its PID.
std::vector<GpuOwnerGroup> GpuOwnerGroups(const GpuState& gpu,
                                          const std::vector<GpuProcessOwner>& owners);

// "job 4242", "pod 1f2e3d4c-… container 3a4b5c6d7e8f", or "" when neither is known; the user
// follows in parentheses when known: "job 4242 (alice)", "(uid 1000)" alone for plain processes.
std::string DescribeOwner(const GpuOwnerGroup& group);

// DescribeOwner of one process's owner ("job 4242 (alice)"); "" when nothing is known.
std::string DescribeProcessOwner(const GpuProcessOwner& owner);

// The owner as recording notes (core/recording.h RecordingMeta::notes): "owner" (the
// description), and "owner.slurm_job", "owner.pod_uid", "owner.container_id", "owner.user" where
// known. Nothing when nothing is known.
void AddOwnerNotes(const GpuProcessOwner& owner, std::map<std::string, std::string>* notes);

}  // namespace gpuvet
