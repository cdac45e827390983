// NCCL all-reduce bus bandwidth across all benchmarked GPUs of the node, through libnccl.so.2
// opened with dlopen when present (never linked). The few NCCL declarations needed are in the .cc,
// from the public nccl.h.
#pragma once

#include <memory>
#include <vector>

#include "core/bench.h"
#include "sources/bench/bench_cuda.h"
#include "sources/bench/bench_plan.h"

namespace gpuvet::bench {

class Nccl;  // the opened library (bench_nccl.cc)

// The soname looked for.
inline constexpr char kNcclLibrary[] = "libnccl.so.2";

// Opens libnccl.so.2 and resolves the functions used. NotFound with the dlopen error otherwise.
Result<std::shared_ptr<const Nccl>> LoadNccl();

// nccl_allreduce_busbw: one communicator per GPU (ncclCommInitAll), float sum all-reduce of
// plan.nccl_bytes per GPU, plan.nccl_reps per sample grouped over all GPUs and timed with the host
// clock until every stream finished, as nccl-tests does. Bus bandwidth = algbw x 2(n-1)/n (the
// nccl-tests definition for all-reduce), GB/s. Needs at least two sessions.
Status MeasureNcclAllReduce(const Nccl& nccl, const std::vector<const GpuSession*>& sessions,
                            const BenchPlan& plan, BenchMeasurement& m);

}  // namespace gpuvet::bench
