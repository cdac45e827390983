// Benchmarks that run gpuvet's own PTX kernels (ptx_kernels.h): device-memory bandwidth through
// the SMs (copy and triad), FP32 FMA throughput, and the cost of launching an empty kernel.
#pragma once

#include "sources/bench/bench_measure.h"

namespace gpuvet::bench {

// The module JIT-compiled for one GPU and the functions found in it. Unloads on destruction.
class KernelModule {
 public:
  // JIT-compiles GpuvetPtxModule() in the session's context and looks up every entry. On failure
  // the status carries the JIT error log (LoadPtxModule) or names the missing entry.
  static Result<std::unique_ptr<KernelModule>> Load(const GpuSession& session);
  ~KernelModule();
  KernelModule(const KernelModule&) = delete;
  KernelModule& operator=(const KernelModule&) = delete;

  const BenchKernels& kernels() const { return kernels_; }

 private:
  KernelModule(const CudaLibrary& cuda, CUmodule module) : cuda_(cuda), module_(module) {}
  const CudaLibrary& cuda_;
  CUmodule module_;
  BenchKernels kernels_;
};

// d2d_sm_copy: gpuvet_copy over plan.device_bytes, grid = SMs x kBlocksPerSm; read + write
// counted (2 x bytes per kernel), GB/s; the first bytes of the destination are checked.
Status MeasureSmCopy(const GpuBench& b, BenchMeasurement& m);

// sm_triad: gpuvet_triad a = b + s * c over three buffers of plan.device_bytes; 3 x bytes per
// kernel, GB/s.
Status MeasureTriad(const GpuBench& b, BenchMeasurement& m);

// fp32_fma: gpuvet_fma with plan.fma_iterations per thread on SMs x kBlocksPerSm blocks; TFLOP/s
// counting 2 FLOP per FMA.
Status MeasureFma(const GpuBench& b, BenchMeasurement& m);

// launch_rate: plan.launch_count launches of gpuvet_empty back to back between two events,
// launches per second.
Status MeasureLaunchRate(const GpuBench& b, BenchMeasurement& m);

// launch_latency: one gpuvet_empty launch then cuStreamSynchronize, between an event recorded
// before the launch and one recorded after the host saw completion (what a caller waits from
// launch to completion), plan.latency_samples samples, us.
Status MeasureLaunchLatency(const GpuBench& b, BenchMeasurement& m);

}  // namespace gpuvet::bench
