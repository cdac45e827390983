// nsys enum ids and CUDA API names to trace-model kinds. Ids are those of the nsys "SQLite Schema
// Event Values" documentation (nsys 2021.5+) and CUPTI's CUpti_ActivitySynchronizationType.
#include "sources/trace/nsys_kinds.h"

#include <array>

#include "util/strings.h"

namespace gpuvet {

namespace {

struct CopyKindInfo {
  std::string_view symbol;  // after "CUDA_MEMCPY_KIND_"
  std::string_view label;
  CopyKind kind;
};

// ENUM_CUDA_MEMCPY_OPER, index = documented id.
constexpr std::array<CopyKindInfo, 14> kCopyKinds = {{
    {"UNKNOWN", "Unknown", CopyKind::kOther},
    {"HTOD", "HtoD", CopyKind::kHtoD},
    {"DTOH", "DtoH", CopyKind::kDtoH},
    {"HTOA", "HtoA", CopyKind::kHtoD},  // a CUDA array lives in device memory
    {"ATOH", "AtoH", CopyKind::kDtoH},
    {"ATOA", "AtoA", CopyKind::kDtoD},
    {"ATOD", "AtoD", CopyKind::kDtoD},
    {"DTOA", "DtoA", CopyKind::kDtoD},
    {"DTOD", "DtoD", CopyKind::kDtoD},
    {"HTOH", "HtoH", CopyKind::kHtoH},
    {"PTOP", "PtoP", CopyKind::kPtoP},
    {"UVM_HTOD", "UVM HtoD", CopyKind::kHtoD},
    {"UVM_DTOH", "UVM DtoH", CopyKind::kDtoH},
    {"UVM_DTOD", "UVM DtoD", CopyKind::kDtoD},
}};

struct MemKindInfo {
  std::string_view symbol;  // after "CUDA_MEMOPR_MEMORY_KIND_"
  std::string_view label;
  MemKind kind;
};

// ENUM_CUDA_MEM_KIND, index = documented id.
constexpr std::array<MemKindInfo, 8> kMemKinds = {{
    {"PAGEABLE", "Pageable", MemKind::kPageable},
    {"PINNED", "Pinned", MemKind::kPinned},
    {"DEVICE", "Device", MemKind::kDevice},
    {"ARRAY", "Array", MemKind::kArray},
    {"MANAGED", "Managed", MemKind::kManaged},
    {"DEVICE_STATIC", "Device Static", MemKind::kDevice},
    {"MANAGED_STATIC", "Managed Static", MemKind::kManaged},
    {"UNKNOWN", "Unknown", MemKind::kUnknown},
}};

struct SyncTypeInfo {
  std::string_view symbol;  // after "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_"
  std::string_view label;
  RuntimeKind kind;
};

// ENUM_CUPTI_SYNC_TYPE, index = documented id (CUpti_ActivitySynchronizationType).
constexpr std::array<SyncTypeInfo, 5> kSyncTypes = {{
    {"UNKNOWN", "Unknown", RuntimeKind::kOther},
    {"EVENT_SYNCHRONIZE", "Event sync", RuntimeKind::kEventSync},
    {"STREAM_WAIT_EVENT", "Stream wait sync", RuntimeKind::kOther},  // GPU-side wait only
    {"STREAM_SYNCHRONIZE", "Stream sync", RuntimeKind::kStreamSync},
    {"CONTEXT_SYNCHRONIZE", "Context sync", RuntimeKind::kDeviceSync},
}};

template <typename Table>
int FindSymbol(const Table& table, std::string_view prefix, std::string_view symbol) {
  if (StartsWith(symbol, prefix)) symbol.remove_prefix(prefix.size());
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].symbol == symbol) return static_cast<int>(i);
  }
  return -1;
}

bool StartsWithAny(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes) {
    if (StartsWith(name, p)) return true;
  }
  return false;
}

}  // namespace

int DocumentedNsysId(NsysEnum which, std::string_view symbol) {
  switch (which) {
    case NsysEnum::kMemcpyOper:
      return FindSymbol(kCopyKinds, "CUDA_MEMCPY_KIND_", symbol);
    case NsysEnum::kMemKind:
      return FindSymbol(kMemKinds, "CUDA_MEMOPR_MEMORY_KIND_", symbol);
    case NsysEnum::kSyncType:
      return FindSymbol(kSyncTypes, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_", symbol);
  }
  return -1;
}

CopyKind CopyKindFromNsys(int id) {
  if (id < 0 || id >= static_cast<int>(kCopyKinds.size())) return CopyKind::kOther;
  return kCopyKinds[id].kind;
}

std::string_view CopyKindLabel(int id) {
  if (id < 0 || id >= static_cast<int>(kCopyKinds.size())) return "Unknown";
  return kCopyKinds[id].label;
}

MemKind MemKindFromNsys(int id) {
  if (id < 0 || id >= static_cast<int>(kMemKinds.size())) return MemKind::kUnknown;
  return kMemKinds[id].kind;
}

std::string_view MemKindLabel(int id) {
  if (id < 0 || id >= static_cast<int>(kMemKinds.size())) return "Unknown";
  return kMemKinds[id].label;
}

RuntimeKind SyncTypeKind(int id) {
  if (id < 0 || id >= static_cast<int>(kSyncTypes.size())) return RuntimeKind::kOther;
  return kSyncTypes[id].kind;
}

std::string_view SyncTypeLabel(int id) {
  if (id < 0 || id >= static_cast<int>(kSyncTypes.size())) return "Unknown";
  return kSyncTypes[id].label;
}

std::string_view StripApiVersionSuffix(std::string_view name) {
  size_t pos = name.rfind("_v");
  if (pos == std::string_view::npos || pos + 2 == name.size()) return name;
  for (size_t i = pos + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, pos);
}

RuntimeKind ClassifyRuntimeApi(std::string_view name) {
  name = StripApiVersionSuffix(name);
  if (StartsWithAny(name, {"cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch"})) {
    return RuntimeKind::kGraphLaunch;
  }
  if (name == "cudaLaunch" || name == "cudaLaunch_ptsz" ||
      StartsWithAny(name, {"cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cuLaunchKernel",
                           "cuLaunchCooperativeKernel", "cuLaunchGrid", "hipLaunchKernel",
                           "hipModuleLaunchKernel", "hipExtLaunchKernel",
                           "hipExtModuleLaunchKernel", "hipLaunchCooperativeKernel"})) {
    return RuntimeKind::kLaunch;
  }
  if (StartsWithAny(name, {"cudaMemset", "cuMemset", "hipMemset"})) return RuntimeKind::kMemset;
  if (StartsWithAny(name, {"cudaMemcpy", "cuMemcpy", "hipMemcpy"})) {
    return name.find("Async") != std::string_view::npos ? RuntimeKind::kMemcpyAsync
                                                        : RuntimeKind::kMemcpy;
  }
  if (StartsWithAny(name, {"cudaDeviceSynchronize", "cuCtxSynchronize", "hipDeviceSynchronize"})) {
    return RuntimeKind::kDeviceSync;
  }
  if (StartsWithAny(name,
                    {"cudaStreamSynchronize", "cuStreamSynchronize", "hipStreamSynchronize"})) {
    return RuntimeKind::kStreamSync;
  }
  if (StartsWithAny(name, {"cudaEventSynchronize", "cuEventSynchronize", "hipEventSynchronize"})) {
    return RuntimeKind::kEventSync;
  }
  return RuntimeKind::kOther;
}

}  // namespace gpuvet
