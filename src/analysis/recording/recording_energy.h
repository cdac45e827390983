// Work per joule and per dollar: energy per workload GPU from NVML's cumulative energy counter
// (deltas; a counter that goes backwards — driver reload, wrap — or is missing falls back to
// integrating power, and says so), the energy spent while each GPU was starved, the work done from
// WorkloadSample::work_total, and with a price per GPU-hour the cost and work per dollar.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "analysis/recording/recording_options.h"
#include "core/analyze_report.h"
#include "core/recording.h"

namespace gpuvet {

// Energy and work, one sample at a time.
class EnergyAccount {
 public:
  EnergyAccount(const RecordingMeta& meta, const std::vector<int>& gpus,
                const AnalyzeThresholds& th);
  ~EnergyAccount();
  void Add(const Sample& s);
  // The summary over the samples added; duration_s sets the GPU-hours.
  EnergySummary Result(double duration_s, std::optional<double> price_per_gpu_hour) const;

 private:
  struct Acc;
  const RecordingMeta& meta_;
  const AnalyzeThresholds& th_;
  size_t gpu_count_;
  std::map<int, Acc> acc_;
  std::map<int, double> limit_;
  double work_ = 0, work_t0_, work_t1_, prev_work_;
};

// EnergyAccount over a whole recording.
EnergySummary ComputeEnergy(const Recording& rec, const std::vector<int>& gpus, double duration_s,
                            const AnalyzeThresholds& th, std::optional<double> price_per_gpu_hour);

}  // namespace gpuvet
