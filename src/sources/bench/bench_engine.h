// The measurement engine of `gpuvet bench`: loads libcuda.so.1 at run time, measures every GPU
// (host<->device copies, device memory, FMA, launch cost, P2P, optional cuBLASLt/NCCL) and fills
// the BenchRun model of core/bench.h. It only measures; judgement lives in rules/bench_*.cc.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/bench.h"
#include "core/host_paths.h"
#include "sources/bench/bench_live.h"
#include "sources/bench/bench_plan.h"

namespace gpuvet {

struct BenchOptions {
  std::string cuda_lib;       // libcuda path; "" = "libcuda.so.1" through the loader search path
  bool full = false;          // --full sizes and counts (bench_plan.h); else --quick
  bool numa_compare = false;  // also measure pinned copies from a NUMA node remote to each GPU
  std::vector<int> gpus;      // CUDA ordinals to measure; empty = all
  // Called before each measurement with its step name ("gpu0 h2d_pinned") and the fraction of the
  // run done (0..1). May be empty. Called on the thread that runs RunBenchmarks.
  std::function<void(std::string_view step, double fraction)> progress;
  HostPaths paths;  // where /sys is read from (NUMA node, local CPUs, PCIe link)
  // May be null. When set, the engine keeps it current (the run so far, the step in progress, the
  // driver call in flight) so a watchdog on another thread can report a hang (TimedOutRun).
  std::shared_ptr<BenchLive> live;
};

// Runs every benchmark the options select and returns what was measured. Never fails as a whole:
// BenchRun::state says when the driver is missing (kDriverMissing, with the dlopen message), no
// device is present (kNoDevice), a requested GPU does not exist (kBadRequest, detail naming the
// GPUs that do) or the driver failed otherwise (kFailed); every measurement that could not be
// taken is present with its outcome and `skipped` saying why. The calling thread's CPU affinity is
// changed while measuring and restored before returning. Not thread-safe: run one at a time.
BenchRun RunBenchmarks(const BenchOptions& options);

// RunBenchmarks with the sizes and counts of `plan` instead of bench::PlanFor(options.full): for
// tests, whose fake driver really copies every byte on the CPU and so needs small buffers.
BenchRun RunBenchmarksWithPlan(const BenchOptions& options, const bench::BenchPlan& plan);

}  // namespace gpuvet
