// cuBLASLt tensor throughput (bench_cublaslt.h). Unverified without a GPU: the declarations below
// follow the public cublasLt.h / library_types.h of CUDA 11-13 (stable C ABI across them).
#include "sources/bench/bench_cublaslt.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "util/strings.h"

namespace gpuvet::bench {

namespace {

// ---- the subset of cublasLt.h used (values from cublasLt.h, cublas_api.h, library_types.h) ----
using cublasStatus_t = int;  // CUBLAS_STATUS_SUCCESS = 0
using cublasLtHandle_t = void*;
using cublasLtMatmulDesc_t = void*;
using cublasLtMatrixLayout_t = void*;
using cublasLtMatmulPreference_t = void*;
struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};
constexpr int kCudaR32F = 0;               // CUDA_R_32F
constexpr int kCudaR16F = 2;               // CUDA_R_16F
constexpr int kCudaR16BF = 14;             // CUDA_R_16BF
constexpr int kComputeType32F = 68;        // CUBLAS_COMPUTE_32F
constexpr int kPrefMaxWorkspaceBytes = 1;  // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES (uint64_t)

// CUBLASLT_FN(name, return type, parameter list)
#define CUBLASLT_FUNCTIONS(CUBLASLT_FN)                                                          \
  CUBLASLT_FN(cublasLtCreate, cublasStatus_t, (cublasLtHandle_t*))                               \
  CUBLASLT_FN(cublasLtDestroy, cublasStatus_t, (cublasLtHandle_t))                               \
  CUBLASLT_FN(cublasLtMatmulDescCreate, cublasStatus_t, (cublasLtMatmulDesc_t*, int, int))       \
  CUBLASLT_FN(cublasLtMatmulDescDestroy, cublasStatus_t, (cublasLtMatmulDesc_t))                 \
  CUBLASLT_FN(cublasLtMatrixLayoutCreate, cublasStatus_t,                                        \
              (cublasLtMatrixLayout_t*, int, uint64_t, uint64_t, int64_t))                       \
  CUBLASLT_FN(cublasLtMatrixLayoutDestroy, cublasStatus_t, (cublasLtMatrixLayout_t))             \
  CUBLASLT_FN(cublasLtMatmulPreferenceCreate, cublasStatus_t, (cublasLtMatmulPreference_t*))     \
  CUBLASLT_FN(cublasLtMatmulPreferenceDestroy, cublasStatus_t, (cublasLtMatmulPreference_t))     \
  CUBLASLT_FN(cublasLtMatmulPreferenceSetAttribute, cublasStatus_t,                              \
              (cublasLtMatmulPreference_t, int, const void*, size_t))                            \
  CUBLASLT_FN(cublasLtMatmulAlgoGetHeuristic, cublasStatus_t,                                    \
              (cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,                   \
               cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,           \
               cublasLtMatmulPreference_t, int, cublasLtMatmulHeuristicResult_t*, int*))         \
  CUBLASLT_FN(                                                                                   \
      cublasLtMatmul, cublasStatus_t,                                                            \
      (cublasLtHandle_t, cublasLtMatmulDesc_t, const void*, const void*, cublasLtMatrixLayout_t, \
       const void*, cublasLtMatrixLayout_t, const void*, const void*, cublasLtMatrixLayout_t,    \
       void*, cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t*, void*, size_t, CUstream))

// Sonames in the order tried: CUDA 13, 12, 11, then a development symlink.
constexpr const char* kNames[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11",
                                  "libcublasLt.so"};

// cuBLAS recommends a 32 MiB workspace on Hopper and later (cuBLAS docs, cublasSetWorkspace);
// smaller GPUs need less, and more never hurts the heuristic.
constexpr uint64_t kWorkspaceBytes = 32ull << 20;

// cublasStatus_t names (cublas_api.h).
const char* StatusName(cublasStatus_t rc) {
  switch (rc) {
    case 1:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case 8:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 11:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case 13:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    default:
      return "cuBLAS error";
  }
}

}  // namespace

class CublasLt {
 public:
#define CUBLASLT_POINTER(name, ret, params) ret(*name) params = nullptr;
  CUBLASLT_FUNCTIONS(CUBLASLT_POINTER)
#undef CUBLASLT_POINTER
  std::string path;
};

Result<std::shared_ptr<const CublasLt>> LoadCublasLt() {
  std::string last_error;
  // GPUVET_CUBLASLT_LIB names the library to load instead of the sonames above; "none" turns
  // the tensor measurements off (tests, and nodes where loading cuBLAS is not wanted).
  std::vector<std::string> names(std::begin(kNames), std::end(kNames));
  if (const char* forced = std::getenv("GPUVET_CUBLASLT_LIB"); forced != nullptr && *forced) {
    if (std::string_view(forced) == "none") {
      return NotFound("cuBLASLt disabled (GPUVET_CUBLASLT_LIB=none)");
    }
    names = {forced};
  }
  for (const std::string& name_str : names) {
    const char* name = name_str.c_str();
    dlerror();
    void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* err = dlerror();
      last_error = err != nullptr ? err : name;
      continue;
    }
    auto lib = std::make_shared<CublasLt>();
    lib->path = name;
    std::string missing;
#define CUBLASLT_RESOLVE(fn, ret, params)                        \
  lib->fn = reinterpret_cast<ret(*) params>(dlsym(handle, #fn)); \
  if (lib->fn == nullptr && missing.empty()) missing = #fn;
    CUBLASLT_FUNCTIONS(CUBLASLT_RESOLVE)
#undef CUBLASLT_RESOLVE
    if (missing.empty()) return std::shared_ptr<const CublasLt>(lib);
    last_error = fmt::format("{} lacks {}", name, missing);
    dlclose(handle);
  }
  return NotFound(
      fmt::format("cuBLASLt not found (tried {}; last error: {})", CublasLtNames(), last_error));
}

std::string CublasLtNames() { return Join({std::begin(kNames), std::end(kNames)}, ", "); }

Status MeasureTensor(const CublasLt& lt, bool bf16, const GpuBench& b, BenchMeasurement& m) {
  auto LtCheck = [&lt](cublasStatus_t rc, const char* call) {
    if (rc == 0) return Status::Ok();
    return Internal(fmt::format("{} ({}) returned {} ({})", call, lt.path, StatusName(rc), rc));
  };
  const CudaLibrary& cuda = b.session.cuda();
  const int type = bf16 ? kCudaR16BF : kCudaR16F;
  const uint64_t n = static_cast<uint64_t>(b.plan.tensor_dim);
  const uint64_t matrix_bytes = n * n * 2;  // 16-bit elements

  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layout = nullptr;  // the same n x n column-major layout for A, B, C, D
  cublasLtMatmulPreference_t pref = nullptr;
  struct Cleanup {
    const CublasLt& lt;
    cublasLtHandle_t& handle;
    cublasLtMatmulDesc_t& desc;
    cublasLtMatrixLayout_t& layout;
    cublasLtMatmulPreference_t& pref;
    ~Cleanup() {
      if (pref != nullptr) lt.cublasLtMatmulPreferenceDestroy(pref);
      if (layout != nullptr) lt.cublasLtMatrixLayoutDestroy(layout);
      if (desc != nullptr) lt.cublasLtMatmulDescDestroy(desc);
      if (handle != nullptr) lt.cublasLtDestroy(handle);
    }
  } cleanup{lt, handle, desc, layout, pref};

  if (Status st = LtCheck(lt.cublasLtCreate(&handle), "cublasLtCreate"); !st.ok()) return st;
  if (Status st = LtCheck(lt.cublasLtMatmulDescCreate(&desc, kComputeType32F, kCudaR32F),
                          "cublasLtMatmulDescCreate");
      !st.ok()) {
    return st;
  }
  if (Status st =
          LtCheck(lt.cublasLtMatrixLayoutCreate(&layout, type, n, n, static_cast<int64_t>(n)),
                  "cublasLtMatrixLayoutCreate");
      !st.ok()) {
    return st;
  }
  if (Status st =
          LtCheck(lt.cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
      !st.ok()) {
    return st;
  }
  const uint64_t workspace_bytes = kWorkspaceBytes;
  if (Status st =
          LtCheck(lt.cublasLtMatmulPreferenceSetAttribute(
                      pref, kPrefMaxWorkspaceBytes, &workspace_bytes, sizeof(workspace_bytes)),
                  "cublasLtMatmulPreferenceSetAttribute");
      !st.ok()) {
    return st;
  }
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  if (Status st = LtCheck(lt.cublasLtMatmulAlgoGetHeuristic(handle, desc, layout, layout, layout,
                                                            layout, pref, 1, &heuristic, &found),
                          "cublasLtMatmulAlgoGetHeuristic");
      !st.ok()) {
    return st;
  }
  if (found < 1) {
    return NotSupported(
        fmt::format("cuBLASLt offers no {} algorithm on this GPU", bf16 ? "BF16" : "FP16"));
  }
  // Buffers only once cuBLASLt is known to work here: they are large.
  auto a = DeviceBuffer::Allocate(cuda, matrix_bytes);
  if (!a.ok()) return a.status();
  auto bm = DeviceBuffer::Allocate(cuda, matrix_bytes);
  if (!bm.ok()) return bm.status();
  auto d = DeviceBuffer::Allocate(cuda, matrix_bytes);
  if (!d.ok()) return d.status();
  auto workspace = DeviceBuffer::Allocate(cuda, kWorkspaceBytes);
  if (!workspace.ok()) return workspace.status();
  const CUstream s = b.session.stream();
  // 0x3c in every byte: a small finite value in both bf16 (~0.0115) and fp16 (~1.06); zeros would
  // let the GPU save power and flatter the figure.
  for (const DeviceBuffer* buf : {&*a, &*bm}) {
    if (Status st = CudaCheck(cuda, cuda.cuMemsetD8Async(buf->ptr(), 0x3c, matrix_bytes, s),
                              "cuMemsetD8Async");
        !st.ok()) {
      return st;
    }
  }

  const float alpha = 1.0f, beta = 0.0f;
  auto matmul = [&] {
    return LtCheck(lt.cublasLtMatmul(handle, desc, &alpha, reinterpret_cast<void*>(a->ptr()),
                                     layout, reinterpret_cast<void*>(bm->ptr()), layout, &beta,
                                     reinterpret_cast<void*>(d->ptr()), layout,
                                     reinterpret_cast<void*>(d->ptr()), layout, &heuristic.algo,
                                     reinterpret_cast<void*>(workspace->ptr()), kWorkspaceBytes, s),
                   "cublasLtMatmul");
  };
  auto timer = EventTimer::Create(cuda);
  if (!timer.ok()) return timer.status();
  if (Status st = matmul(); !st.ok()) return st;  // warm-up: loads the kernel
  const double flops = 2.0 * static_cast<double>(n) * n * n;
  for (int i = 0; i < b.plan.samples; ++i) {
    if (Status st = timer->Start(s); !st.ok()) return st;
    for (int r = 0; r < b.plan.tensor_reps; ++r) {
      if (Status st = matmul(); !st.ok()) return st;
    }
    if (Status st = timer->Record(s); !st.ok()) return st;
    if (Status st = timer->Wait(); !st.ok()) return st;
    auto seconds = timer->ElapsedSeconds();
    if (!seconds.ok()) return seconds.status();
    if (*seconds > 0) m.samples.push_back(flops * b.plan.tensor_reps / *seconds / 1e12);
  }
  m.bytes = matrix_bytes;
  m.repetitions = b.plan.tensor_reps;
  m.method = fmt::format(
      "cublasLtMatmul ({}): {}x{}x{} {} inputs and output, FP32 accumulate, the heuristic's first "
      "algorithm, {} MiB workspace; {} matmuls per sample between CUDA events, 2*M*N*K FLOP each, "
      "{} samples after one warm-up",
      lt.path, n, n, n, bf16 ? "BF16" : "FP16", kWorkspaceBytes >> 20, b.plan.tensor_reps,
      b.plan.samples);
  return Status::Ok();
}

}  // namespace gpuvet::bench
