// NCCL all-reduce bus bandwidth (bench_nccl.h). Unverified without GPUs: the declarations follow
// the public nccl.h of NCCL 2.x (stable C ABI).
#include "sources/bench/bench_nccl.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>

namespace gpuvet::bench {

namespace {

// ---- the subset of nccl.h used ----
using ncclResult_t = int;  // ncclSuccess = 0
using ncclComm_t = void*;
constexpr int kNcclFloat32 = 7;  // ncclFloat32 (ncclDataType_t)
constexpr int kNcclSum = 0;      // ncclSum (ncclRedOp_t)

// NCCL_FN(name, return type, parameter list)
#define NCCL_FUNCTIONS(NCCL_FN)                                          \
  NCCL_FN(ncclCommInitAll, ncclResult_t, (ncclComm_t*, int, const int*)) \
  NCCL_FN(ncclCommDestroy, ncclResult_t, (ncclComm_t))                   \
  NCCL_FN(ncclAllReduce, ncclResult_t,                                   \
          (const void*, void*, size_t, int, int, ncclComm_t, CUstream))  \
  NCCL_FN(ncclGroupStart, ncclResult_t, ())                              \
  NCCL_FN(ncclGroupEnd, ncclResult_t, ())                                \
  NCCL_FN(ncclGetErrorString, const char*, (ncclResult_t))

}  // namespace

class Nccl {
 public:
#define NCCL_POINTER(name, ret, params) ret(*name) params = nullptr;
  NCCL_FUNCTIONS(NCCL_POINTER)
#undef NCCL_POINTER

  Status Check(ncclResult_t rc, const char* call) const {
    if (rc == 0) return Status::Ok();
    const char* text = ncclGetErrorString != nullptr ? ncclGetErrorString(rc) : nullptr;
    return Internal(fmt::format("{}: {} (ncclResult_t {})", call, text ? text : "error", rc));
  }
};

Result<std::shared_ptr<const Nccl>> LoadNccl() {
  // GPUVET_NCCL_LIB names the library to load instead of libnccl.so.2; "none" turns NCCL off.
  std::string library = kNcclLibrary;
  if (const char* forced = std::getenv("GPUVET_NCCL_LIB"); forced != nullptr && *forced) {
    if (std::string_view(forced) == "none") {
      return NotFound("NCCL disabled (GPUVET_NCCL_LIB=none)");
    }
    library = forced;
  }
  dlerror();
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    return NotFound(fmt::format("{} not found ({})", library, err ? err : "dlopen failed"));
  }
  auto lib = std::make_shared<Nccl>();
#define NCCL_RESOLVE(fn, ret, params)                               \
  lib->fn = reinterpret_cast<ret(*) params>(dlsym(handle, #fn));    \
  if (lib->fn == nullptr) {                                         \
    dlclose(handle);                                                \
    return NotFound(fmt::format("{} lacks {}", kNcclLibrary, #fn)); \
  }
  NCCL_FUNCTIONS(NCCL_RESOLVE)
#undef NCCL_RESOLVE
  return std::shared_ptr<const Nccl>(lib);
}

Status MeasureNcclAllReduce(const Nccl& nccl, const std::vector<const GpuSession*>& sessions,
                            const BenchPlan& plan, BenchMeasurement& m) {
  const int n = static_cast<int>(sessions.size());
  if (n < 2) return NotSupported("NCCL all-reduce needs at least two GPUs");
  const CudaLibrary& cuda = sessions[0]->cuda();
  const uint64_t bytes = plan.nccl_bytes;
  const size_t count = bytes / sizeof(float);

  std::vector<DeviceBuffer> send, recv;
  for (const GpuSession* s : sessions) {
    if (Status st = s->MakeCurrent(); !st.ok()) return st;
    auto a = DeviceBuffer::Allocate(cuda, bytes);
    if (!a.ok()) return a.status();
    auto b = DeviceBuffer::Allocate(cuda, bytes);
    if (!b.ok()) return b.status();
    if (Status st = CudaCheck(cuda, cuda.cuMemsetD8Async(a->ptr(), 0, bytes, s->stream()),
                              "cuMemsetD8Async");
        !st.ok()) {
      return st;
    }
    send.push_back(std::move(a).value());
    recv.push_back(std::move(b).value());
  }

  std::vector<int> devices;
  for (const GpuSession* s : sessions) devices.push_back(s->ordinal());
  std::vector<ncclComm_t> comms(n, nullptr);
  if (Status st =
          nccl.Check(nccl.ncclCommInitAll(comms.data(), n, devices.data()), "ncclCommInitAll");
      !st.ok()) {
    return st;
  }
  struct Destroy {
    const Nccl& nccl;
    std::vector<ncclComm_t>& comms;
    ~Destroy() {
      for (ncclComm_t c : comms) {
        if (c != nullptr) nccl.ncclCommDestroy(c);
      }
    }
  } destroy{nccl, comms};

  auto iteration = [&]() -> Status {
    if (Status st = nccl.Check(nccl.ncclGroupStart(), "ncclGroupStart"); !st.ok()) return st;
    for (int i = 0; i < n; ++i) {
      if (Status st = nccl.Check(
              nccl.ncclAllReduce(reinterpret_cast<const void*>(send[i].ptr()),
                                 reinterpret_cast<void*>(recv[i].ptr()), count, kNcclFloat32,
                                 kNcclSum, comms[i], sessions[i]->stream()),
              "ncclAllReduce");
          !st.ok()) {
        nccl.ncclGroupEnd();
        return st;
      }
    }
    return nccl.Check(nccl.ncclGroupEnd(), "ncclGroupEnd");
  };
  auto sync_all = [&]() -> Status {
    for (const GpuSession* s : sessions) {
      if (Status st = s->MakeCurrent(); !st.ok()) return st;
      if (Status st = CudaCheck(cuda, cuda.cuStreamSynchronize(s->stream()), "cuStreamSynchronize");
          !st.ok()) {
        return st;
      }
    }
    return Status::Ok();
  };

  if (Status st = iteration(); !st.ok()) return st;  // warm-up: sets up NCCL's channels
  if (Status st = sync_all(); !st.ok()) return st;
  const double bus_factor = 2.0 * (n - 1) / n;
  for (int i = 0; i < plan.samples; ++i) {
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < plan.nccl_reps; ++r) {
      if (Status st = iteration(); !st.ok()) return st;
    }
    if (Status st = sync_all(); !st.ok()) return st;
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    const double algbw =
        GigabytesPerSecond(static_cast<double>(bytes) * plan.nccl_reps, elapsed.count());
    m.samples.push_back(algbw * bus_factor);
  }
  m.bytes = bytes;
  m.repetitions = plan.nccl_reps;
  m.method = fmt::format(
      "ncclAllReduce (float sum, {}) over {} GPUs, one communicator each (ncclCommInitAll), {} "
      "all-reduces of {} per sample grouped with ncclGroupStart/End and timed with the host clock "
      "until every stream finished; bus bandwidth = algbw x 2(n-1)/n as nccl-tests defines, {} "
      "samples after one warm-up",
      kNcclLibrary, n, plan.nccl_reps, FormatBytes(bytes), plan.samples);
  return Status::Ok();
}

}  // namespace gpuvet::bench
