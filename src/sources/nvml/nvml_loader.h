// NvmlLibrary: libnvidia-ml.so.1 opened at run time with dlopen, one function pointer per entry of
// NVML_API_FUNCTIONS (nvml_api.h), so gpuvet builds and runs on hosts without the NVIDIA driver.
// Also the NVML return-code names ("NOT_SUPPORTED") used in messages and scenario files.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "sources/nvml/nvml_api.h"
#include "util/status.h"

namespace gpuvet {

// The loaded NVML library. Thread-safe to call from any thread (NVML is). The library is never
// dlclose'd: a call that hung lives on in a detached thread and may still be running inside it.
class NvmlLibrary {
 public:
  // Opens `path_or_empty` (or "libnvidia-ml.so.1" through the loader search path when empty) with
  // RTLD_NOW | RTLD_LOCAL and resolves every NVML_API_FUNCTIONS symbol. Unavailable with the
  // dlopen error when the library cannot be opened; Unavailable naming the symbol when a required
  // function is missing. Optional functions that are missing answer NVML_ERROR_FUNCTION_NOT_FOUND.
  static Result<std::unique_ptr<NvmlLibrary>> Load(const std::string& path_or_empty);

  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;
  ~NvmlLibrary() = default;  // deliberately no dlclose (see class comment)

  // The file actually loaded (resolved by the dynamic loader), for the report.
  const std::string& path() const { return path_; }

  // One method per NVML function, named and typed as in nvml.h; forwards to the library or answers
  // NVML_ERROR_FUNCTION_NOT_FOUND when the symbol is absent.
#define GPUVET_NVML_METHOD(name, params, args, required)               \
  nvmlReturn_t name params const {                                     \
    return fns_.name ? fns_.name args : NVML_ERROR_FUNCTION_NOT_FOUND; \
  }
  NVML_API_FUNCTIONS(GPUVET_NVML_METHOD)
#undef GPUVET_NVML_METHOD

 private:
  NvmlLibrary() = default;

  struct Functions {
#define GPUVET_NVML_POINTER(name, params, args, required) nvmlReturn_t(*name) params = nullptr;
    NVML_API_FUNCTIONS(GPUVET_NVML_POINTER)
#undef GPUVET_NVML_POINTER
  };

  Functions fns_;
  std::string path_;
};

// The return-code name without the NVML_ERROR_ prefix: "SUCCESS", "NOT_SUPPORTED", "GPU_IS_LOST";
// "UNRECOGNISED" for a code nvml.h does not define.
std::string_view NvmlErrorName(int code);

// The human description nvmlErrorString gives for `code`: "Not Supported", "GPU is lost".
std::string_view NvmlErrorDescription(int code);

// "Unknown Error (NVML_ERROR_UNKNOWN = 999)": description, symbolic name and number, for messages.
std::string DescribeNvmlError(int code);

// The code for a name as NvmlErrorName writes it, with or without the "NVML_ERROR_" prefix
// ("SUCCESS" / "NVML_SUCCESS" too); nullopt for anything else. Case-sensitive.
std::optional<int> NvmlErrorFromName(std::string_view name);

}  // namespace gpuvet
