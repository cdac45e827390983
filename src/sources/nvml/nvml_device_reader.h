// Internal to the NVML source: reads every GpuState field of one device through bounded NVML
// calls, converting units at the boundary (mW -> W, bytes, MHz, sysfs-form PCI addresses).
#pragma once

#include <cstdint>
#include <optional>

#include "core/gpu_state.h"
#include "sources/nvml/bounded_call.h"
#include "sources/nvml/nvml_loader.h"

namespace gpuvet::nvml_internal {

// A device count beyond this is garbage from a broken driver, not a node (NVML supports 64); it
// also bounds the MIG device walk.
constexpr unsigned kMaxDevices = 256;

// Fills every field of `gpu` (index already set) from device `dev`. Failed calls are recorded in
// gpu.failures; a lost GPU sets gpu.lost and stops further calls; after a hang every call is
// skipped without touching NVML, so `dev` may then be null. Never fails as a whole.
void ReadNvmlDevice(const NvmlLibrary& lib, BoundedExecutor& exec, nvmlDevice_t dev, GpuState& gpu);

// One nvmlDeviceGetFieldValues answer as a count, whichever nvmlValue_t member its valueType
// names; nullopt for a negative, non-finite, out-of-range or unknown-typed value. Ignores
// f.nvmlReturn (the caller checks it first). Any bytes are safe to pass.
std::optional<uint64_t> FieldValueAsCount(const nvmlFieldValue_t& f);

}  // namespace gpuvet::nvml_internal
