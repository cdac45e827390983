// CudaLibrary: the CUDA driver API (libcuda.so.1) opened at run time with dlopen, one function
// pointer per entry of CUDA_API_FUNCTIONS (cuda_api.h), so `gpuvet bench` needs no toolkit to
// build or run. Also the CUresult name table used in messages and by the fake driver's scenarios,
// and LoadPtxModule, which JIT-compiles PTX and surfaces the JIT error log on failure.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "sources/cuda/cuda_api.h"
#include "util/status.h"

namespace gpuvet {

// The driver call in flight, readable from another thread: `gpuvet bench`'s watchdog names the call
// a wedged GPU hangs in and says for how long. Lock-free; one tracker per library. With several
// threads calling at once it shows the latest call entered (the benchmarks call from one thread).
class CudaCallTracker {
 public:
  void Enter(const char* name) noexcept;
  void Leave() noexcept;
  // The name of the call in flight and the seconds since it was entered; {nullptr, 0} when none.
  std::pair<const char*, double> InFlight() const noexcept;

 private:
  std::atomic<const char*> name_{nullptr};
  std::atomic<int64_t> started_ns_{0};  // CLOCK_MONOTONIC
};

// The loaded driver library. Thread-safe to call from any thread (the driver API is). The library
// is never dlclose'd: the driver starts threads of its own that may outlive any owner.
class CudaLibrary {
 public:
  // Opens `path_or_empty` (or "libcuda.so.1" through the loader search path when empty) with
  // RTLD_NOW | RTLD_LOCAL and resolves every CUDA_API_FUNCTIONS symbol. Unavailable with the
  // dlopen error when the library cannot be opened; Unavailable naming the symbol when a required
  // function is missing. Optional functions that are missing answer CUDA_ERROR_NOT_FOUND.
  static Result<std::unique_ptr<CudaLibrary>> Load(const std::string& path_or_empty);

  CudaLibrary(const CudaLibrary&) = delete;
  CudaLibrary& operator=(const CudaLibrary&) = delete;
  ~CudaLibrary() = default;  // deliberately no dlclose (see class comment)

  // The file actually loaded (resolved by the dynamic loader), for the report.
  const std::string& path() const { return path_; }

  // Every later call is entered into `tracker` (may be null: none), which must outlive the
  // library's use. Set before calls start on other threads.
  void set_tracker(CudaCallTracker* tracker) { tracker_ = tracker; }

  // One method per driver function, named and typed as the exported symbol in cuda.h
  // (cuMemAlloc_v2, not the cuMemAlloc macro); forwards to the library or answers
  // CUDA_ERROR_NOT_FOUND when an optional symbol is absent.
#define GPUVET_CUDA_METHOD(name, params, args, required)   \
  CUresult name params const {                             \
    if (fns_.name == nullptr) return CUDA_ERROR_NOT_FOUND; \
    if (tracker_ == nullptr) return fns_.name args;        \
    tracker_->Enter(#name);                                \
    const CUresult rc = fns_.name args;                    \
    tracker_->Leave();                                     \
    return rc;                                             \
  }
  CUDA_API_FUNCTIONS(GPUVET_CUDA_METHOD)
#undef GPUVET_CUDA_METHOD

  // True when the library exports `name`'s symbol (optional functions may be absent).
#define GPUVET_CUDA_HAS(name, params, args, required) \
  bool has_##name() const { return fns_.name != nullptr; }
  CUDA_API_FUNCTIONS(GPUVET_CUDA_HAS)
#undef GPUVET_CUDA_HAS

 private:
  CudaLibrary() = default;

  struct Functions {
#define GPUVET_CUDA_POINTER(name, params, args, required) CUresult(*name) params = nullptr;
    CUDA_API_FUNCTIONS(GPUVET_CUDA_POINTER)
#undef GPUVET_CUDA_POINTER
  };

  Functions fns_;
  std::string path_;
  CudaCallTracker* tracker_ = nullptr;
};

// The symbolic name from the built-in table ("CUDA_ERROR_INVALID_PTX", "CUDA_SUCCESS");
// "CUDA_ERROR_UNRECOGNISED" for a code the table does not hold.
std::string_view CudaErrorName(CUresult code);

// The built-in description of `code` ("a PTX JIT compilation failed"), as cuGetErrorString words
// it; "unrecognised CUDA error code" for a code the table does not hold.
std::string_view CudaErrorDescription(CUresult code);

// The code for a name as CudaErrorName writes it ("CUDA_ERROR_NO_DEVICE", "CUDA_SUCCESS"), also
// accepted without the "CUDA_ERROR_" prefix ("NO_DEVICE"); nullopt otherwise. Case-sensitive.
std::optional<CUresult> CudaErrorFromName(std::string_view name);

// "a PTX JIT compilation failed (CUDA_ERROR_INVALID_PTX = 218)": the driver's own name and text
// (cuGetErrorName/cuGetErrorString) when it exports them and knows the code, else the built-in
// table, so messages name newer codes a driver knows and gpuvet does not.
std::string DescribeCudaError(const CudaLibrary& lib, CUresult code);

// JIT-compiles the PTX text `ptx` for the current context's device with cuModuleLoadDataEx,
// passing info and error log buffers. Returns the module (the caller unloads it with
// cuModuleUnload). On failure: Unavailable naming the call and the error, followed by the JIT
// error log when the driver wrote one (the log points at the PTX line that failed). Requires a
// current context (cuCtxSetCurrent), as the driver does.
Result<CUmodule> LoadPtxModule(const CudaLibrary& lib, std::string_view ptx);

}  // namespace gpuvet
