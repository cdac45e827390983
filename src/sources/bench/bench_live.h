// BenchLive: what a running `gpuvet bench` shares with its watchdog (cli/bench_command.cc): the run
// as of the last step boundary, the step in progress and since when, and the driver call in
// flight. When a call never returns, the watchdog reports from here: nothing measured is lost.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

#include "core/bench.h"
#include "sources/cuda/cuda_loader.h"

namespace gpuvet {

struct BenchLive {
  std::mutex mu;
  // Guarded by mu. The run as the engine had it when the current step began: GPUs described,
  // figures finished, notes.
  BenchRun snapshot;
  // Guarded by mu. The step in progress: "GPU 0: d2d_copy_engine" as the progress bar shows it,
  // and, for a measurement, its id, GPU, peer and unit (id empty for set-up steps).
  std::string step = "loading the CUDA driver";
  std::string step_id, step_unit;
  int step_gpu = -1, step_peer = -1, step_numa_node = -1;
  std::chrono::steady_clock::time_point step_started = std::chrono::steady_clock::now();
  // The driver call in flight (lock-free; the engine's CudaLibrary enters every call here).
  CudaCallTracker calls;
};

// The run as the watchdog reports it after `limit_s` seconds without the engine finishing: the
// snapshot with state kTimedOut, the hung step recorded as a failed measurement naming the call
// and how long it had been stuck, and detail saying the same in one sentence.
BenchRun TimedOutRun(BenchLive& live, int limit_s);

}  // namespace gpuvet
