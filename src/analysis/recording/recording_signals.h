// Per-sample signals: each Sample of a recording reduced once to the handful of numbers the
// labels, change points and detectors read (mean GPU activity over the workload's GPUs, host CPU,
// iowait, busiest thread, PCIe share of the link, workload reads …). Absent inputs stay NaN, never
// zero, so a mean over a window skips them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/recording/recording_options.h"
#include "core/recording.h"

namespace gpuvet {

struct SampleSignals {
  double t = 0;
  double dt = 0;  // the interval the sample covers
  // Mean over the workload's GPUs. activity = SM activity (GPM) when every judged GPU has it in
  // this sample, else GPU-Util.
  double activity = 0;
  double util = 0;          // NaN when no GPU reported it
  double sm_active = 0;     // NaN without GPM
  double sm_occupancy = 0;  // NaN without GPM
  double tensor_active = 0;
  double dram_bw = 0;
  double mem_util = 0;
  double pcie_link_pct = 0;  // max over GPUs of (TX + RX) / link theoretical
  double sm_clock_loss = 0;  // mean of 1 − clock / max over busy GPUs, percent; NaN unknown
  bool throttle_power = false, throttle_thermal = false, throttle_hw = false;
  // Host.
  double cpu_busy = 0;  // user + system
  double iowait = 0;
  double psi_io = 0;
  double psi_cpu = 0;
  double disk_busy = 0;       // busiest disk
  double disk_write_bps = 0;  // all disks
  double max_core = 0;
  int pegged_cores = 0;
  double mem_available = 0;  // bytes
  // Workload tree.
  double wl_cpu = 0;          // sum of process CPU, % of one core; NaN without processes
  double busiest_thread = 0;  // % of one core
  double wl_rchar_bps = 0, wl_read_syscalls = 0, wl_opens = 0, wl_read_bps = 0;
  double cgroup_throttled = 0;
  double work_total = 0;   // NaN when absent
  bool wl_on_gpu = false;  // a workload process appears on a GPU in this sample
  // RDMA ports (InfiniBand/RoCE) that are ACTIVE: the busiest one's max(RX, TX) as a share of
  // its rate, and congestion summed over ports. NaN when the recording has no ports.
  double net_link_pct = 0;
  double net_cnp_per_s = 0;  // congestion notification packets sent + handled
  int net_port = -1;         // index into RecordingSignals::net_ports of the busiest port
  bool has_processes = false;
};

struct RecordingSignals {
  std::vector<SampleSignals> samples;
  std::vector<int> workload_gpus;           // GPU indexes judged
  bool gpm = false;                         // SM activity available in most samples
  bool process_gpu_seen = false;            // a workload process appeared on some GPU at some time
  std::vector<std::string> net_ports;       // "mlx5_0/1", in the order first seen busiest
  std::vector<double> net_port_gbps;        // each port's rate when it was last busiest
  std::vector<std::string> net_port_layer;  // "InfiniBand", "Ethernet"
};

// Which GPUs the workload used: those where a workload process appeared; else those that were
// ever busier than the idle threshold; else all recorded GPUs.
std::vector<int> WorkloadGpus(const Recording& rec, const AnalyzeThresholds& th);

// Reduces every sample. Pure.
RecordingSignals ComputeSignals(const Recording& rec, const AnalyzeThresholds& th);

// Mean of a field over [begin, end), skipping NaN; NaN when every value is NaN.
double MeanOf(const std::vector<SampleSignals>& v, size_t begin, size_t end,
              double SampleSignals::*field);

}  // namespace gpuvet
