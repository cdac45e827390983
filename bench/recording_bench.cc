// Recording store benchmark: writes a 24 h x 8 GPU x 1 Hz recording through RecordingWriter (one
// transaction per sample, as `gpuvet record` does) and times ReadRecording on it, the first step
// of `gpuvet analyze` (target: well under 1 s of the 2 s analyze budget). Prints the figures.
// Usage: recording_bench [--samples N] [--gpus N] [--keep PATH] [--reps N]
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sources/recording/recording_store.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// CPU time of this process: the figure to quote on a shared, loaded machine.
double CpuSeconds() {
  timespec ts = {};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

gpuvet::Sample MakeSample(int i, int gpus) {
  gpuvet::Sample s;
  s.t = i;
  s.unix_time = 1764489600.0 + i;
  s.interval_s = 1;
  for (int g = 0; g < gpus; ++g) {
    gpuvet::GpuSample x;
    x.gpu = g;
    x.util_pct = (i * 7 + g) % 101;
    x.mem_util_pct = (i * 3 + g) % 101;
    x.sm_clock_mhz = 1980 - (i % 50);
    x.mem_clock_mhz = 2619;
    x.power_w = 300 + (i % 400);
    x.energy_j = 1e6 + i * 500.0;
    x.temperature_c = 60 + (i % 20);
    x.clock_event_reasons = (i % 10 == 0) ? 0x4 : 0x1;
    x.pcie_tx_bytes_per_s = 1e9 + i;
    x.pcie_rx_bytes_per_s = 2e9 + i;
    x.memory_used_bytes = (40ull << 30) + i;
    x.ecc_corrected_volatile = 0;
    x.ecc_uncorrected_volatile = 0;
    x.sm_active_pct = (i * 5 + g) % 101;
    x.sm_occupancy_pct = 20;
    x.tensor_active_pct = 10;
    x.dram_bw_util_pct = 45;
    x.gpm_pcie_tx_bytes_per_s = 1e9;
    x.gpm_pcie_rx_bytes_per_s = 2e9;
    x.nvlink_tx_bytes_per_s = 3e10;
    x.nvlink_rx_bytes_per_s = 3e10;
    x.processes.push_back({static_cast<uint32_t>(1000 + g), 40ull << 30, 50.0});
    s.gpus.push_back(std::move(x));
  }
  gpuvet::HostSample& h = s.host;
  h.cpu_user_pct = 40;
  h.cpu_system_pct = 8;
  h.cpu_iowait_pct = 2;
  h.cpu_steal_pct = 0;
  h.cpu_idle_pct = 50;
  h.core_busy_pct.assign(64, 0);
  for (int c = 0; c < 64; ++c) h.core_busy_pct[c] = (i + c * 13) % 101;
  h.run_queue = 12;
  h.psi_cpu_some_pct = 3;
  h.psi_io_some_pct = 1;
  h.psi_io_full_pct = 0.5;
  h.psi_memory_some_pct = 0;
  h.psi_memory_full_pct = 0;
  h.mem_available_bytes = 500ull << 30;
  h.major_faults_per_s = 0;
  h.disks = {{"nvme0n1", 5e8, 1e7, 30}, {"nvme1n1", 0, 2e9 * (i % 600 == 0), 5}};
  h.nets = {{"eth0", 1e8, 1e7}, {"ib0", 5e9, 5e9}};
  for (int p = 0; p < 4; ++p) {
    gpuvet::ProcessSample ps;
    ps.pid = 1000 + p;
    ps.ppid = p == 0 ? 1 : 1000;
    ps.comm = p == 0 ? "python3" : "pt_data_worker";
    ps.cpu_pct = 100 + p;
    ps.rss_bytes = 8ull << 30;
    ps.threads = 40;
    ps.read_bytes_per_s = 1e8;
    ps.write_bytes_per_s = 0;
    ps.rchar_per_s = 2e8;
    ps.read_syscalls_per_s = 1000;
    ps.opens_per_s = 50;
    for (int t = 0; t < 4; ++t) ps.top_threads.push_back({ps.pid + t, ps.comm, 99.0 - t * 20});
    s.processes.push_back(std::move(ps));
  }
  s.workload.cgroup_throttled_pct = 0;
  s.workload.cgroup_nr_throttled_per_s = 0;
  s.workload.work_total = i * 256.0;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int samples = 24 * 3600;
  int gpus = 8;
  std::string keep;
  int reps = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--samples") == 0) samples = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--gpus") == 0) gpus = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--keep") == 0) keep = argv[i + 1];
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::max(1, std::atoi(argv[i + 1]));
  }
  std::string path =
      keep.empty() ? "/tmp/gpuvet_recording_bench_" + std::to_string(getpid()) + ".gpuvet" : keep;
  struct stat st = {};
  bool reuse = !keep.empty() && stat(path.c_str(), &st) == 0;
  if (!reuse) {
    gpuvet::RecordingMeta meta;
    meta.producer = "recording_bench";
    meta.host = "bench";
    for (int g = 0; g < gpus; ++g) {
      gpuvet::RecordedGpu rg;
      rg.index = g;
      rg.name = "NVIDIA H100 80GB HBM3";
      meta.gpus.push_back(rg);
    }
    auto start = Clock::now();
    auto w = gpuvet::RecordingWriter::Create(path, meta);
    if (!w.ok()) {
      std::fprintf(stderr, "%s\n", w.status().message().c_str());
      return 1;
    }
    for (int i = 0; i < samples; ++i) {
      if (auto s = (*w)->Append(MakeSample(i, gpus)); !s.ok()) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        return 1;
      }
    }
    if (auto s = (*w)->Finish(1764489600.0 + samples, 0); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      return 1;
    }
    double write_s = Seconds(start);
    std::printf("write: %d samples x %d GPUs in %.2f s (%.1f us per sample)\n", samples, gpus,
                write_s, write_s / samples * 1e6);
    stat(path.c_str(), &st);
  }
  std::printf("file: %s, %.1f MiB\n", path.c_str(), st.st_size / 1048576.0);
  double best = 1e9, best_cpu = 1e9;
  size_t read_samples = 0;
  for (int rep = 0; rep < reps; ++rep) {
    auto start = Clock::now();
    double cpu_start = CpuSeconds();
    auto r = gpuvet::ReadRecording(path);
    double s = Seconds(start);
    double cpu = CpuSeconds() - cpu_start;
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().message().c_str());
      return 1;
    }
    read_samples = r->samples.size();
    best = std::min(best, s);
    best_cpu = std::min(best_cpu, cpu);
    std::printf("ReadRecording: %zu samples in %.3f s wall, %.3f s CPU\n", read_samples, s, cpu);
  }
  std::printf("best ReadRecording: %.3f s wall, %.3f s CPU (%.2f us CPU per sample)\n", best,
              best_cpu, best_cpu / read_samples * 1e6);
  if (keep.empty()) unlink(path.c_str());
  return 0;
}
