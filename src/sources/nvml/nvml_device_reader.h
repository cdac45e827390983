// Internal to the NVML source: reads every GpuState field of one device through bounded NVML
// calls, converting units at the boundary (mW -> W, bytes, MHz, sysfs-form PCI addresses).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/gpu_state.h"
#include "sources/nvml/bounded_call.h"
#include "sources/nvml/nvml_caller.h"
#include "sources/nvml/nvml_loader.h"

namespace gpuvet::nvml_internal {

// A device count beyond this is garbage from a broken driver, not a node (NVML supports 64); it
// also bounds the MIG device walk.
constexpr unsigned kMaxDevices = 256;

// What does not change while the driver stays loaded: identity and limits, read once per NVML
// session (nvml_source.h NvmlSession) and then copied instead of asked again.
struct StaticDeviceInfo {
  std::string name, uuid, serial, vbios_version, pci_bus_id;
  Reading<int> minor_number, sm_clock_max_mhz, mem_clock_max_mhz, slowdown_temperature_c,
      shutdown_temperature_c, pcie_gen_max, pcie_width_max;
  Reading<double> default_power_limit_w;
  unsigned nvlink_count = 0;  // links to walk (NvLinkCount)
};

// Fills every field of `gpu` (index already set) from device `dev`. Failed calls are recorded in
// gpu.failures; a lost GPU sets gpu.lost and stops further calls; after a hang every call is
// skipped without touching NVML, so `dev` may then be null. Never fails as a whole. With
// `cached`, its fields are used instead of their calls; with `learned`, a read that had no
// failure fills it (for the next read's `cached`). `tape`/`replay`: see CallTape.
void ReadNvmlDevice(const NvmlLibrary& lib, CallRunner& exec, nvmlDevice_t dev, GpuState& gpu,
                    const StaticDeviceInfo* cached = nullptr, StaticDeviceInfo* learned = nullptr,
                    CallTape* tape = nullptr, TapeReplay* replay = nullptr);

// ReadNvmlDevice with all its NVML calls batched into one hand-off to the executor's worker
// (BoundedExecutor::RunBatch); the GpuState is then built on this thread from the recorded
// answers, identical to an unbatched read, also when a call hangs part way. `lib` must stay
// alive while a hung call may still run (the caller leaks it when the executor is wedged).
void ReadNvmlDeviceBatched(const NvmlLibrary& lib, BoundedExecutor& exec, nvmlDevice_t dev,
                           GpuState& gpu, const StaticDeviceInfo* cached = nullptr,
                           StaticDeviceInfo* learned = nullptr);

// One nvmlDeviceGetFieldValues answer as a count, whichever nvmlValue_t member its valueType
// names; nullopt for a negative, non-finite, out-of-range or unknown-typed value. Ignores
// f.nvmlReturn (the caller checks it first). Any bytes are safe to pass.
std::optional<uint64_t> FieldValueAsCount(const nvmlFieldValue_t& f);

}  // namespace gpuvet::nvml_internal
