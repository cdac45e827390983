// Cost of one recording sample (Sampler::Take): host only, host plus this process's tree, and 8
// GPUs (the fake NVML, with GPM, processes and per-sample values) plus host. Google Benchmark's
// own CPU time counts only the calling thread, so the process's CPU time (getrusage: every
// thread, the NVML worker included) is reported per Take as `proc_cpu_us`, with the peak RSS.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "sources/sampler/sampler.h"

namespace {

double ProcessCpuUs() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + u.ru_utime.tv_usec + u.ru_stime.tv_usec;
}

double PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

// An 8-GPU H100 node as NVML would answer it while a job runs.
std::string EightGpuScenario() {
  std::string gpus;
  for (int i = 0; i < 8; ++i) {
    char gpu[2048];
    std::snprintf(
        gpu, sizeof(gpu),
        R"(%s{"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-%d", "pci_bus_id": "0000:%02x:00.0",
  "memory_total_bytes": 85899345920, "memory_used_bytes": [60000000000, 61000000000],
  "power_limit_w": 700, "sm_clock_max_mhz": 1980, "mem_clock_max_mhz": 2619,
  "pcie_gen_max": 5, "pcie_width_max": 16, "gpu_util_pct": [95, 97], "memory_util_pct": 40,
  "sm_clock_mhz": 1980, "mem_clock_mhz": 2619, "power_w": [650, 690], "temperature_c": 61,
  "clock_event_reasons": 0, "ecc_corrected_volatile": 0, "ecc_uncorrected_volatile": 0,
  "energy_mj": [1000000, 1650000], "gpm_sm_active_pct": 80, "gpm_sm_occupancy_pct": 30,
  "gpm_tensor_active_pct": 40, "gpm_dram_bw_util_pct": 55, "gpm_pcie_tx_bytes_per_s": 1e9,
  "gpm_pcie_rx_bytes_per_s": 2e9, "gpm_nvlink_tx_bytes_per_s": 5e10,
  "gpm_nvlink_rx_bytes_per_s": 5e10,
  "compute_processes": [{"pid": %d, "used_memory_bytes": 60000000000}],
  "process_utilization": [{"pid": %d, "sm_util_pct": 80, "mem_util_pct": 30}]})",
        i == 0 ? "" : ",\n", i, 0x18 + i * 0x10, 4242 + i, 4242 + i);
    gpus += gpu;
  }
  return R"({"driver_version": "550.90.07", "cuda_driver_version": 12040, "series_interval_ms": 500,
  "gpus": [)" +
         gpus + "]}";
}

void Run(benchmark::State& state, const gpuvet::SamplerOptions& options) {
  gpuvet::Result<std::unique_ptr<gpuvet::Sampler>> s = gpuvet::Sampler::Create(options);
  if (!s.ok()) {
    state.SkipWithError(s.status().message().c_str());
    return;
  }
  const double cpu0 = ProcessCpuUs();
  size_t gpus = 0;
  for (auto _ : state) {
    gpuvet::Sample x = (*s)->Take();
    gpus = x.gpus.size();
    benchmark::DoNotOptimize(x);
  }
  state.counters["proc_cpu_us"] = (ProcessCpuUs() - cpu0) / static_cast<double>(state.iterations());
  state.counters["gpus"] = static_cast<double>(gpus);
  state.counters["peak_rss_mb"] = PeakRssMb();
}

void BM_TakeHostOnly(benchmark::State& state) {
  gpuvet::SamplerOptions o;
  o.read_gpus = false;
  Run(state, o);
}
BENCHMARK(BM_TakeHostOnly)->Unit(benchmark::kMicrosecond);

void BM_TakeHostAndOwnProcessTree(benchmark::State& state) {
  gpuvet::SamplerOptions o;
  o.read_gpus = false;
  o.root_pid = static_cast<int>(getpid());
  Run(state, o);
}
BENCHMARK(BM_TakeHostAndOwnProcessTree)->Unit(benchmark::kMicrosecond);

void BM_Take8GpusAndHost(benchmark::State& state) {
  const std::string path = "/tmp/gpuvet_sampler_bench_" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << EightGpuScenario();
  setenv("GPUVET_FAKE_NVML_SCENARIO", path.c_str(), 1);
  gpuvet::SamplerOptions o;
  o.nvml.library_path = GPUVET_FAKE_NVML_LIB;
  Run(state, o);
  std::remove(path.c_str());
}
BENCHMARK(BM_Take8GpusAndHost)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
