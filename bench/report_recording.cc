// Writes the recording `bench/report_bench.sh` renders: 24 h × 8 GPUs × 1 Hz (by default) through
// the real RecordingWriter, with the shape of a real job — a sawtooth of GPU activity while one
// loader thread is pegged, a checkpoint stall every 30 min with a disk write burst, a power-capped
// hour — so the page draws every kind of line, span and mark a day-long report has.
// Usage: report_recording OUT.gpuvet [--samples N] [--gpus N]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sources/recording/recording_store.h"

namespace {

gpuvet::Sample MakeSample(int i, int gpus) {
  gpuvet::Sample s;
  s.t = i + 1;
  s.unix_time = 1764489600.0 + i + 1;
  s.interval_s = 1;
  bool stall = i % 1800 < 40;
  bool capped = i >= 7200 && i < 10800;
  for (int g = 0; g < gpus; ++g) {
    gpuvet::GpuSample x;
    x.gpu = g;
    double saw = stall ? 2 : 30 + 60 * ((i + g * 3) % 20) / 20.0;  // loader sawtooth
    x.util_pct = std::min(100.0, saw + 8);
    x.sm_active_pct = saw;
    x.tensor_active_pct = saw * 0.6;
    x.dram_bw_util_pct = saw * 0.4;
    x.sm_clock_mhz = capped ? 1500 + (i % 40) : 1980;
    x.mem_clock_mhz = 2619;
    x.power_w = stall ? 120 : (capped ? 560 : 250 + 4 * saw);
    x.energy_j = 1e6 + i * 400.0;
    x.temperature_c = 55 + saw / 5;
    x.clock_event_reasons = capped ? 0x4 : (stall ? 0x1 : 0);
    x.memory_used_bytes = (uint64_t{60} << 30) + uint64_t(i) * 1000;
    s.gpus.push_back(std::move(x));
  }
  gpuvet::HostSample& h = s.host;
  h.cpu_user_pct = 14;
  h.cpu_system_pct = 3;
  h.cpu_iowait_pct = stall ? 9 : 0.5;
  h.cpu_idle_pct = 80;
  h.core_busy_pct.assign(64, 10);
  h.core_busy_pct[3] = 100;
  h.mem_available_bytes = uint64_t{900} << 30;
  h.disks = {{"nvme0n1", 4e8, stall ? 2.5e9 : 1e6, stall ? 90.0 : 10.0}};
  h.nets = {{"eth0", 5e7, 1e7}};
  gpuvet::ProcessSample p;
  p.pid = 1000;
  p.ppid = 1;
  p.comm = "python3";
  p.cpu_pct = 180;
  p.rss_bytes = uint64_t{40} << 30;
  p.threads = 60;
  p.top_threads = {
      {1000, "python3", 99.0}, {1001, "pt_data_worker", 35.0}, {1002, "pin_memory", 12}};
  s.processes.push_back(std::move(p));
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: report_recording OUT.gpuvet [--samples N] [--gpus N]\n");
    return 2;
  }
  std::string path = argv[1];
  int samples = 24 * 3600, gpus = 8;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--samples") == 0) samples = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--gpus") == 0) gpus = std::atoi(argv[i + 1]);
  }
  gpuvet::RecordingMeta meta;
  meta.producer = "report_recording (bench)";
  meta.host = "bench-node";
  meta.command = {"python3", "train.py"};
  meta.target_pid = 1000;
  meta.online_cpus = 64;
  meta.start_unix_s = 1764489600.0;
  for (int g = 0; g < gpus; ++g) {
    gpuvet::RecordedGpu rg;
    rg.index = g;
    rg.name = "NVIDIA H100 80GB HBM3";
    rg.memory_total_bytes = uint64_t{80} << 30;
    rg.power_limit_w = 700;
    rg.sm_clock_max_mhz = 1980;
    meta.gpus.push_back(rg);
  }
  auto w = gpuvet::RecordingWriter::Create(path, meta);
  if (!w.ok()) {
    std::fprintf(stderr, "%s\n", w.status().message().c_str());
    return 1;
  }
  for (int i = 0; i < samples; ++i) {
    if (auto st = (*w)->Append(MakeSample(i, gpus)); !st.ok()) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      return 1;
    }
  }
  if (auto st = (*w)->Finish(1764489600.0 + samples, 0); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  return 0;
}
