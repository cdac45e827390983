// What nsys's numeric enums and CUDA API names mean in the trace model: ENUM_CUDA_MEMCPY_OPER,
// ENUM_CUDA_MEM_KIND and ENUM_CUPTI_SYNC_TYPE ids (as documented in the nsys "SQLite Schema Event
// Values" page) and runtime/driver API names to RuntimeKind. Kept apart from the reader so the
// tables can be checked on their own and the reader stays about queries.
#pragma once

#include <string_view>

#include "core/trace/trace.h"

namespace gpuvet {

// The nsys enums whose symbols the reader maps.
enum class NsysEnum { kMemcpyOper, kMemKind, kSyncType };

// The documented id of an enum symbol as an export's ENUM_ table names it ("CUDA_MEMCPY_KIND_HTOD"
// -> 1, "CUDA_MEMOPR_MEMORY_KIND_PINNED" -> 1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_
// SYNCHRONIZE" -> 3), or -1 for a symbol not in the documented table. Used to translate an
// export's own ids when its ENUM_ table is present, so a renumbering cannot mislabel copies.
int DocumentedNsysId(NsysEnum which, std::string_view symbol);

// Direction of a copy with documented ENUM_CUDA_MEMCPY_OPER id `id` (array copies count as device
// side; unknown ids -> kOther), and its Kineto-style label ("HtoD", "PtoP", "Unknown").
CopyKind CopyKindFromNsys(int id);
std::string_view CopyKindLabel(int id);

// Memory kind with documented ENUM_CUDA_MEM_KIND id `id` (static variants fold into device and
// managed; unknown ids -> kUnknown), and its label ("Pageable", "Device Static", "Unknown").
MemKind MemKindFromNsys(int id);
std::string_view MemKindLabel(int id);

// The host-blocking kind of a documented ENUM_CUPTI_SYNC_TYPE id (event, stream or context
// synchronize), or kOther for stream-wait-event and unknown ids, which do not block the host;
// and nsys's label for it ("Event sync", "Stream sync", "Context sync", "Unknown"), used as the
// name of a synchronisation record that has no runtime call.
RuntimeKind SyncTypeKind(int id);
std::string_view SyncTypeLabel(int id);

// `name` without nsys's API version suffix: "cudaLaunchKernel_v7000" -> "cudaLaunchKernel",
// "cudaMemcpyAsync_ptsz_v7000" -> "cudaMemcpyAsync_ptsz". Other names are returned unchanged.
std::string_view StripApiVersionSuffix(std::string_view name);

// What a CUDA/HIP runtime or driver API call does, from its name (with or without a version
// suffix): cudaLaunchKernel*/cuLaunchKernel*/hipLaunchKernel* -> kLaunch, cudaGraphLaunch ->
// kGraphLaunch, cudaMemcpy* -> kMemcpy or (with "Async") kMemcpyAsync, cudaMemset* -> kMemset,
// cudaDeviceSynchronize/cuCtxSynchronize -> kDeviceSync, cudaStreamSynchronize -> kStreamSync,
// cudaEventSynchronize -> kEventSync; everything else kOther.
RuntimeKind ClassifyRuntimeApi(std::string_view name);

}  // namespace gpuvet
