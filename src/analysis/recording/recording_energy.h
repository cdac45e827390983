// Work per joule and per dollar: energy per workload GPU from NVML's cumulative energy counter
// (deltas; a counter that goes backwards — driver reload, wrap — or is missing falls back to
// integrating power, and says so), the energy spent while each GPU was starved, the work done from
// WorkloadSample::work_total, and with a price per GPU-hour the cost and work per dollar.
#pragma once

#include <optional>
#include <vector>

#include "analysis/recording/recording_options.h"
#include "core/analyze_report.h"
#include "core/recording.h"

namespace gpuvet {

EnergySummary ComputeEnergy(const Recording& rec, const std::vector<int>& gpus, double duration_s,
                            const AnalyzeThresholds& th, std::optional<double> price_per_gpu_hour);

}  // namespace gpuvet
