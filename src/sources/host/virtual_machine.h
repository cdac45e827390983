// Virtual machine detection: whether the host is a guest, which hypervisor, and the evidence —
// the CPU `hypervisor` flag in /proc/cpuinfo, the DMI vendor and product in /sys/class/dmi/id
// (the names systemd-detect-virt matches), and virtual PCIe bridges above the GPUs (QEMU and
// VMware root ports). Parsers are pure; the reader goes through HostPaths.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_paths.h"
#include "core/host_state.h"
#include "util/status.h"

namespace gpuvet {

// Whether the x86 "flags" line of /proc/cpuinfo text lists `hypervisor` (set by every hypervisor
// that announces itself through CPUID leaf 1, ECX bit 31). NotFound when no "flags" line is
// present (another architecture, or a truncated file).
Result<bool> CpuinfoHasHypervisorFlag(std::string_view cpuinfo);

// The hypervisor a DMI sys_vendor / product_name pair names ("KVM", "QEMU", "Amazon EC2",
// "Google Compute Engine", "Microsoft Hyper-V", "VMware", "Xen", "VirtualBox", …), or "" for a
// physical vendor ("Dell Inc.", "Supermicro"). Matching is case-insensitive on known prefixes.
std::string HypervisorFromDmi(std::string_view sys_vendor, std::string_view product_name);

// The name of a virtual PCI bridge by vendor/device id ("QEMU PCIe root port" for 1b36:000c,
// "VMware PCIe root port" for 15ad:07a0, …), or "" for any other device.
std::string_view VirtualBridgeName(uint32_t vendor, uint32_t device);

// Detects a virtual machine from the files above (through `paths`) and the GPUs' upstream
// bridges in `pci_gpus` (already read). Never fails: an unreadable file is simply not evidence.
// A DMI vendor of "Amazon EC2" alone is not taken as a VM (EC2 bare-metal instances report it
// too); the `hypervisor` flag or a virtual bridge decides there.
VirtualMachineState DetectVirtualMachine(const HostPaths& paths,
                                         const Reading<std::vector<GpuPciTopology>>& pci_gpus);

}  // namespace gpuvet
