// AnalyzeReport: what `gpuvet analyze` learned from one recording (core/recording.h), handed to
// the renderers (output/analyze_*.cc). Plain structs only: the analyses that fill them live in
// analysis/recording_*.cc. Labels use the shared bottleneck vocabulary of `gpuvet trace`; each
// carries its share of wall time, the numbers that decided it with their thresholds, a confidence
// and the decision. Times are seconds since the recording started; percentages are 0–100.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/bottleneck.h"
#include "core/finding.h"
#include "core/forecast.h"

namespace gpuvet {

inline constexpr const char* kAnalyzeSchema = "gpuvet.analyze/v1";

// One bottleneck label of the shared vocabulary (core/bottleneck.h, which also says what each
// means): host_cpu_bound, host_io_bound, transfer_bound, launch_bound, memory_bound,
// compute_bound, throttled, periodic_stall, memory_leak, cpu_fallback, idle; or none when the GPU
// is not the limit and nothing waits (a bursty server between requests, a light job that is still
// fast). Renderers write BottleneckName(label) and SubcaseName(detail).
struct BottleneckLabel {
  Bottleneck label = Bottleneck::kNone;
  // Sub-diagnosis, Subcase::kNone when none: single_thread_feeder, cpu_quota, cpu_saturated,
  // small_files, storage, bursty, no_host_data, power_cap, thermal, hw_slowdown,
  // busy_not_productive, write_burst, host_rss, gpu_memory.
  Subcase detail = Subcase::kNone;
  double seconds = 0;              // wall time the label covers
  double share_pct = 0;            // of the recording's wall time
  std::string confidence;          // "high", "medium", "low"
  std::string reason;              // one line with the deciding numbers
  std::vector<Evidence> evidence;  // measured value and threshold it was held against
  std::string decision;            // what to change
};

// A steady stretch of the timeline between two change points, with its mean signals.
struct AnalyzePhase {
  double start_s = 0;
  double end_s = 0;
  BottleneckLabel label;
  // "sm_active" (GPM) or "gpu_util" (NVML GPU-Util, coarser): the activity metric used.
  std::string activity_metric;
  double gpu_activity_pct = 0;  // mean over the workload's GPUs
  std::optional<double> gpu_util_pct;
  std::optional<double> host_cpu_pct;  // user + system, all CPUs
  std::optional<double> iowait_pct;
  double busiest_thread_pct = 0;  // of one core
};

// Troughs of GPU activity at a regular period (checkpoints, evaluation, logging).
struct PeriodicStall {
  double period_s = 0;
  double stall_s = 0;  // median stall length
  int count = 0;
  double first_s = 0;    // start of the first stall
  double share_pct = 0;  // stalled share of wall time
  // Disk writes (all devices, bytes/s) during the stalls and outside them; a burst when the
  // ratio crosses AnalyzeThresholds::write_burst_ratio.
  double write_bytes_per_s_during = 0;
  double write_bytes_per_s_outside = 0;
  bool write_burst = false;
  // Each stall's [start, end) in seconds since the start.
  std::vector<std::pair<double, double>> stalls;
  // The kernel log event that coincides with most stalls (KernelEventGroup::kind/message),
  // when it coincides with at least half of them (and at least two); "" when none does.
  std::string cause_kind;     // "nfs_not_responding", "hung_task", "io_error", "xid", …
  std::string cause_message;  // its first line, "nfs: server fs1 not responding, still trying"
  int cause_stalls = 0;       // stalls it coincides with
};

// GPU activity alternating between busy bursts and idle gaps at a short fixed period, found from
// GPU activity alone: input that arrives in bursts (a loader that delivers a batch every few
// seconds and the GPU that consumes it in part of that time).
struct FeedingCycle {
  double period_s = 0;             // mean start-to-start interval of the bursts
  double burst_s = 0;              // median busy run
  double duty_pct = 0;             // burst_s / period_s
  int cycles = 0;                  // bursts counted
  double regular_pct = 0;          // share of intervals within one sample of the period
  double busy_level_pct = 0;       // mean activity inside the bursts
  double idle_level_pct = 0;       // mean activity in the gaps
  double first_s = 0, last_s = 0;  // start of the first and last counted burst
  double share_pct = 0;            // idle time inside the cycles, of wall time
};

// One GPU of the workload unlike the others while they work (gpu_imbalance).
struct GpuImbalance {
  int gpu = 0;
  Subcase kind = Subcase::kNone;  // idle_gpu, slow_gpu, hot_gpu, straggler
  double value = 0;               // the GPU's figure (activity %, SM clock MHz, °C, slowdown %)
  double others_median = 0;       // the median of the other workload GPUs
  std::string unit;               // "%", "MHz", "C", "% of busy time"
  double seconds = 0;             // time the comparison covers (the samples where most work)
  double share_pct = 0;           // of wall time
  std::optional<uint64_t> clock_event_reasons;  // the slow GPU's most frequent slowdown bits
};

// Memory that grows steadily: a host process's RSS or a GPU's memory in use.
struct MemoryGrowth {
  std::string subject;  // "pid 4242 (python3)", "gpu0"
  std::string kind;     // "host_rss" or "gpu_memory"
  double start_bytes = 0;
  double end_bytes = 0;
  double slope_bytes_per_s = 0;  // least-squares fit
  double r2 = 0;
  std::optional<double> time_to_oom_s;  // headroom at the end / slope
  std::string headroom_basis;           // "MemAvailable 12.0 GiB", "gpu0 total 80.0 GiB"
};

// Clock-event reasons while a GPU was busy.
struct GpuThrottle {
  int gpu = 0;
  double busy_s = 0;                     // time with activity above the idle threshold
  double power_cap_pct = 0;              // share of busy time with SW power cap
  double thermal_pct = 0;                // SW or HW thermal slowdown
  double hw_slowdown_pct = 0;            // HW slowdown or power brake
  std::optional<double> clock_loss_pct;  // 1 − mean busy SM clock / max SM clock
};

struct GpuEnergy {
  int gpu = 0;
  double joules = 0;
  double starved_joules = 0;  // spent while this GPU was starved (activity below threshold)
  std::string method;         // "counter", "counter+power" (gaps filled), "power" (integrated)
  int counter_resets = 0;     // counter went backwards (driver reload, wrap)
  std::optional<double> mean_power_w;
};

struct EnergySummary {
  std::vector<GpuEnergy> gpus;  // the workload's GPUs
  double joules = 0;
  double starved_joules = 0;
  double starved_pct = 0;  // of joules
  std::string method;      // "counter" when every GPU used the counter
  double gpu_hours = 0;
  std::string work_unit;       // from the recording meta
  std::optional<double> work;  // work done over the run
  std::optional<double> work_per_s;
  std::optional<double> work_per_kj;
  std::optional<double> price_per_gpu_hour;
  std::optional<double> cost;
  std::optional<double> work_per_dollar;
};

// An event stored in the recording (schema version 2): a fault of the recorder (a GPU lost, an
// NVML call hung or answering again) or a classified kernel log line.
struct AnalyzeEvent {
  double t = 0;         // seconds since the start
  std::string kind;     // RecordingEventKindId: "gpu_lost", "nvml_hung", "nfs_not_responding" …
  std::string subject;  // "gpu1", "nvml", "fs1"
  std::string message;
};

// The kernel log events of one kind and subject during the run, and where they fell.
struct KernelEventGroup {
  std::string kind;
  std::string subject;
  std::string message;  // the first one's
  int count = 0;
  double first_s = 0, last_s = 0;
  int stalls_with = 0;      // periodic stalls with one of them inside (± 2 intervals)
  std::vector<int> phases;  // indexes into AnalyzeReport::phases they fell in
};

struct AnalyzeReport {
  std::string source;        // the recording path
  std::string generated_at;  // ISO 8601 UTC, from the clock or --now
  std::string host;
  std::string owner;  // who ran the job ("job 4242 (alice)", the recording's "owner" note), or ""
  std::string producer;
  std::vector<std::string> command;
  std::vector<std::string> gpu_names;  // by RecordedGpu index order
  std::vector<int> workload_gpus;      // the GPUs the analysis judges
  double start_unix_s = 0;
  double duration_s = 0;
  double interval_s = 0;
  uint64_t samples = 0;
  std::optional<int> exit_code;
  bool complete = true;  // false: the recorder stopped without writing the end
  bool gpm = false;      // SM activity (GPM) was available
  std::vector<std::string> warnings;
  // The series that no sample of the recording holds ("throttle_reasons", "disk", "host_cpu",
  // "power", "pcie_bytes" …, ids as in docs/analyze.md): shown as "not recorded", never as 0.
  std::vector<std::string> not_recorded;
  // Faults of the recorder, by time: reported before everything else, since the figures after a
  // lost GPU or a hung NVML call miss that GPU (or every GPU).
  std::vector<AnalyzeEvent> faults;
  std::vector<KernelEventGroup> kernel_events;  // by first time

  std::vector<AnalyzePhase> phases;     // in time order
  std::vector<BottleneckLabel> labels;  // every label found, by share of wall time
  BottleneckLabel verdict;              // the whole run
  std::optional<PeriodicStall> periodic;
  std::optional<FeedingCycle> cycle;    // short feeding cycle (input bursts)
  std::vector<GpuImbalance> imbalance;  // GPUs unlike the others, largest deviation first
  std::vector<MemoryGrowth> memory;     // growing memory only
  std::vector<GpuThrottle> throttle;    // per workload GPU
  EnergySummary energy;
  std::optional<UpgradeForecast> forecast;
};

// The live verdict of `gpuvet watch` over a short window of recent samples.
struct LiveVerdict {
  Bottleneck label = Bottleneck::kNone;
  Subcase detail = Subcase::kNone;
  std::string evidence;  // one line
  std::string decision;
};

}  // namespace gpuvet
