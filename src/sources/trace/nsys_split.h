// One Nsight Systems export can hold several processes (`nsys profile torchrun ...`, a DDP job
// under one nsys session), each driving its own GPU, or one process driving several GPUs. The
// analyses work per rank on one GPU's timeline, so the reader's single read is split here into one
// RankTrace per (process, device), named from MPI_RANKS where the export has it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "core/trace/trace.h"

namespace gpuvet {

// Which process each event of a RankTrace came from, filled by the reader alongside the trace.
// Each vector parallels the trace vector of the same name (same length, same order); -1 where
// the export does not say (no globalPid/globalTid column or a NULL in it).
struct NsysOwners {
  std::vector<int64_t> op_pid;
  std::vector<int64_t> call_pid;
  std::vector<int64_t> step_pid;
  std::vector<int64_t> annotation_pid;
  std::map<int64_t, std::set<int>> ranks;  // MPI_RANKS: pid -> the ranks its threads claim
};

// nsys serialises globalTid as (pid << 24) | tid and globalPid as pid << 24.
inline int64_t PidOfGlobalId(int64_t global_id) { return global_id >> 24; }

// Splits `whole` (vectors in read order, owners parallel to them) into traces sorted by
// start_ns, one per (process, device) with GPU activity or runtime calls:
// - GPU ops go to their (pid, device); a runtime call goes to the device of the GPU op with its
//   correlation id in the same process, else (syncs, calls that enqueue nothing) to every device
//   of its process; NVTX steps and annotations go to every device of their process.
// - Events whose process is unknown belong to the only process when there is one; GPU ops of
//   unknown device (-1: a graph whose first node ran on the host) get the process's only device.
// - A process whose threads MPI_RANKS maps to exactly one rank gets that rank, unless it drives
//   several devices (rank -1 then, so they do not look like one rank given twice); otherwise -1.
// - `part` says which process/device a trace is when the export held several ("pid 4242,
//   device 1", "rank 3, pid 4242, device 1"); "" when a rank alone names it.
// When the export holds one process on at most one device (or more than 1024 process/device
// pairs: corrupt ids, warned), the result is `whole` alone (rank: that process's in MPI_RANKS,
// else the export's only rank there). Host events of processes without any CUDA activity
// (a launcher's NVTX ranges) and of unknown processes are dropped with a warning when there are
// several processes. names, warnings, source, format, input_bytes and truncated are copied to
// every part; events_seen counts each part's own events. device_type is "cuda" where a part has
// GPU ops.
std::vector<RankTrace> SplitNsysTrace(RankTrace whole, const NsysOwners& owners);

}  // namespace gpuvet
