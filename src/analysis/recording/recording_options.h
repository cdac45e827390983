// The knobs of `gpuvet analyze`: every threshold a label compares against, in one struct, with
// why each default sits where it does. Shares and utilisations are percent (0–100).
#pragma once

#include <optional>
#include <string>

#include "core/forecast.h"

namespace gpuvet {

struct AnalyzeThresholds {
  // GPU activity (GPM SM activity, else GPU-Util) below this: the GPU is starved — it could do
  // more than it is given. gpuvet default: half busy, the trace verdict's idle share inverted.
  double gpu_starved_pct = 50;
  // Below this the GPU counts as idle (nothing running). NVML GPU-Util reports 0–5 % for an
  // idle GPU with a monitoring context (nvidia-smi on an idle card).
  double gpu_idle_pct = 5;
  // A core or thread at or above this share of one CPU is pegged (mpstat's saturated cores in
  // the seed playbook show 95–99 %).
  double pegged_pct = 90;
  // Host CPU (user + system of all CPUs) at or above this: the host is saturated.
  double host_cpu_busy_pct = 85;
  // PSI cpu "some" at or above this: runnable tasks wait for a CPU a fifth of the time, so the
  // host is saturated even when busy time reads lower (iowait and steal hide busy CPUs; a feeder
  // thread that gets 85 % of a core while waiting for the rest is not "below pegged"). Kernel
  // PSI documentation: "some" is the share of time at least one task is stalled on the resource.
  double psi_cpu_pct = 20;
  // iowait at or above this share of all CPU time, or PSI io "some" at or above psi_io_pct:
  // tasks wait on storage (the seed's iostat example: 22 % iowait with a starved GPU).
  double iowait_pct = 10;
  double psi_io_pct = 20;
  // A disk this busy (io_ticks share) is saturated (iostat %util ≥ 80 in the seed playbook).
  double disk_busy_pct = 80;
  // Host storage wait is only the workload's when it reads something itself: below this many
  // read() bytes per second across its processes (1 MiB/s: a log tail, not an input pipeline)
  // the wait is another tenant's. Ignored when no process data was recorded (imports).
  double own_read_bytes_per_s = 1 << 20;
  // cgroup CPU throttling: the workload was throttled at least this share of the interval.
  double cgroup_throttled_pct = 10;
  // Workload CPU at or above this share of its cgroup quota: quota-bound.
  double quota_used_pct = 90;
  // PCIe traffic (TX + RX of one GPU) at or above this share of its link's theoretical rate:
  // transfer-bound. Pinned copies reach ~85 % of theory (AzNHC nvbandwidth minimums), so 60 %
  // sustained over a phase means copies dominate.
  double pcie_link_pct = 60;
  // comm_bound/network: while the GPU is starved, the busiest RDMA port (InfiniBand/RoCE) carries
  // at least net_link_pct of its rate in either direction (the share of theory that makes a
  // PCIe link the limit; NCCL's all-reduce reaches ~80-90 % of line rate), or the ports signal
  // congestion with at least net_cnp_per_s congestion notification packets per second (DCQCN
  // sends at most one CNP per flow per 50 us; hundreds per second mean senders are throttled).
  double net_link_pct = 60;
  double net_cnp_per_s = 500;
  // memory_bound: GPM DRAM bandwidth utilisation at or above this while tensor activity is
  // below tensor_active_pct. Without GPM: NVML memory utilisation (share of time the memory
  // controller was busy) at or above mem_util_pct, with lower confidence.
  double dram_bw_pct = 60;
  double tensor_active_pct = 30;
  double mem_util_pct = 70;
  // launch_bound ("busy but not productive", needs GPM): GPU-Util at or above this while SM
  // activity stays below gpu_starved_pct — kernels are resident but tiny.
  double busy_util_pct = 80;
  // throttled: in a phase where the GPU is not starved, power-cap/thermal/HW-slowdown reasons
  // active at least this share of busy time and clocks at least clock_loss_pct below maximum.
  double throttle_share_pct = 50;
  double clock_loss_pct = 10;
  // Run-level throttling is reported (not as a phase label) from this share of busy time.
  double throttle_report_pct = 10;
  // cpu_fallback: the workload's processes use at least this much CPU (% of one core) while no
  // workload process ever appears on a GPU and the GPUs stay idle.
  // Halved when the host is contended (PSI cpu >= psi_cpu_pct): the job gets part of its ask.
  double fallback_cpu_pct = 50;
  // Small-file / metadata-bound input: average read() size below small_read_bytes and at least
  // opens_per_s files opened per second or read_syscalls_per_s reads per second, during
  // starvation. gpuvet defaults: 64 KiB is below any sensible shard read (tar/record readers use
  // ≥ 1 MiB), and 50 opens/s is a file every 20 ms.
  double small_read_bytes = 64 * 1024;
  double opens_per_s = 50;
  double read_syscalls_per_s = 500;
  // stalled (a hung kernel or collective): GPU-Util at or above stalled_util_pct while board
  // power stays at or below stalled_power_pct of the power limit and memory activity is ~0
  // (NVML memory utilisation and GPM DRAM bandwidth at or below stalled_mem_pct; PCIe at or below
  // stalled_pcie_pct of the link, NVLink at or below stalled_nvlink_bytes_per_s per GPU, where
  // recorded), for at least stalled_min_s. A kernel that spins on a flag (an NCCL collective
  // waiting for a rank that never arrives) keeps GPU-Util at 100 % while the SMs only poll: an
  // idle H100 draws ~10 % of its limit, a spinning one 10-20 %, and real work at 100 % GPU-Util
  // draws well above a quarter. 120 s: two minimum phases, longer than any step, checkpoint or
  // evaluation pause of a healthy job that keeps GPU-Util pinned, and well inside the 10-minute
  // default NCCL watchdog timeout of torch.distributed, so the hang is named before the watchdog
  // kills the job. Without power readings (or a power limit) the label is not given.
  double stalled_util_pct = 80;
  double stalled_power_pct = 25;
  double stalled_mem_pct = 2;
  double stalled_pcie_pct = 1;
  double stalled_nvlink_bytes_per_s = 100e6;
  double stalled_min_s = 120;
  // compute_bound needs evidence that nothing upstream held the GPU back: host figures in the
  // window, GPM SM activity, or board power at or above power_saturated_pct of the limit (the
  // GPU draws what full work draws). Without any of them a window busy less than
  // no_host_busy_pct of the time is idle/no_host_data: GPU-Util alone cannot say why it idles
  // the rest. With power recorded below power_overstated_pct of the limit while GPU-Util is
  // high, GPU-Util overstates the load (a busy GPU at under a third of its power is not
  // saturated).
  double power_saturated_pct = 60;
  double power_overstated_pct = 35;
  double no_host_busy_pct = 90;
  // Change points: a phase lasts at least min_phase_s and min_phase_samples; a split needs a
  // mean shift of at least min_shift_pct in some signal. Short dips stay inside a phase; the
  // periodic-stall detector looks at those.
  double min_phase_s = 60;
  int min_phase_samples = 10;
  double min_shift_pct = 15;
  int max_phases = 24;
  // Periodic stalls: at least periodic_min_stalls troughs (activity below gpu_starved_pct in a
  // run whose median activity is at least that), start-to-start intervals within
  // periodic_jitter_pct of their median, each stall shorter than half the period.
  int periodic_min_stalls = 3;
  double periodic_jitter_pct = 15;
  // A stall coincides with a write burst when disk writes during stalls are at least this many
  // times the writes outside them (and at least 1 MB/s).
  double write_burst_ratio = 3;
  // Sawtooth: within a starved phase, at least this share of samples switch between busy and
  // trough.
  double sawtooth_transitions_pct = 20;
  // Feeding cycle (input in bursts), from GPU activity alone: at least cycle_min_bursts busy
  // bursts (activity above the midpoint of its 10th and 90th percentiles, which must lie
  // cycle_min_amplitude_pct apart) whose start-to-start intervals stay within one sample of their
  // mean for cycle_regular_pct of the intervals, a period of 2 to cycle_max_period_samples
  // samples, and bursts filling less than cycle_max_duty_pct of the period (longer bursts with
  // short dips are periodic stalls). gpuvet defaults: within one sample rejects random and noisy
  // series (their run lengths are geometric), eight cycles are eight repeats of the pattern.
  int cycle_min_bursts = 8;
  double cycle_min_amplitude_pct = 30;
  double cycle_regular_pct = 90;
  int cycle_max_period_samples = 60;
  double cycle_max_duty_pct = 80;
  // One GPU unlike the others (gpu_imbalance), over the samples where most workload GPUs are
  // busy (at least imbalance_min_share_pct of the run), each against the median of the others:
  // idle below imbalance_idle_pct while they are busy; SM clock imbalance_clock_pct below theirs
  // or slowdown reasons imbalance_slowdown_points more of its busy time (slow); activity
  // imbalance_straggler_points above theirs while they stay below imbalance_others_busy_max_pct
  // (the straggler the others wait for); imbalance_hot_c hotter (hot). gpuvet defaults: a 10 %
  // clock gap is the clock_loss_pct that counts as throttled; 10 C is a cooling fault on boards
  // whose GPUs share an airflow path.
  double imbalance_min_share_pct = 10;
  double imbalance_idle_pct = 20;
  double imbalance_clock_pct = 10;
  double imbalance_slowdown_points = 30;
  double imbalance_straggler_points = 25;
  double imbalance_others_busy_max_pct = 80;
  double imbalance_hot_c = 10;
  // Memory growth: at least leak_min_s of data, a least-squares fit with r² ≥ leak_r2, growth of
  // at least leak_growth_pct of the start and leak_min_bytes, and the last third still growing at
  // half the overall slope (a warm-up that plateaus is not a leak).
  double leak_min_s = 120;
  double leak_r2 = 0.8;
  double leak_growth_pct = 10;
  double leak_min_bytes = 64.0 * 1024 * 1024;
  // The run's verdict is the waiting label (a phase bottleneck, periodic stalls, throttling that
  // costs at least clock_loss_pct of clock) with the largest share of wall time, when that share
  // is at least this; else compute_bound/none/idle. gpuvet default: a tenth of the run is worth
  // fixing first.
  double verdict_min_share_pct = 10;
  // Confidence drops to "low" with fewer samples than this in the judged window.
  int min_samples_for_confidence = 30;
};

struct AnalyzeOptions {
  AnalyzeThresholds thresholds;
  std::optional<std::string> target_gpu;  // --target: forecast the speedup on this model
  // --trace: the time budget of a trace taken during the recording, which splits the busy time of
  // the forecast (recording_forecast.h); its GPU name ("" unknown) and file.
  std::optional<TimeBudget> trace_budget;
  std::string trace_gpu;
  std::string trace_label;
  std::optional<double> price_per_gpu_hour;
};

}  // namespace gpuvet
