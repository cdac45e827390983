// The upgrade forecast: from the share of wall time under each label, how long the job would take
// on a target GPU. Host-side waiting (host_cpu_bound, host_io_bound, cpu_fallback, idle, periodic
// stalls, "none") does not shrink on a bigger GPU; launch-bound time does not either (launch
// overhead is host-side); compute-bound time scales with dense tensor throughput, memory-bound
// time with memory bandwidth, transfer-bound time with the PCIe link; throttled time scales like
// compute. Amdahl's law over those parts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/analyze_report.h"
#include "core/recording.h"

namespace gpuvet {

// `phases` with their labels and seconds; `periodic` stall time is taken out of the GPU-side
// phases it fell in. `current_name` is the recorded GPU's NVML name; its PCIe link from the
// recording when known. nullopt when `target` is not in the spec table (the caller reports a
// usage error with GpuSpecKeys()).
std::optional<UpgradeForecast> ForecastUpgrade(const std::vector<AnalyzePhase>& phases,
                                               const std::optional<PeriodicStall>& periodic,
                                               const RecordedGpu* current,
                                               const std::string& target);

}  // namespace gpuvet
