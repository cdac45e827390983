// Per-sample signals: each Sample of a recording reduced once to the handful of numbers the
// labels, change points and detectors read (mean GPU activity over the workload's GPUs, host CPU,
// iowait, busiest thread, PCIe share of the link, workload reads …). Absent inputs stay NaN, never
// zero, so a mean over a window skips them.
#pragma once

#include <cstddef>
#include <set>
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
  double power_w = 0;        // mean board power over the GPUs that report it; NaN none
  double power_pct = 0;      // mean board power / power limit, percent; NaN without both
  double nvlink_bps = 0;     // mean NVLink TX + RX per GPU, bytes/s; NaN when not recorded
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
  // One row per sample, or per `step` consecutive samples in a recording longer than
  // kMaxSignalRows (so memory stays bounded at any length; see SignalSeries).
  std::vector<SampleSignals> samples;
  std::vector<int> workload_gpus;           // GPU indexes judged
  bool gpm = false;                         // SM activity available in most samples
  bool process_gpu_seen = false;            // a workload process appeared on some GPU at some time
  std::vector<std::string> net_ports;       // "mlx5_0/1", in the order first seen busiest
  std::vector<double> net_port_gbps;        // each port's rate when it was last busiest
  std::vector<std::string> net_port_layer;  // "InfiniBand", "Ethernet"
  int step = 1;                             // samples per row
  size_t sample_count = 0;                  // samples reduced (rows × step, less a short last row)
};

namespace recording_signals_internal {
// Per-GPU facts the signals need, indexed by GPU index.
struct GpuFacts {
  double link_bps = 0;  // one direction, bytes/s; 0 unknown
  double sm_clock_max = 0;
  double power_limit_w = 0;  // 0 unknown
};
}  // namespace recording_signals_internal

// The most signal rows an analysis keeps (about 30 MB): 36 h at 1 Hz at full resolution; a
// longer recording is analysed at ceil(samples / kMaxSignalRows) samples per row.
inline constexpr size_t kMaxSignalRows = 131072;

// Which GPUs the workload used, seen one sample at a time: those where a workload process
// appeared; else those that were ever busier than the idle threshold; else all recorded GPUs.
class WorkloadGpuSurvey {
 public:
  WorkloadGpuSurvey(const RecordingMeta& meta, const AnalyzeThresholds& th);
  void Add(const Sample& s);
  std::vector<int> Result() const;

 private:
  void Insert(std::set<int>* set, uint8_t bit, int gpu);
  const AnalyzeThresholds& th_;
  std::set<int> with_process_, active_, all_;
  // Per GPU index below 4096: which of the sets already hold it (bits 1 all, 2 with a process,
  // 4 active), so a sample of known GPUs costs no tree lookups.
  std::vector<uint8_t> seen_;
};

// Reduces samples to signals one at a time and keeps at most kMaxSignalRows rows: with more
// samples than that expected, `step` consecutive samples are merged into one row (dt summed;
// every other figure the dt-weighted mean of its finite values, throttle flags set when they
// held for at least half the row's time, wl_on_gpu/has_processes when they held once, work the
// last value, net_port that of the sample with the busiest RDMA port).
class SignalSeries {
 public:
  // `expected_samples` sets the step; more samples than expected still fit (rows keep growing
  // past the cap rather than losing data).
  SignalSeries(const RecordingMeta& meta, std::vector<int> workload_gpus,
               const AnalyzeThresholds& th, size_t expected_samples);
  void Add(const Sample& s);
  // The signals; the first sample's unknown interval is the recording's.
  RecordingSignals Finish();

 private:
  void Flush();
  const RecordingMeta& meta_;
  const AnalyzeThresholds& th_;
  RecordingSignals out_;
  std::vector<char> judged_;
  std::vector<recording_signals_internal::GpuFacts> facts_;  // by GPU index
  std::vector<SampleSignals> pending_;
  size_t gpm_ = 0;
};

// WorkloadGpuSurvey over a whole recording.
std::vector<int> WorkloadGpus(const Recording& rec, const AnalyzeThresholds& th);

// Reduces every sample (SignalSeries over the whole recording). Pure.
RecordingSignals ComputeSignals(const Recording& rec, const AnalyzeThresholds& th);

// Mean of a field over [begin, end), skipping NaN; NaN when every value is NaN.
double MeanOf(const std::vector<SampleSignals>& v, size_t begin, size_t end,
              double SampleSignals::*field);

}  // namespace gpuvet
