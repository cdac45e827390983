// dlopen loader for the CUDA driver API, the CUresult table and the PTX JIT helper. The symbol
// loop is generated from CUDA_API_FUNCTIONS, so adding a function to cuda_api.h is the only step
// needed to load it.
#include "sources/cuda/cuda_loader.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

#include "util/dynamic_library.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// The driver's soname: the unversioned libcuda.so comes only with development packages (and the
// toolkit's stubs/libcuda.so is a stub that answers CUDA_ERROR_STUB_LIBRARY).
constexpr char kDefaultLibrary[] = "libcuda.so.1";

// Size of each JIT log buffer. ptxas-style messages are one line per problem; 16 KiB holds
// hundreds of them, far more than our few kernels can produce.
constexpr size_t kJitLogBytes = 16 * 1024;

struct ErrorInfo {
  CUresult code;
  std::string_view name;
  std::string_view description;
};

// Names from cuda.h cudaError_enum; descriptions as cuGetErrorString words them.
constexpr ErrorInfo kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE",
     "CUDA-capable device(s) is/are busy or unavailable"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_ECC_UNCORRECTABLE, "CUDA_ERROR_ECC_UNCORRECTABLE",
     "uncorrectable ECC error encountered"},
    {CUDA_ERROR_CONTEXT_ALREADY_IN_USE, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE",
     "exclusive-thread device already in use by a different thread"},
    {CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
     "peer access is not supported between these two devices"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_NVLINK_UNCORRECTABLE, "CUDA_ERROR_NVLINK_UNCORRECTABLE",
     "uncorrectable NVLink error detected during the execution"},
    {CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
     "PTX JIT compiler library not found"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain"},
    {CUDA_ERROR_INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"},
    {CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
    {CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM",
     "OS call failed or operation not supported on this OS"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "the launch timed out and was terminated"},
    {CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
     "peer access is already enabled"},
    {CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
     "peer access has not been enabled"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_SYSTEM_NOT_READY, "CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
    {CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
     "forward compatibility was attempted on non supported HW"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorInfo* FindError(CUresult code) {
  for (const ErrorInfo& e : kErrors) {
    if (e.code == code) return &e;
  }
  return nullptr;
}

// The NUL-terminated prefix of a log buffer the driver filled, trimmed ("" when untouched).
std::string LogText(const std::vector<char>& buffer) {
  const auto end = std::find(buffer.begin(), buffer.end(), '\0');
  return std::string(Trim(std::string_view(buffer.data(), end - buffer.begin())));
}

}  // namespace

namespace {
int64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
}  // namespace

void CudaCallTracker::Enter(const char* name) noexcept {
  started_ns_.store(MonotonicNs(), std::memory_order_relaxed);
  name_.store(name, std::memory_order_release);
}

void CudaCallTracker::Leave() noexcept { name_.store(nullptr, std::memory_order_release); }

std::pair<const char*, double> CudaCallTracker::InFlight() const noexcept {
  const char* name = name_.load(std::memory_order_acquire);
  if (name == nullptr) return {nullptr, 0};
  const int64_t started = started_ns_.load(std::memory_order_relaxed);
  return {name, static_cast<double>(MonotonicNs() - started) / 1e9};
}

Result<std::unique_ptr<CudaLibrary>> CudaLibrary::Load(const std::string& path_or_empty) {
  const std::string name = path_or_empty.empty() ? kDefaultLibrary : path_or_empty;
  Result<OpenedLibrary> opened = OpenLibrary(name);
  if (!opened.ok()) return opened.status();
  void* handle = opened->handle;
  std::unique_ptr<CudaLibrary> lib(new CudaLibrary());
  lib->path_ = opened->path;

  void* symbol = nullptr;
#define GPUVET_CUDA_RESOLVE(fn, params, args, required)                       \
  symbol = dlsym(handle, #fn);                                                \
  if (symbol == nullptr && (required)) {                                      \
    dlclose(handle); /* nothing has been called yet, so closing is safe */    \
    return Unavailable(                                                       \
        fmt::format("{}: required CUDA driver function {} is missing (not a " \
                    "CUDA driver library, or one older than CUDA 11)",        \
                    lib->path_, #fn));                                        \
  }                                                                           \
  lib->fns_.fn = reinterpret_cast<decltype(lib->fns_.fn)>(symbol);
  CUDA_API_FUNCTIONS(GPUVET_CUDA_RESOLVE)
#undef GPUVET_CUDA_RESOLVE
  return lib;
}

std::string_view CudaErrorName(CUresult code) {
  const ErrorInfo* e = FindError(code);
  return e != nullptr ? e->name : "CUDA_ERROR_UNRECOGNISED";
}

std::string_view CudaErrorDescription(CUresult code) {
  const ErrorInfo* e = FindError(code);
  return e != nullptr ? e->description : "unrecognised CUDA error code";
}

std::optional<CUresult> CudaErrorFromName(std::string_view name) {
  for (const ErrorInfo& e : kErrors) {
    if (e.name == name) return e.code;
    constexpr std::string_view kPrefix = "CUDA_ERROR_";
    if (StartsWith(e.name, kPrefix) && e.name.substr(kPrefix.size()) == name) return e.code;
  }
  return std::nullopt;
}

std::string DescribeCudaError(const CudaLibrary& lib, CUresult code) {
  std::string_view name = CudaErrorName(code);
  std::string_view text = CudaErrorDescription(code);
  const char* driver_name = nullptr;
  const char* driver_text = nullptr;
  // The driver answers CUDA_ERROR_INVALID_VALUE (and a null string) for a code it does not know.
  if (lib.cuGetErrorName(code, &driver_name) == CUDA_SUCCESS && driver_name != nullptr) {
    name = driver_name;
  }
  if (lib.cuGetErrorString(code, &driver_text) == CUDA_SUCCESS && driver_text != nullptr) {
    text = driver_text;
  }
  return fmt::format("{} ({} = {})", text, name, code);
}

Result<CUmodule> LoadPtxModule(const CudaLibrary& lib, std::string_view ptx) {
  const std::string image(ptx);  // the driver reads a NUL-terminated string
  std::vector<char> info_log(kJitLogBytes, '\0');
  std::vector<char> error_log(kJitLogBytes, '\0');
  int options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  // Sizes travel as integers cast to void*; the driver writes back how much it used.
  void* values[] = {info_log.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(kJitLogBytes)),
                    error_log.data(),
                    reinterpret_cast<void*>(static_cast<uintptr_t>(kJitLogBytes))};
  CUmodule module = nullptr;
  const CUresult rc =
      lib.cuModuleLoadDataEx(&module, image.c_str(), std::size(options), options, values);
  if (rc == CUDA_SUCCESS && module != nullptr) return module;
  std::string message =
      fmt::format("cuModuleLoadDataEx (PTX JIT): {}",
                  rc == CUDA_SUCCESS ? "returned no module" : DescribeCudaError(lib, rc));
  error_log.back() = '\0';  // never trust the driver to terminate a full buffer
  const std::string log = LogText(error_log);
  if (!log.empty()) message += fmt::format("; JIT error log: {}", log);
  return Unavailable(std::move(message));
}

}  // namespace gpuvet
