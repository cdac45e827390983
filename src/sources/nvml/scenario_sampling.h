// Scenario answers that only the recording sampler asks for (docs/nvml-scenario.md, "Sampling
// keys"): the energy counter, PCIe throughput, per-process SM use and GPM metrics. They live
// beside GpuState in a ScenarioGpu because `gpuvet check` never reads them.
#pragma once

#include <cstdint>
#include <vector>

#include "core/reading.h"

namespace gpuvet {

// One process in nvmlDeviceGetProcessUtilization's answer.
struct ScenarioProcessUtil {
  uint32_t pid = 0;
  int64_t sm_util_pct = 0;  // may exceed 100, as real drivers sometimes answer
  int mem_util_pct = 0;
};

// Same Reading conventions as ScenarioGpu::state (value / NOT_SUPPORTED / absent / error name).
struct ScenarioSampling {
  Reading<uint64_t> energy_mj;  // nvmlDeviceGetTotalEnergyConsumption
  Reading<int> pcie_tx_kbps;    // nvmlDeviceGetPcieThroughput (KB/s, as NVML answers)
  Reading<int> pcie_rx_kbps;
  Reading<std::vector<ScenarioProcessUtil>> process_utilization;  // empty list: NOT_FOUND
  // GPM metrics (nvmlGpmMetricsGet); any of them present makes the GPU GPM-capable. Bytes per
  // second here; the fake answers MiB/s as NVML does.
  Reading<double> gpm_sm_active_pct;
  Reading<double> gpm_sm_occupancy_pct;
  Reading<double> gpm_tensor_active_pct;
  Reading<double> gpm_dram_bw_util_pct;
  Reading<double> gpm_pcie_tx_bytes_per_s;
  Reading<double> gpm_pcie_rx_bytes_per_s;
  Reading<double> gpm_nvlink_tx_bytes_per_s;
  Reading<double> gpm_nvlink_rx_bytes_per_s;
};

}  // namespace gpuvet
