// Run-level detectors over the whole timeline: periodic stalls (troughs at a regular period with
// the disk-write burst that coincides), short feeding cycles (input bursts), memory growth per
// process and per GPU (slope, fit, time to OOM), and throttling per GPU while busy. Pure functions
// of the recording and its signals.
#pragma once

#include <optional>
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

// Host RSS per workload process (by pid) and memory used per GPU that grow steadily. Sorted by
// time to OOM (soonest first), then by slope.
std::vector<MemoryGrowth> DetectMemoryGrowth(const Recording& rec, const std::vector<int>& gpus,
                                             const AnalyzeThresholds& th);

// Workload GPUs unlike the others (idle_gpu, slow_gpu, straggler, hot_gpu) over the samples where
// most of them are busy, each against the median of the other GPUs; empty with fewer than three
// GPUs, when such samples cover less than imbalance_min_share_pct of `total_s`, or when a quarter
// or more of the GPUs differ (two groups, not one odd GPU). Idle first, then slow, straggler, hot;
// within a kind the largest deviation first.
std::vector<GpuImbalance> DetectGpuImbalance(const Recording& rec, const std::vector<int>& gpus,
                                             double total_s, const AnalyzeThresholds& th);

// Clock-event reasons while each workload GPU was busy.
std::vector<GpuThrottle> SummarizeThrottle(const Recording& rec, const std::vector<int>& gpus,
                                           const AnalyzeThresholds& th);

}  // namespace gpuvet
