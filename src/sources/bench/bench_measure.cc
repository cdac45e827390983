// Helpers shared by the benchmark functions (bench_measure.h).
#include "sources/bench/bench_measure.h"

#include <fmt/format.h>

#include <vector>

namespace gpuvet::bench {

Status WithShrinkOnce(uint64_t bytes, const std::function<Status(uint64_t)>& fn) {
  Status st = fn(bytes);
  if (!IsOutOfMemory(st) || bytes < 2) return st;
  Status retry = fn(bytes / 2);
  if (IsOutOfMemory(retry)) {
    // cuMemHostAlloc runs out of pinned (page-locked) host memory, not of GPU memory.
    const std::string& why = retry.message();
    const char* what = why.starts_with("cuMemHostAlloc") ? "pinned host memory"
                       : why.find("pageable host memory") != std::string::npos ? "host memory"
                                                                               : "device memory";
    return Unavailable(fmt::format("out of {} at {} and again at {}: {}", what, FormatBytes(bytes),
                                   FormatBytes(bytes / 2), retry.message()));
  }
  return retry;
}

Status FillDevice(const CudaLibrary& cuda, CUdeviceptr dst, uint64_t bytes, int seed) {
  std::vector<unsigned char> host(bytes);
  FillPattern(host.data(), bytes, seed);
  return CudaCheck(cuda, cuda.cuMemcpyHtoD_v2(dst, host.data(), bytes), "cuMemcpyHtoD_v2");
}

Status VerifyDevice(const CudaLibrary& cuda, CUdeviceptr src, uint64_t bytes, int seed,
                    const std::string& what) {
  std::vector<unsigned char> host(bytes, 0);
  if (Status st = CudaCheck(cuda, cuda.cuMemcpyDtoH_v2(host.data(), src, bytes), "cuMemcpyDtoH_v2");
      !st.ok()) {
    return st;
  }
  const int64_t bad = FirstPatternMismatch(host.data(), bytes, seed);
  if (bad < 0) return Status::Ok();
  return Internal(fmt::format("data corruption: byte {} of the first {} differs after {}", bad,
                              FormatBytes(bytes), what));
}

}  // namespace gpuvet::bench
