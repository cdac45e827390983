// PCI sysfs source: the NVIDIA GPU functions under /sys/bus/pci/devices and the bridge right above
// each, with link speed/width, AER totals, NUMA node, local CPUs and bound driver. Parsers are pure
// (text in, value out); readers go through HostPaths so a fixture tree can stand in for the host.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_paths.h"
#include "core/host_state.h"
#include "util/status.h"

namespace gpuvet {

// PCI vendor id of NVIDIA (PCI-SIG vendor list).
inline constexpr uint32_t kNvidiaPciVendor = 0x10de;

// Parses a *_link_speed attribute: "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s" -> GT/s.
// "Unknown" (link down, device powered off, or a virtual bridge) -> NotSupported; anything else
// that is not "<number> GT/s ..." -> InvalidInput naming the text.
Result<double> ParseLinkSpeed(std::string_view text);

// Parses a *_link_width attribute ("16"). 0 -> NotSupported (sysfs prints 0 when the width is not
// known); negative, > 32 or garbage -> InvalidInput.
Result<int> ParseLinkWidth(std::string_view text);

// Finds `key` ("TOTAL_ERR_COR", "TOTAL_ERR_NONFATAL", "TOTAL_ERR_FATAL") in the text of an
// aer_dev_* file ("NAME COUNT" lines) and returns its count. InvalidInput when the key is missing
// or its count is not a number.
Result<uint64_t> ParseAerTotal(std::string_view text, std::string_view key);

// True for a PCI address in sysfs form: "0000:3b:00.0" (domain:bus:device.function, hex).
bool IsPciAddress(std::string_view s);

// The PCI address of the bridge above a device, from the device's real sysfs path
// ("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0" -> "0000:00:01.0"); "" when the parent
// component is not a PCI function (the device hangs directly off a host bridge "pci0000:00").
std::string ParentPciAddress(std::string_view real_path);

// Resolves every symlink in the absolute host path `host_path` as if `paths.root()` were "/":
// absolute link targets restart at the root and ".." never climbs above it, so a fixture tree can
// never point the reader outside itself. Returns the resolved host path (not the fixture path).
// NotFound/PermissionDenied when a component is missing or unreadable; InvalidInput after 40 links
// (the Linux MAXSYMLINKS limit) to stop loops.
Result<std::string> ResolveHostPath(const HostPaths& paths, std::string_view host_path);

// Reads one PCI function from its sysfs directory, given as a host path
// ("/sys/devices/pci0000:00/0000:00:01.0"). Fields that cannot be read carry the path and reason;
// absent features (no AER files, numa_node -1, no link attributes) are Unsupported. Fails only when
// vendor or class cannot be read or parsed (the function cannot be identified without them).
Result<PciFunction> ReadPciFunction(const HostPaths& paths, const std::string& host_dir,
                                    const std::string& address);

// Scans /sys/bus/pci/devices for NVIDIA display (class 0x0300xx) and 3D (0x0302xx) functions and
// reads each with its upstream bridge; NVSwitches (0x0680xx), audio (0x0403xx) and other functions
// are skipped. Sorted by address. Unsupported when the directory does not exist; Error when it
// cannot be listed. Entries whose vendor/class cannot be read are skipped.
Reading<std::vector<GpuPciTopology>> ReadPciGpus(const HostPaths& paths);

}  // namespace gpuvet
