// Benchmark of `gpuvet analyze` on the worst case: a 24 h × 8 GPU × 1 Hz recording
// (86,400 samples, 32 host CPUs, a workload of 4 processes) built in memory with a realistic mix —
// a host-bound start, compute-bound hours with a checkpoint stall every 10 minutes, a leaking
// process. Times AnalyzeRecording alone. Target (issue #3): < 2 s.
//   build/bench/analyze_bench [--benchmark_repetitions=3]
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "analysis/recording/recording_analyze.h"
#include "sources/recording/recording_store.h"
#include "testing/recording_builder.h"

namespace {

using gpuvet::Recording;
using gpuvet::Sample;

const Recording& DayOfEightGpus() {
  static const Recording rec = [] {
    gpuvet::test::RecordingBuilder b(8, "NVIDIA H100 80GB HBM3", 1.0);
    b.meta().online_cpus = 32;
    b.meta().work_unit = "samples";
    b.Add(24 * 3600, [](Sample& s, int i) {
      s.host.core_busy_pct.assign(32, 30.0);
      for (int p = 1; p < 4; ++p) {
        gpuvet::ProcessSample w = s.processes[0];
        w.pid = 100 + p;
        w.comm = "pt_data_worker";
        s.processes.push_back(w);
      }
      s.processes[0].rss_bytes = 6 * gpuvet::test::kGiB + static_cast<uint64_t>(i) * 4096;
      s.workload.work_total = 32.0 * i;
      double util = 95, sm = 80;
      if (i < 3600) util = 25, sm = 20, s.processes[0].top_threads[0].cpu_pct = 99;
      if (i % 600 >= 300 && i % 600 < 330)
        util = 2, sm = 1, s.host.disks[0].write_bytes_per_s = 8e8;
      gpuvet::test::SetGpus(s, util + (i % 7), sm + (i % 5));
      for (gpuvet::GpuSample& g : s.gpus) g.tensor_active_pct = 50, g.dram_bw_util_pct = 40;
    });
    return b.Build();
  }();
  return rec;
}

void BM_AnalyzeDay8Gpu(benchmark::State& state) {
  const Recording& rec = DayOfEightGpus();
  gpuvet::AnalyzeOptions options;
  options.target_gpu = "H200";
  options.price_per_gpu_hour = 4;
  for (auto _ : state) {
    gpuvet::AnalyzeReport r = gpuvet::AnalyzeRecording(rec, options);
    benchmark::DoNotOptimize(r);
  }
  state.counters["samples"] = static_cast<double>(rec.samples.size());
}
BENCHMARK(BM_AnalyzeDay8Gpu)->Unit(benchmark::kMillisecond)->UseRealTime();

// The day written to disk once per process (removed at exit).
const std::string& DayFile() {
  static const std::string path = [] {
    std::string p = (std::filesystem::temp_directory_path() /
                     ("gpuvet-analyze-bench-" + std::to_string(getpid()) + ".gpuvet"))
                        .string();
    const Recording& rec = DayOfEightGpus();
    auto w = gpuvet::RecordingWriter::Create(p, rec.meta);
    if (!w.ok()) return std::string();
    for (const Sample& s : rec.samples) {
      if (!(*w)->Append(s).ok()) return std::string();
    }
    if (!(*w)->Finish(rec.meta.end_unix_s, rec.meta.exit_code).ok()) return std::string();
    std::atexit([] { std::filesystem::remove(DayFile()); });
    return p;
  }();
  return path;
}

void BM_ReadAndAnalyzeDay8Gpu(benchmark::State& state) {
  const std::string& path = DayFile();
  if (path.empty()) {
    state.SkipWithError("could not write the recording");
    return;
  }
  gpuvet::AnalyzeOptions options;
  options.target_gpu = "H200";
  for (auto _ : state) {
    auto rec = gpuvet::ReadRecording(path);
    if (!rec.ok()) {
      state.SkipWithError(rec.status().message().c_str());
      return;
    }
    gpuvet::AnalyzeReport r = gpuvet::AnalyzeRecording(*rec, options);
    benchmark::DoNotOptimize(r);
  }
  state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
}
BENCHMARK(BM_ReadAndAnalyzeDay8Gpu)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
