// What every benchmark function of the engine receives (the GPU's session, the plan, its sysfs
// facts) and the helpers they share: the OOM shrink-once rule and the data check after a copy.
// One benchmark = one function `Status Measure…(const GpuBench&, BenchMeasurement&)`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/bench.h"
#include "core/host_paths.h"
#include "sources/bench/bench_cuda.h"
#include "sources/bench/bench_plan.h"

namespace gpuvet::bench {

// The kernels the PTX module of one GPU provides; null when the module could not be loaded.
struct BenchKernels {
  CUfunction empty = nullptr;
  CUfunction copy = nullptr;
  CUfunction triad = nullptr;
  CUfunction fma = nullptr;
};

struct GpuBench {
  const GpuSession& session;
  const BenchPlan& plan;
  const BenchGpu& gpu;
  const HostPaths& paths;
  const BenchKernels& kernels;
  // Set by the h2d_pinned benchmark: the PCIe generation read while its copies were in flight.
  Reading<int>* pcie_gen_loaded = nullptr;
};

// A benchmark: fills m.method, m.bytes, m.repetitions and m.samples, or returns why it could not.
// An error status means the measurement failed (the engine records it in m.skipped and checks
// whether the GPU still works); a kNotSupported status means "not applicable" (skipped, no alarm).
using MeasureFn = Status (*)(const GpuBench& bench, BenchMeasurement& m);

// Runs fn(bytes); when that reports CUDA_ERROR_OUT_OF_MEMORY, runs fn(bytes / 2) once more (the
// GPU may hold other work). The result of the last attempt is returned.
Status WithShrinkOnce(uint64_t bytes, const std::function<Status(uint64_t)>& fn);

// Copies the first `bytes` of device memory `src` back to the host and compares them with the
// verification pattern of `seed`. Internal ("data corruption: …", naming the copy `what` and the
// first differing offset) when they differ.
Status VerifyDevice(const CudaLibrary& cuda, CUdeviceptr src, uint64_t bytes, int seed,
                    const std::string& what);

// Writes the verification pattern of `seed` into the first `bytes` of device memory `dst`.
Status FillDevice(const CudaLibrary& cuda, CUdeviceptr dst, uint64_t bytes, int seed);

}  // namespace gpuvet::bench
