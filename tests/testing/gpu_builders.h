// Builders of measurement states for rule and renderer tests: a GPU healthy on every check, its
// NVLinks, an inventory around GPUs, and the sysfs function of an NVIDIA device. Tests start from
// these and change only the field under test, so each test reads as "healthy, except …".
#pragma once

#include <string>
#include <vector>

#include "core/gpu_state.h"
#include "core/host_state.h"

namespace gpuvet::test {

// A GPU with only its identity set (every Reading absent): gpu`index` at `pci_bus_id`.
GpuState GpuAt(int index, std::string pci_bus_id);

// An active NVLink `link` with every error counter read as 0.
NvLinkState HealthyNvLink(int link);

// A busy, healthy, Ampere-or-newer GPU, as every GPU rule wants it: 95 % utilisation, no clock
// event reasons, SM clock at its 1980 MHz max, 60 C (slowdown 87 C), 500 W of a 700 W default
// limit, PCIe Gen4 x16 at its max with no replays, ECC on with no errors, row remapping (page
// retirement not supported), persistence on, MIG off, and four healthy NVLinks.
GpuState HealthyGpu(int index, std::string pci_bus_id);

// An inventory in state kOk holding `gpus` (nothing else set).
GpuInventory InventoryOf(std::vector<GpuState> gpus);

// The sysfs PCI function of an NVIDIA device (vendor 0x10de) at `address`; nothing else set.
PciFunction NvidiaFunction(std::string address);

}  // namespace gpuvet::test
