// The upgrade forecast of a recording (docs/forecast.md): the share of wall time under each label,
// each part scaled on the target GPU. Host-side waiting (host_cpu_bound, host_io_bound,
// cpu_fallback, idle, periodic stalls, "none") and launch-bound time do not shrink; transfer-bound
// time scales with the host link. GPU-busy time (compute_bound, memory_bound, throttled) is split
// by what the recording can tell: by a trace taken during it (`analyze --trace`), else by GPM
// tensor activity and DRAM bandwidth utilisation, else not at all: GPU-Util cannot tell compute
// from memory time, so the forecast is the range between the memory and the tensor ratio.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/recording/recording_signals.h"
#include "core/analyze_report.h"
#include "core/forecast.h"
#include "core/recording.h"

namespace gpuvet {

// What, besides the phases, the forecast may use. All optional.
struct ForecastInputs {
  // The recording's signal rows (RecordingSignals, over the judged GPUs): GPM and power per phase.
  const RecordingSignals* signals = nullptr;
  // A trace taken during the recording (`analyze --trace`): its budget splits the busy time.
  const TimeBudget* trace = nullptr;
  std::string trace_gpu;    // the trace's deviceProperties name, "" when it gives none
  std::string trace_label;  // the trace file, for the text
};

// `phases` with their labels and seconds; `periodic` stall time is taken out of the GPU-side
// phases it fell in. `current` is the recorded GPU (its PCIe link from the recording when known).
// nullopt when `target` is not in the spec table (the caller reports it with GpuSpecKeys()).
std::optional<UpgradeForecast> ForecastUpgrade(const std::vector<AnalyzePhase>& phases,
                                               const std::optional<PeriodicStall>& periodic,
                                               const RecordedGpu* current,
                                               const std::string& target,
                                               const ForecastInputs& inputs = {});

}  // namespace gpuvet
