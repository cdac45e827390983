// What the GPU sources (NVML, or a saved `nvidia-smi -q -x`) measured, in plain structs with units
// converted at the source. Rules read these; they never call NVML themselves.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/reading.h"

namespace gpuvet {

// NVML clock event ("throttle") reason bits, as defined by nvml.h (nvmlClocksEventReason*).
namespace clock_reason {
inline constexpr uint64_t kGpuIdle = 0x1;
inline constexpr uint64_t kApplicationsClocksSetting = 0x2;
inline constexpr uint64_t kSwPowerCap = 0x4;
inline constexpr uint64_t kHwSlowdown = 0x8;
inline constexpr uint64_t kSyncBoost = 0x10;
inline constexpr uint64_t kSwThermalSlowdown = 0x20;
inline constexpr uint64_t kHwThermalSlowdown = 0x40;
inline constexpr uint64_t kHwPowerBrakeSlowdown = 0x80;
inline constexpr uint64_t kDisplayClockSetting = 0x100;
}  // namespace clock_reason

struct NvLinkState {
  int link = 0;
  bool active = false;
  Reading<uint64_t> replay_errors;
  Reading<uint64_t> recovery_errors;
  Reading<uint64_t> crc_flit_errors;
  Reading<uint64_t> crc_data_errors;
  // NVLink5 (Blackwell) counters, read through NVML field values where the per-link error
  // counter call is not supported (then `from_field_values`). Fatal: a link that failed to
  // recover, malformed packets, buffer overruns (data was lost or the link went down).
  // Non-fatal: recoveries that succeeded, errors FEC could not hide (effective), local link
  // integrity and receive errors; symbol errors are raw pre-FEC errors, normal in small numbers.
  bool from_field_values = false;
  Reading<uint64_t> recovery_failed_events;
  Reading<uint64_t> malformed_packet_errors;
  Reading<uint64_t> buffer_overrun_errors;
  Reading<uint64_t> recovery_successful_events;
  Reading<uint64_t> effective_errors;
  Reading<uint64_t> local_link_integrity_errors;
  Reading<uint64_t> rx_errors;
  Reading<uint64_t> symbol_errors;
  Reading<uint64_t> tx_bytes;  // throughput counters since the driver loaded
  Reading<uint64_t> rx_bytes;
};

struct GpuProcess {
  uint32_t pid = 0;
  uint64_t used_memory_bytes = 0;  // 0 when the driver does not report it
};

// What an NVML error says about a GPU, one meaning per code (the NVML source maps each code; the
// rules give each its finding): why nvmlDeviceGetHandleByIndex could not open a GPU.
enum class GpuFault {
  kNone,
  kUnknown,            // NVML_ERROR_UNKNOWN: the GPU does not answer its driver
  kLost,               // NVML_ERROR_GPU_IS_LOST: fallen off the bus
  kResetRequired,      // NVML_ERROR_RESET_REQUIRED: unusable until a GPU reset or reboot
  kNoPermission,       // NVML_ERROR_NO_PERMISSION: this process may not open it (not a fault)
  kInsufficientPower,  // NVML_ERROR_INSUFFICIENT_POWER: its external power is not connected
  kIrqIssue,           // NVML_ERROR_IRQ_ISSUE: its interrupts do not reach the kernel
  kCorruptedInforom,   // NVML_ERROR_CORRUPTED_INFOROM: its InfoROM is corrupted
  kTimeout,            // NVML_ERROR_TIMEOUT: the driver timed out talking to it
  kOther,              // any other code: the driver counts the GPU but cannot open it
};

// A call that failed or hung while reading one GPU; turned into gpu.query_failed findings.
struct CallFailure {
  std::string call;     // "nvmlDeviceGetPowerUsage"
  std::string message;  // "timed out after 2000 ms" / "Unknown Error (999)"
  bool timed_out = false;
};

struct GpuState {
  int index = 0;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  std::string uuid;  // "GPU-…"
  std::string serial;
  std::string pci_bus_id;  // normalised sysfs form: "0000:3b:00.0" (lower case)
  std::string vbios_version;
  Reading<int> minor_number;  // N in /dev/nvidiaN

  Reading<bool> persistence_mode;
  Reading<int> performance_state;  // P0 = 0 … P15

  Reading<int> gpu_util_pct;
  Reading<int> memory_util_pct;
  Reading<uint64_t> memory_total_bytes;
  Reading<uint64_t> memory_used_bytes;

  Reading<int> sm_clock_mhz;
  Reading<int> sm_clock_max_mhz;
  Reading<int> mem_clock_mhz;
  Reading<int> mem_clock_max_mhz;
  Reading<uint64_t> clock_event_reasons;  // clock_reason bits

  Reading<int> temperature_c;
  Reading<int> slowdown_temperature_c;
  Reading<int> shutdown_temperature_c;
  // T.Limit: Ada and newer report temperatures relative to the GPU's T.Limit instead of absolute
  // thresholds. temperature_margin_c is how many °C the GPU is below T.Limit now (NVML
  // nvmlDeviceGetMarginTemperature; nvidia-smi "GPU T.Limit Temp", XML gpu_temp_tlimit); negative
  // past it. The offsets say where slowdown and shutdown engage relative to T.Limit ("GPU Slowdown
  // T.Limit Temp" -2 C on H100: slowdown once the margin falls to -2 °C; NVML field
  // NVML_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT / _SHUTDOWN_TLIMIT). thermal.margin prefers these.
  Reading<int> temperature_margin_c;
  Reading<int> slowdown_tlimit_c;
  Reading<int> shutdown_tlimit_c;

  Reading<double> power_w;  // power_draw, else instant_power_draw where the driver has only that
  Reading<double> power_limit_w;          // enforced limit
  Reading<double> default_power_limit_w;  // board default
  // The limit asked for (nvidia-smi "Requested Power Limit"); the enforced one can be lower when
  // the platform caps the GPU (Grace Hopper module power budget, out-of-band power capping).
  Reading<double> requested_power_limit_w;
  Reading<double> energy_j;  // energy since the driver loaded (NVML counts mJ; Volta and newer)

  // PCIe as the GPU sees it (NVML). sysfs gives the host side: see PciFunction.
  Reading<int> pcie_gen;
  Reading<int> pcie_gen_max;  // max of GPU and system, as NVML reports
  Reading<int> pcie_width;
  Reading<int> pcie_width_max;
  Reading<uint64_t> pcie_replay_counter;
  // GPU virtualization mode as the driver reports it ("None", "Pass-Through", "VGPU", "Host VGPU");
  // read from captures (virtualization_mode): a guest's GPU sits behind the hypervisor's PCIe
  // model.
  Reading<std::string> virtualization_mode;

  Reading<bool> ecc_enabled;
  Reading<bool> ecc_pending_enabled;
  Reading<uint64_t> ecc_corrected_volatile;
  Reading<uint64_t> ecc_uncorrected_volatile;
  Reading<uint64_t> ecc_corrected_aggregate;
  Reading<uint64_t> ecc_uncorrected_aggregate;
  Reading<int> retired_pages_sbe;
  Reading<int> retired_pages_dbe;
  Reading<bool> retired_pages_pending;
  Reading<int> remapped_rows_correctable;
  Reading<int> remapped_rows_uncorrectable;
  Reading<bool> remap_pending;
  Reading<bool> remap_failure;

  Reading<bool> mig_enabled;
  Reading<bool> mig_pending_enabled;
  Reading<int> mig_instances;  // MIG devices configured

  std::vector<NvLinkState> nvlinks;  // empty: no NVLink (or not supported)
  Reading<std::vector<GpuProcess>> compute_processes;

  bool lost = false;      // a call answered NVML_ERROR_GPU_IS_LOST
  std::string lost_call;  // which one
  // A call answered NVML_ERROR_RESET_REQUIRED (which one): the GPU needs a reset before use.
  bool reset_required = false;
  std::string reset_required_call;
  // Driver 570+ health fields (nvidia-smi -q / -q -x; not supported elsewhere): the recovery
  // action the driver asks for ("None", "Reset", "Drain and Reset", "Node Reboot Required",
  // "Drain P2P"), memory that can no longer be repaired, repairs waiting for a reset, the SRAM
  // uncorrectable-error threshold, and NVSwitch-fabric registration ("Completed" / "Success").
  Reading<std::string> recovery_action;
  Reading<bool> unrepairable_memory;
  Reading<bool> channel_repair_pending;
  Reading<bool> tpc_repair_pending;
  Reading<bool> sram_threshold_exceeded;
  Reading<std::string> fabric_state;
  Reading<std::string> fabric_status;
  // A capture: fields whose value is nvidia-smi's own error text ("Unknown Error", "GPU requires
  // reset", "GPU is lost") in place of a value, as {element path, text}, every field of the GPU
  // (not only those gpuvet reads), and how many value fields the GPU section has.
  std::vector<CallFailure> error_values;
  int value_fields = 0;
  // Live NVML: nvmlDeviceGetHandleByIndex failed, so nothing else on this GPU was asked (its
  // name and PCI address are unknown; the rules take the address from sysfs). The failure, with
  // NVML's text, is also in `failures`.
  GpuFault handle_fault = GpuFault::kNone;
  // NVML stopped answering while this GPU was read (a call hung, here or on an earlier GPU), so
  // its later fields are missing. Rules skip such GPUs; gpu.query_failed reports them once.
  bool abandoned = false;
  std::vector<CallFailure> failures;
  // Live NVML: how many calls on this GPU's handle returned an answer (SUCCESS, or a count for a
  // count query), and whether it answered nothing at all: every call failed (UNKNOWN, say), none
  // gave a value. Set by the NVML reader; gpu.unresponsive fails such a GPU.
  int answered_calls = 0;
  bool answered_nothing = false;
};

enum class GpuSourceState {
  kOk,               // library loaded, initialised, devices enumerated
  kLibraryMissing,   // libnvidia-ml.so.1 not found / not loadable
  kDriverNotLoaded,  // library present, NVML_ERROR_DRIVER_NOT_LOADED
  kInitFailed,       // nvmlInit failed otherwise (message in detail)
  kHung,             // nvmlInit or device enumeration did not return in time
  kNotRun,           // GPU source skipped (e.g. --only host areas)
};

struct GpuInventory {
  std::string origin;  // "nvml (/usr/lib/.../libnvidia-ml.so.1)" or "nvidia-smi-xml (file)"
  GpuSourceState state = GpuSourceState::kNotRun;
  std::string detail;                   // why the state is not kOk, in words
  Reading<std::string> driver_version;  // "550.90.07"
  Reading<std::string> nvml_version;    // "12.550.90.07"
  Reading<int> cuda_driver_version;     // 12040 for CUDA 12.4
  Reading<int> device_count;            // what the driver reports (may exceed gpus.size())
  std::vector<GpuState> gpus;
  std::vector<CallFailure> failures;  // system-level call failures
  // Non-empty when the overall time budget of the read (`gpuvet check --timeout`) ran out: how it
  // was set ("16 s (--timeout)"). GPUs and fields not read before then are missing (abandoned).
  std::string budget_exhausted;
  // Read from a saved `nvidia-smi -q -x` capture, not a live driver: GPUs the capture does not
  // hold were not captured (not lost), and a field it lacks was not recorded (unknown).
  bool from_capture = false;
  // A capture that says it was taken of selected GPUs (`nvidia-smi -q -i N`: the command line
  // saved with it), so fewer GPU sections than "Attached GPUs" is expected; and one cut short
  // (the text ends inside a GPU section), so GPUs after it are missing from the file.
  bool capture_selected = false;
  bool capture_truncated = false;
  // When the capture was taken, as the capture says it ("Fri Jun 21 02:03:08 2024", the captured
  // host's local time); unset for live NVML.
  Reading<std::string> captured_at;
};

// The Unsupported note the capture reader gives a field whose element the capture lacks (an older
// or sparse capture), as opposed to the "N/A" / "Not Supported" nvidia-smi prints for a field the
// GPU does not offer. Rules report such a field as unknown, not as "not supported".
inline constexpr std::string_view kNotInCapture = "not in capture";

// True for a Reading the capture reader left Unsupported because its element is absent.
template <typename T>
bool NotInCapture(const Reading<T>& r) {
  return r.unsupported() && r.note == kNotInCapture;
}

// "12.4" from 12040.
std::string FormatCudaVersion(int v);

}  // namespace gpuvet
