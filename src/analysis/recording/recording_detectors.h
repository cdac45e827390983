// Run-level detectors over the whole timeline: periodic stalls (troughs at a regular period with
// the disk-write burst that coincides), short feeding cycles (input bursts), memory growth per
// process and per GPU (slope, fit, time to OOM), GPUs unlike the others, and throttling per GPU
// while busy. Functions of the signals, or accumulators fed one sample at a time (with wrappers
// over a whole recording).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/recording/recording_options.h"
#include "analysis/recording/recording_signals.h"
#include "core/analyze_report.h"
#include "core/recording.h"

namespace gpuvet {

// Troughs of GPU activity (below gpu_starved_pct) in a run whose median activity is at least that,
// recurring at a regular period; nullopt when there are fewer than periodic_min_stalls or the
// intervals are irregular (a bursty server) or the stalls fill half the period (a sawtooth).
std::optional<PeriodicStall> DetectPeriodicStalls(const RecordingSignals& sig,
                                                  const AnalyzeThresholds& th);

// Busy bursts of GPU activity at a short regular period (2 to cycle_max_period_samples samples),
// from activity alone: input that arrives in bursts. nullopt on flat, random or irregular series,
// when the bursts fill most of the period, or with fewer than cycle_min_bursts bursts.
std::optional<FeedingCycle> DetectFeedingCycle(const RecordingSignals& sig,
                                               const AnalyzeThresholds& th);

// Memory growth in two passes over the samples, in memory that follows the number of processes
// and GPUs, not the length: the first pass (Survey) counts and sums each series, the second
// (Add) accumulates the least-squares fits about the means of the first, so the fit is the same
// as over the whole series held at once.
class MemoryGrowthDetector {
 public:
  MemoryGrowthDetector(const RecordingMeta& meta, const AnalyzeThresholds& th);
  ~MemoryGrowthDetector();
  void Survey(const Sample& s);
  // Before the first Add: the GPUs whose memory is judged (the workload's).
  void StartFits(const std::vector<int>& gpus);
  void Add(const Sample& s);
  // Host RSS per workload process (by pid) and memory used per GPU that grow steadily. Sorted by
  // time to OOM (soonest first), then by slope.
  std::vector<MemoryGrowth> Result() const;

 private:
  struct Series;
  // The entry of `key` in `map` (created when `create`, else nullptr when absent), remembered at
  // position `i` of `at`: consecutive samples list the same processes and GPUs in the same
  // order, so a lookup is mostly one comparison.
  // One remembered lookup. `set` is false for a position not looked up yet (a padding entry must
  // never match: a key of 0 is a real pid or GPU index).
  template <typename V>
  struct Remembered {
    int key = 0;
    V* value = nullptr;  // nullptr: `key` has no entry (looked up without `create`)
    bool set = false;
  };
  template <typename V>
  static V* At(std::map<int, V>& map, std::vector<Remembered<V>>& at, size_t i, int key,
               bool create);
  const RecordingMeta& meta_;
  const AnalyzeThresholds& th_;
  std::map<int, Series> rss_, gpu_mem_;
  std::map<int, std::string> comm_;
  std::vector<Remembered<Series>> rss_at_, gpu_at_;
  std::vector<Remembered<std::string>> comm_at_;
  std::vector<int> gpus_;
  std::optional<double> mem_available_;
};

// Workload GPUs unlike the others (idle_gpu, slow_gpu, straggler, hot_gpu) over the samples where
// most of them are busy, each against the median of the other GPUs, one sample at a time (memory
// follows the number of GPUs, not the length). Result is empty with fewer than three GPUs, when
// such samples cover less than imbalance_min_share_pct of `total_s`, or when a quarter or more of
// the GPUs differ (two groups, not one odd GPU). Idle first, then slow, straggler, hot; within a
// kind the largest deviation first.
class GpuImbalanceDetector {
 public:
  GpuImbalanceDetector(const RecordingMeta& meta, const std::vector<int>& gpus,
                       const AnalyzeThresholds& th);
  ~GpuImbalanceDetector();
  void Add(const Sample& s);
  std::vector<GpuImbalance> Result(double total_s) const;

 private:
  struct Acc;
  const RecordingMeta& meta_;
  const AnalyzeThresholds& th_;
  size_t gpus_ = 0;
  std::map<int, Acc> acc_;
  double work_s_ = 0;
};

// GpuImbalanceDetector over a whole recording.
std::vector<GpuImbalance> DetectGpuImbalance(const Recording& rec, const std::vector<int>& gpus,
                                             double total_s, const AnalyzeThresholds& th);

// Clock-event reasons while each workload GPU was busy, one sample at a time.
class ThrottleSummary {
 public:
  ThrottleSummary(const RecordingMeta& meta, const std::vector<int>& gpus,
                  const AnalyzeThresholds& th);
  void Add(const Sample& s);
  std::vector<GpuThrottle> Result() const;

 private:
  const RecordingMeta& meta_;
  const AnalyzeThresholds& th_;
  std::map<int, GpuThrottle> by_gpu_;
  std::map<int, std::pair<double, int>> clock_;  // sum of clock, samples
};

// MemoryGrowthDetector over a whole recording.
std::vector<MemoryGrowth> DetectMemoryGrowth(const Recording& rec, const std::vector<int>& gpus,
                                             const AnalyzeThresholds& th);

// ThrottleSummary over a whole recording.
std::vector<GpuThrottle> SummarizeThrottle(const Recording& rec, const std::vector<int>& gpus,
                                           const AnalyzeThresholds& th);

}  // namespace gpuvet
