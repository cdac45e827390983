// Run-level detectors over the whole timeline: periodic stalls (troughs at a regular period with
// the disk-write burst that coincides), memory growth per process and per GPU (slope, fit, time to
// OOM), and throttling per GPU while busy. Pure functions of the recording and its signals.
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

// Host RSS per workload process (by pid) and memory used per GPU that grow steadily. Sorted by
// time to OOM (soonest first), then by slope.
std::vector<MemoryGrowth> DetectMemoryGrowth(const Recording& rec, const std::vector<int>& gpus,
                                             const AnalyzeThresholds& th);

// Clock-event reasons while each workload GPU was busy.
std::vector<GpuThrottle> SummarizeThrottle(const Recording& rec, const std::vector<int>& gpus,
                                           const AnalyzeThresholds& th);

}  // namespace gpuvet
