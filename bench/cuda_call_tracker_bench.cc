// Cost of naming the driver call in flight (sources/cuda/cuda_loader.h CudaCallTracker), which
// `gpuvet bench` pays on every CUDA call so a hang can name its call: the bare Enter/Leave pair,
// and one cheap call through CudaLibrary into the fake libcuda.so.1 with and without a tracker.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "sources/cuda/cuda_loader.h"

namespace {

void BM_TrackerEnterLeave(benchmark::State& state) {
  gpuvet::CudaCallTracker tracker;
  for (auto _ : state) {
    tracker.Enter("cuLaunchKernel");
    benchmark::ClobberMemory();
    tracker.Leave();
  }
}
BENCHMARK(BM_TrackerEnterLeave);

// cuDeviceGetCount through the fake driver (a mutex and a table lookup): arg 1 = tracked.
void BM_FakeCall(benchmark::State& state) {
  const std::string scenario = "/tmp/cuda_call_tracker_bench." + std::to_string(getpid()) + ".json";
  std::ofstream(scenario) << R"({"scenario_version": 1, "devices": [{}]})";
  setenv("GPUVET_FAKE_CUDA_SCENARIO", scenario.c_str(), 1);
  auto lib = gpuvet::CudaLibrary::Load(GPUVET_FAKE_CUDA_LIB);
  if (!lib.ok()) {
    state.SkipWithError(lib.status().message().c_str());
    return;
  }
  gpuvet::CudaCallTracker tracker;
  if (state.range(0) == 1) (*lib)->set_tracker(&tracker);
  (*lib)->cuInit(0);  // reads the scenario; the file is not needed after
  std::remove(scenario.c_str());
  int count = 0;
  for (auto _ : state) {
    (*lib)->cuDeviceGetCount(&count);
    benchmark::DoNotOptimize(count);
  }
}
BENCHMARK(BM_FakeCall)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
