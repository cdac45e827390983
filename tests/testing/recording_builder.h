// Synthetic recordings for analyze tests and the fixture generator: a healthy, compute-busy
// baseline sample (every field a real sampler fills) that each scenario then bends with a lambda
// per stretch of samples. Energy counters advance from power unless a scenario sets them.
// Header-only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "core/recording.h"

namespace gpuvet::test {

inline constexpr uint64_t kGiB = 1024ull * 1024 * 1024;

class RecordingBuilder {
 public:
  // `gpus` GPUs named `name` (NVML name), samples every `interval_s`.
  explicit RecordingBuilder(int gpus = 1, std::string name = "NVIDIA A100-SXM4-80GB",
                            double interval_s = 1.0) {
    RecordingMeta& m = rec_.meta;
    m.producer = "test builder";
    m.host = "node-a";
    m.driver_version = "550.90.07";
    m.cuda_version = "12.4";
    m.command = {"python3", "train.py"};
    m.target_pid = 100;
    m.interval_s = interval_s;
    m.start_unix_s = 1'780'000'000;
    m.online_cpus = 8;
    for (int i = 0; i < gpus; ++i) {
      RecordedGpu g;
      g.index = i;
      g.name = name;
      g.uuid = "GPU-" + std::to_string(i);
      g.pci_bus_id = "0000:" + std::to_string(0x10 + i) + ":00.0";
      g.memory_total_bytes = 80 * kGiB;
      g.power_limit_w = 400;
      g.sm_clock_max_mhz = 1410;
      g.mem_clock_max_mhz = 1593;
      g.pcie_gen_max = 4;
      g.pcie_width_max = 16;
      g.numa_node = 0;
      m.gpus.push_back(g);
    }
    energy_.assign(gpus, 1.0e6);
  }

  RecordingMeta& meta() { return rec_.meta; }

  // Appends `n` baseline samples, each then changed by `fill(sample, i)` (i counts from 0 within
  // this call; sample.t is already set).
  RecordingBuilder& Add(int n, const std::function<void(Sample&, int)>& fill = nullptr) {
    for (int i = 0; i < n; ++i) {
      Sample s = Baseline();
      if (fill) fill(s, i);
      for (GpuSample& g : s.gpus) {
        if (g.gpu < static_cast<int>(energy_.size()) && !g.energy_j && g.power_w) {
          energy_[g.gpu] += *g.power_w * s.interval_s;
          g.energy_j = energy_[g.gpu];
        } else if (g.energy_j && g.gpu < static_cast<int>(energy_.size())) {
          energy_[g.gpu] = *g.energy_j;
        }
      }
      rec_.samples.push_back(std::move(s));
    }
    return *this;
  }

  // The next sample as Add would append it, without keeping it: long recordings (benchmarks)
  // are written one sample at a time.
  Sample Next(const std::function<void(Sample&, int)>& fill = nullptr) {
    Add(1, [&](Sample& s, int) {
      if (fill) fill(s, static_cast<int>(streamed_));
    });
    Sample s = std::move(rec_.samples.back());
    rec_.samples.pop_back();
    ++streamed_;
    return s;
  }

  // Marks the recording finished (end time, exit code 0).
  Recording Build() {
    Recording r = rec_;
    r.meta.end_unix_s = r.meta.start_unix_s + (r.samples.empty() ? 0 : r.samples.back().t);
    r.meta.exit_code = 0;
    return r;
  }

  // Without end time and exit code: a recorder that was killed.
  Recording BuildUnfinished() const { return rec_; }

 private:
  Sample Baseline() {
    Sample s;
    double dt = rec_.meta.interval_s;
    s.t = static_cast<double>(rec_.samples.size() + streamed_ + 1) * dt;
    s.unix_time = rec_.meta.start_unix_s + s.t;
    s.interval_s = dt;
    for (const RecordedGpu& rg : rec_.meta.gpus) {
      GpuSample g;
      g.gpu = rg.index;
      g.util_pct = 95;
      g.mem_util_pct = 35;
      g.sm_clock_mhz = 1410;
      g.mem_clock_mhz = 1593;
      g.power_w = 320;
      g.temperature_c = 62;
      g.clock_event_reasons = 0;
      g.pcie_tx_bytes_per_s = 0.5e9;
      g.pcie_rx_bytes_per_s = 1.0e9;
      g.memory_used_bytes = 40 * kGiB;
      g.ecc_corrected_volatile = 0;
      g.ecc_uncorrected_volatile = 0;
      g.processes.push_back({100, 39 * kGiB, 90.0});
      s.gpus.push_back(g);
    }
    HostSample& h = s.host;
    h.cpu_user_pct = 20;
    h.cpu_system_pct = 4;
    h.cpu_iowait_pct = 0.5;
    h.cpu_steal_pct = 0;
    h.cpu_idle_pct = 75.5;
    h.core_busy_pct.assign(rec_.meta.online_cpus, 24.0);
    h.run_queue = 2;
    h.psi_cpu_some_pct = 1;
    h.psi_io_some_pct = 0.5;
    h.psi_io_full_pct = 0.1;
    h.psi_memory_some_pct = 0;
    h.psi_memory_full_pct = 0;
    h.mem_available_bytes = 200 * kGiB;
    h.major_faults_per_s = 0;
    h.disks.push_back({"nvme0n1", 20e6, 1e6, 5});
    h.nets.push_back({"eth0", 1e6, 1e6});
    ProcessSample p;
    p.pid = 100;
    p.ppid = 1;
    p.comm = "python3";
    p.cpu_pct = 140;
    p.rss_bytes = 6 * kGiB;
    p.threads = 12;
    p.read_bytes_per_s = 20e6;
    p.write_bytes_per_s = 0.5e6;
    p.rchar_per_s = 20e6;
    p.read_syscalls_per_s = 40;
    p.opens_per_s = 0.5;
    p.top_threads = {{100, "python3", 60}, {101, "pt_data_worker", 40}};
    s.processes.push_back(p);
    s.workload.cgroup_throttled_pct = 0;
    s.workload.cgroup_nr_throttled_per_s = 0;
    return s;
  }

  Recording rec_;
  std::vector<double> energy_;
  size_t streamed_ = 0;  // samples handed out by Next
};

// Scenario helpers: set every GPU's activity (GPU-Util, and SM activity when `sm` >= 0).
inline void SetGpus(Sample& s, double util, double sm = -1) {
  for (GpuSample& g : s.gpus) {
    g.util_pct = util;
    if (sm >= 0) g.sm_active_pct = sm;
    g.power_w = 60 + 2.6 * util;
  }
}

}  // namespace gpuvet::test
