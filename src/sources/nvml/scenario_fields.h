// Internal to the scenario format: every GpuState field is listed once, in the tables below, with
// its JSON key and the NVML function that answers it; the parser (scenario_json_parse.cc) and the
// writer (scenario_json_write.cc) both walk these tables, so a new field is added in one place.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/gpu_state.h"
#include "sources/nvml/nvml_api.h"
#include "sources/nvml/scenario_sampling.h"

namespace gpuvet::scenario_internal {

// The format version written to "scenario_version"; bump on incompatible changes.
inline constexpr int kScenarioVersion = 1;

template <typename T>
struct Field {
  const char* key;
  Reading<T> GpuState::*member;
  const char* call;  // the NVML function whose answer this field is
};

inline constexpr Field<int> kIntFields[] = {
    {"minor_number", &GpuState::minor_number, "nvmlDeviceGetMinorNumber"},
    {"performance_state", &GpuState::performance_state, "nvmlDeviceGetPerformanceState"},
    {"gpu_util_pct", &GpuState::gpu_util_pct, "nvmlDeviceGetUtilizationRates"},
    {"memory_util_pct", &GpuState::memory_util_pct, "nvmlDeviceGetUtilizationRates"},
    {"sm_clock_mhz", &GpuState::sm_clock_mhz, "nvmlDeviceGetClockInfo"},
    {"sm_clock_max_mhz", &GpuState::sm_clock_max_mhz, "nvmlDeviceGetMaxClockInfo"},
    {"mem_clock_mhz", &GpuState::mem_clock_mhz, "nvmlDeviceGetClockInfo"},
    {"mem_clock_max_mhz", &GpuState::mem_clock_max_mhz, "nvmlDeviceGetMaxClockInfo"},
    {"temperature_c", &GpuState::temperature_c, "nvmlDeviceGetTemperature"},
    {"slowdown_temperature_c", &GpuState::slowdown_temperature_c,
     "nvmlDeviceGetTemperatureThreshold"},
    {"shutdown_temperature_c", &GpuState::shutdown_temperature_c,
     "nvmlDeviceGetTemperatureThreshold"},
    {"temperature_margin_c", &GpuState::temperature_margin_c, "nvmlDeviceGetMarginTemperature"},
    {"pcie_gen", &GpuState::pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration"},
    {"pcie_gen_max", &GpuState::pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration"},
    {"pcie_width", &GpuState::pcie_width, "nvmlDeviceGetCurrPcieLinkWidth"},
    {"pcie_width_max", &GpuState::pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth"},
    {"retired_pages_sbe", &GpuState::retired_pages_sbe, "nvmlDeviceGetRetiredPages"},
    {"retired_pages_dbe", &GpuState::retired_pages_dbe, "nvmlDeviceGetRetiredPages"},
    {"remapped_rows_correctable", &GpuState::remapped_rows_correctable,
     "nvmlDeviceGetRemappedRows"},
    {"remapped_rows_uncorrectable", &GpuState::remapped_rows_uncorrectable,
     "nvmlDeviceGetRemappedRows"},
    {"mig_instances", &GpuState::mig_instances, "nvmlDeviceGetMaxMigDeviceCount"},
};

inline constexpr Field<uint64_t> kUint64Fields[] = {
    {"memory_total_bytes", &GpuState::memory_total_bytes, "nvmlDeviceGetMemoryInfo"},
    {"memory_used_bytes", &GpuState::memory_used_bytes, "nvmlDeviceGetMemoryInfo"},
    {"clock_event_reasons", &GpuState::clock_event_reasons,
     "nvmlDeviceGetCurrentClocksEventReasons"},
    {"pcie_replay_counter", &GpuState::pcie_replay_counter, "nvmlDeviceGetPcieReplayCounter"},
    {"ecc_corrected_volatile", &GpuState::ecc_corrected_volatile, "nvmlDeviceGetTotalEccErrors"},
    {"ecc_uncorrected_volatile", &GpuState::ecc_uncorrected_volatile,
     "nvmlDeviceGetTotalEccErrors"},
    {"ecc_corrected_aggregate", &GpuState::ecc_corrected_aggregate, "nvmlDeviceGetTotalEccErrors"},
    {"ecc_uncorrected_aggregate", &GpuState::ecc_uncorrected_aggregate,
     "nvmlDeviceGetTotalEccErrors"},
};

inline constexpr Field<bool> kBoolFields[] = {
    {"persistence_mode", &GpuState::persistence_mode, "nvmlDeviceGetPersistenceMode"},
    {"ecc_enabled", &GpuState::ecc_enabled, "nvmlDeviceGetEccMode"},
    {"ecc_pending_enabled", &GpuState::ecc_pending_enabled, "nvmlDeviceGetEccMode"},
    {"retired_pages_pending", &GpuState::retired_pages_pending,
     "nvmlDeviceGetRetiredPagesPendingStatus"},
    {"remap_pending", &GpuState::remap_pending, "nvmlDeviceGetRemappedRows"},
    {"remap_failure", &GpuState::remap_failure, "nvmlDeviceGetRemappedRows"},
    {"mig_enabled", &GpuState::mig_enabled, "nvmlDeviceGetMigMode"},
    {"mig_pending_enabled", &GpuState::mig_pending_enabled, "nvmlDeviceGetMigMode"},
};

inline constexpr Field<double> kDoubleFields[] = {
    {"power_w", &GpuState::power_w, "nvmlDeviceGetPowerUsage"},
    {"power_limit_w", &GpuState::power_limit_w, "nvmlDeviceGetEnforcedPowerLimit"},
    {"default_power_limit_w", &GpuState::default_power_limit_w,
     "nvmlDeviceGetPowerManagementDefaultLimit"},
};

// Identity strings are plain std::string in GpuState: empty means "not answered".
struct StringField {
  const char* key;
  std::string GpuState::*member;
  const char* call;
};
inline constexpr StringField kStringFields[] = {
    {"name", &GpuState::name, "nvmlDeviceGetName"},
    {"uuid", &GpuState::uuid, "nvmlDeviceGetUUID"},
    {"serial", &GpuState::serial, "nvmlDeviceGetSerial"},
    {"pci_bus_id", &GpuState::pci_bus_id, "nvmlDeviceGetPciInfo_v3"},
    {"vbios_version", &GpuState::vbios_version, "nvmlDeviceGetVbiosVersion"},
};

struct NvLinkCounterField {
  const char* key;
  Reading<uint64_t> NvLinkState::*member;
};
inline constexpr NvLinkCounterField kNvLinkCounters[] = {
    {"replay_errors", &NvLinkState::replay_errors},
    {"recovery_errors", &NvLinkState::recovery_errors},
    {"crc_flit_errors", &NvLinkState::crc_flit_errors},
    {"crc_data_errors", &NvLinkState::crc_data_errors},
    {"recovery_failed_events", &NvLinkState::recovery_failed_events},
    {"malformed_packet_errors", &NvLinkState::malformed_packet_errors},
    {"buffer_overrun_errors", &NvLinkState::buffer_overrun_errors},
    {"recovery_successful_events", &NvLinkState::recovery_successful_events},
    {"effective_errors", &NvLinkState::effective_errors},
    {"local_link_integrity_errors", &NvLinkState::local_link_integrity_errors},
    {"rx_errors", &NvLinkState::rx_errors},
    {"symbol_errors", &NvLinkState::symbol_errors},
    {"tx_bytes", &NvLinkState::tx_bytes},
    {"rx_bytes", &NvLinkState::rx_bytes},
};

// The NVML field id of each per-link counter, as nvmlDeviceGetFieldValues answers it (scopeId =
// the link). The reader asks these where nvmlDeviceGetNvLinkErrorCounter is not supported; the
// fake answers them from the same scenario keys. crc_data_errors has no field of its own.
struct NvLinkFieldId {
  unsigned field_id;
  Reading<uint64_t> NvLinkState::*member;
  const char* name;  // nvml.h name, for notes
};
inline constexpr NvLinkFieldId kNvLinkFieldIds[] = {
    {NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY, &NvLinkState::replay_errors,
     "NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY"},
    {NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY, &NvLinkState::recovery_errors,
     "NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY"},
    {NVML_FI_DEV_NVLINK_ERROR_DL_CRC, &NvLinkState::crc_flit_errors,
     "NVML_FI_DEV_NVLINK_ERROR_DL_CRC"},
    {NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS, &NvLinkState::recovery_failed_events,
     "NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS"},
    {NVML_FI_DEV_NVLINK_COUNT_MALFORMED_PACKET_ERRORS, &NvLinkState::malformed_packet_errors,
     "NVML_FI_DEV_NVLINK_COUNT_MALFORMED_PACKET_ERRORS"},
    {NVML_FI_DEV_NVLINK_COUNT_BUFFER_OVERRUN_ERRORS, &NvLinkState::buffer_overrun_errors,
     "NVML_FI_DEV_NVLINK_COUNT_BUFFER_OVERRUN_ERRORS"},
    {NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS,
     &NvLinkState::recovery_successful_events,
     "NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS"},
    {NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS, &NvLinkState::effective_errors,
     "NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS"},
    {NVML_FI_DEV_NVLINK_COUNT_LOCAL_LINK_INTEGRITY_ERRORS,
     &NvLinkState::local_link_integrity_errors,
     "NVML_FI_DEV_NVLINK_COUNT_LOCAL_LINK_INTEGRITY_ERRORS"},
    {NVML_FI_DEV_NVLINK_COUNT_RCV_ERRORS, &NvLinkState::rx_errors,
     "NVML_FI_DEV_NVLINK_COUNT_RCV_ERRORS"},
    {NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS, &NvLinkState::symbol_errors,
     "NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS"},
    {NVML_FI_DEV_NVLINK_COUNT_XMIT_BYTES, &NvLinkState::tx_bytes,
     "NVML_FI_DEV_NVLINK_COUNT_XMIT_BYTES"},
    {NVML_FI_DEV_NVLINK_COUNT_RCV_BYTES, &NvLinkState::rx_bytes,
     "NVML_FI_DEV_NVLINK_COUNT_RCV_BYTES"},
};
// The most NVLink links per GPU gpuvet reads or a scenario may list: a sanity bound well above
// any GPU's (Blackwell: 18), not nvml.h's NVML_NVLINK_MAX_LINKS, because a GPU reports its own
// count through NVML_FI_DEV_NVLINK_LINK_COUNT and newer ones may have more.
inline constexpr unsigned kMaxNvLinks = 64;
inline constexpr char kFieldValuesCall[] = "nvmlDeviceGetFieldValues";
inline constexpr char kMarginTemperatureCall[] = "nvmlDeviceGetMarginTemperature";
inline constexpr char kNvLinkStateCall[] = "nvmlDeviceGetNvLinkState";
inline constexpr char kNvLinkCounterCall[] = "nvmlDeviceGetNvLinkErrorCounter";
inline constexpr char kProcessesCall[] = "nvmlDeviceGetComputeRunningProcesses_v3";

// Sampling keys (ScenarioSampling): read only by the recording sampler.
template <typename T>
struct SamplingField {
  const char* key;
  Reading<T> ScenarioSampling::*member;
  const char* call;
};
inline constexpr SamplingField<uint64_t> kSamplingUint64Fields[] = {
    {"energy_mj", &ScenarioSampling::energy_mj, "nvmlDeviceGetTotalEnergyConsumption"},
};
inline constexpr SamplingField<int> kSamplingIntFields[] = {
    {"pcie_tx_kbps", &ScenarioSampling::pcie_tx_kbps, "nvmlDeviceGetPcieThroughput"},
    {"pcie_rx_kbps", &ScenarioSampling::pcie_rx_kbps, "nvmlDeviceGetPcieThroughput"},
};
inline constexpr char kGpmMetricsCall[] = "nvmlGpmMetricsGet";
inline constexpr SamplingField<double> kSamplingDoubleFields[] = {
    {"gpm_sm_active_pct", &ScenarioSampling::gpm_sm_active_pct, kGpmMetricsCall},
    {"gpm_sm_occupancy_pct", &ScenarioSampling::gpm_sm_occupancy_pct, kGpmMetricsCall},
    {"gpm_tensor_active_pct", &ScenarioSampling::gpm_tensor_active_pct, kGpmMetricsCall},
    {"gpm_dram_bw_util_pct", &ScenarioSampling::gpm_dram_bw_util_pct, kGpmMetricsCall},
    {"gpm_pcie_tx_bytes_per_s", &ScenarioSampling::gpm_pcie_tx_bytes_per_s, kGpmMetricsCall},
    {"gpm_pcie_rx_bytes_per_s", &ScenarioSampling::gpm_pcie_rx_bytes_per_s, kGpmMetricsCall},
    {"gpm_nvlink_tx_bytes_per_s", &ScenarioSampling::gpm_nvlink_tx_bytes_per_s, kGpmMetricsCall},
    {"gpm_nvlink_rx_bytes_per_s", &ScenarioSampling::gpm_nvlink_rx_bytes_per_s, kGpmMetricsCall},
};
inline constexpr char kProcessUtilizationCall[] = "nvmlDeviceGetProcessUtilization";

// True when `call` is the source of some Reading field (its errors are written on that field).
// True when `call` is the source of some Reading field (its errors are written on that field).
inline bool CallHasField(std::string_view call) {
  for (const auto& f : kIntFields)
    if (call == f.call) return true;
  for (const auto& f : kUint64Fields)
    if (call == f.call) return true;
  for (const auto& f : kBoolFields)
    if (call == f.call) return true;
  for (const auto& f : kDoubleFields)
    if (call == f.call) return true;
  return call == kNvLinkCounterCall || call == kProcessesCall;
}

}  // namespace gpuvet::scenario_internal
