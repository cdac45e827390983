// Nsight Systems SQLite export reader (`nsys export --type sqlite`, nsys 2020-2025) for
// `gpuvet trace`: kernels, memcpy/memset, CUDA runtime calls, synchronisation and NVTX ranges into
// the shared trace model (core/trace/trace.h). Queries are built from the tables and columns the
// file actually has, because each nsys version exports a slightly different schema.
#pragma once

#include <string>
#include <vector>

#include "core/trace/trace.h"
#include "util/status.h"

namespace gpuvet {

// Reads the export at `path` read-only (the file is never modified; a lock held by a writer is
// waited on for at most 2 s) into RankTraces with format "nsys-sqlite", one per (process, device)
// with CUDA activity (nsys_split.h: a `nsys profile torchrun ...` export holds one process per
// rank; a single-process single-GPU export gives exactly one):
// - gpu_ops: CUPTI_ACTIVITY_KIND_KERNEL (name: demangledName, else shortName, else mangledName),
//   _MEMCPY (copyKind/srcKind/dstKind via the ENUM_ tables when present, else the documented
//   nsys constants; named as Kineto names them, "Memcpy HtoD (Pageable -> Device)") and _MEMSET
//   ("Memset (Device)"); graph_launched when graphNodeId is set or the correlation id is that of
//   a cudaGraphLaunch. _GRAPH_TRACE rows (whole-graph executions, `--cuda-graph-trace=graph`)
//   are graph-launched kernels named "CUDA graph <graphId>" (deviceId INT_MAX, a graph whose
//   first node ran on the host, is read as the process's only device, else -1).
// - runtime: CUPTI_ACTIVITY_KIND_RUNTIME, names without nsys's "_v<N>" version suffix
//   ("cudaLaunchKernel_v7000" -> "cudaLaunchKernel"), tid = globalTid's thread part; plus
//   host-blocking _SYNCHRONIZATION records whose correlation id has no runtime call.
// - steps / annotations: NVTX push/pop and start/end ranges; "ProfilerStep#N" ranges are steps.
// - process: globalPid of GPU ops, globalTid of host events; rank: MPI_RANKS (globalTid, rank).
// All vectors are sorted by start_ns. Missing optional tables or columns give fewer events and a
// warning; rows without start/end are skipped with a warning. A file shorter than its header
// declares is read as far as it goes (truncated = true, warnings); corruption met mid-table
// keeps the rows before it. Errors: NotFound/PermissionDenied when the file cannot be read;
// InvalidInput, naming the file and what was expected, for an empty or non-SQLite file, one
// without any CUPTI_ACTIVITY_KIND_ table, or a corrupt/truncated one from which nothing could be
// read. Memory is the model's size plus SQLite's page cache; rows are stepped, never buffered.
Result<std::vector<RankTrace>> ReadNsysSqlite(const std::string& path);

}  // namespace gpuvet
