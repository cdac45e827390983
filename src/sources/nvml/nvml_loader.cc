// dlopen loader for NVML and the return-code table. The symbol loop is generated from
// NVML_API_FUNCTIONS, so adding a function to nvml_api.h is the only step needed to load it.
#include "sources/nvml/nvml_loader.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include "util/dynamic_library.h"

namespace gpuvet {

namespace {

// NVML's default soname: the versioned name is what the driver package installs everywhere (the
// unversioned libnvidia-ml.so exists only with development packages).
constexpr char kDefaultLibrary[] = "libnvidia-ml.so.1";

struct ErrorInfo {
  int code;
  std::string_view name;
  std::string_view description;
};

// Names from nvml.h nvmlReturn_enum; descriptions as nvmlErrorString returns them.
constexpr ErrorInfo kErrors[] = {
    {NVML_SUCCESS, "SUCCESS", "Success"},
    {NVML_ERROR_UNINITIALIZED, "UNINITIALIZED", "Uninitialized"},
    {NVML_ERROR_INVALID_ARGUMENT, "INVALID_ARGUMENT", "Invalid Argument"},
    {NVML_ERROR_NOT_SUPPORTED, "NOT_SUPPORTED", "Not Supported"},
    {NVML_ERROR_NO_PERMISSION, "NO_PERMISSION", "Insufficient Permissions"},
    {NVML_ERROR_ALREADY_INITIALIZED, "ALREADY_INITIALIZED", "Already Initialized"},
    {NVML_ERROR_NOT_FOUND, "NOT_FOUND", "Not Found"},
    {NVML_ERROR_INSUFFICIENT_SIZE, "INSUFFICIENT_SIZE", "Insufficient Size"},
    {NVML_ERROR_INSUFFICIENT_POWER, "INSUFFICIENT_POWER", "Insufficient External Power"},
    {NVML_ERROR_DRIVER_NOT_LOADED, "DRIVER_NOT_LOADED", "Driver Not Loaded"},
    {NVML_ERROR_TIMEOUT, "TIMEOUT", "Timeout"},
    {NVML_ERROR_IRQ_ISSUE, "IRQ_ISSUE", "Interrupt Request Issue"},
    {NVML_ERROR_LIBRARY_NOT_FOUND, "LIBRARY_NOT_FOUND", "NVML Shared Library Not Found"},
    {NVML_ERROR_FUNCTION_NOT_FOUND, "FUNCTION_NOT_FOUND", "Function Not Found"},
    {NVML_ERROR_CORRUPTED_INFOROM, "CORRUPTED_INFOROM", "Corrupted infoROM"},
    {NVML_ERROR_GPU_IS_LOST, "GPU_IS_LOST", "GPU is lost"},
    {NVML_ERROR_RESET_REQUIRED, "RESET_REQUIRED", "GPU requires restart"},
    {NVML_ERROR_OPERATING_SYSTEM, "OPERATING_SYSTEM",
     "The operating system has blocked the request"},
    {NVML_ERROR_LIB_RM_VERSION_MISMATCH, "LIB_RM_VERSION_MISMATCH",
     "RM has detected an NVML/RM version mismatch"},
    {NVML_ERROR_IN_USE, "IN_USE", "In use by another client"},
    {NVML_ERROR_MEMORY, "MEMORY", "Insufficient Memory"},
    {NVML_ERROR_NO_DATA, "NO_DATA", "No data"},
    {NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "ARGUMENT_VERSION_MISMATCH", "Struct version mismatch"},
    {NVML_ERROR_UNKNOWN, "UNKNOWN", "Unknown Error"},
};

const ErrorInfo* FindError(int code) {
  for (const ErrorInfo& e : kErrors) {
    if (e.code == code) return &e;
  }
  return nullptr;
}

}  // namespace

Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Load(const std::string& path_or_empty) {
  const std::string name = path_or_empty.empty() ? kDefaultLibrary : path_or_empty;
  Result<OpenedLibrary> opened = OpenLibrary(name);
  if (!opened.ok()) return opened.status();
  void* handle = opened->handle;
  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary());
  lib->path_ = opened->path;

  void* symbol = nullptr;
#define GPUVET_NVML_RESOLVE(fn, params, args, required)                                           \
  symbol = dlsym(handle, #fn);                                                                    \
  if (symbol == nullptr && (required)) {                                                          \
    dlclose(handle); /* nothing has been called yet, so closing is safe */                        \
    return Unavailable(fmt::format("{}: required NVML function {} is missing", lib->path_, #fn)); \
  }                                                                                               \
  lib->fns_.fn = reinterpret_cast<decltype(lib->fns_.fn)>(symbol);
  NVML_API_FUNCTIONS(GPUVET_NVML_RESOLVE)
#undef GPUVET_NVML_RESOLVE
  return lib;
}

std::string_view NvmlErrorName(int code) {
  const ErrorInfo* e = FindError(code);
  return e != nullptr ? e->name : "UNRECOGNISED";
}

std::string_view NvmlErrorDescription(int code) {
  const ErrorInfo* e = FindError(code);
  return e != nullptr ? e->description : "Unrecognised NVML return code";
}

std::string DescribeNvmlError(int code) {
  const std::string_view prefix = code == NVML_SUCCESS ? "NVML_" : "NVML_ERROR_";
  return fmt::format("{} ({}{} = {})", NvmlErrorDescription(code), prefix, NvmlErrorName(code),
                     code);
}

std::optional<int> NvmlErrorFromName(std::string_view name) {
  if (name == "NVML_SUCCESS") return NVML_SUCCESS;
  constexpr std::string_view kPrefix = "NVML_ERROR_";
  if (name.substr(0, kPrefix.size()) == kPrefix) name.remove_prefix(kPrefix.size());
  for (const ErrorInfo& e : kErrors) {
    if (e.name == name) return e.code;
  }
  return std::nullopt;
}

}  // namespace gpuvet
