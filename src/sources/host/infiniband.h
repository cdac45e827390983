// InfiniBand / RoCE source: the RDMA devices under /sys/class/infiniband, each port's link layer,
// state, physical state, rate and width and every counter of counters/ and hw_counters/, the
// device's PCIe function, and for each NVIDIA GPU the nearest RDMA device over PCIe (the
// `nvidia-smi topo -m` question answered from the sysfs device paths). Parsers are pure; the
// reader goes through HostPaths so a fixture tree can stand in for the host.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_paths.h"
#include "core/host_state.h"
#include "util/status.h"

namespace gpuvet {

// A port's rate attribute ("200 Gb/sec (4X HDR)", "25 Gb/sec (1X EDR)", "2.5 Gb/sec (1X SDR)",
// "10 Gb/sec (4X)").
struct IbRate {
  double gbps = 0;
  int width = 0;           // 0 when the text names no "NX" width
  std::string speed_name;  // "HDR", "" when absent
};

// Parses a rate attribute. InvalidInput naming the text when it is not "<number> Gb/sec ...".
Result<IbRate> ParseIbRate(std::string_view text);

// Parses a state or phys_state attribute ("4: ACTIVE", "5: LinkUp") into its name ("ACTIVE",
// "LinkUp"). InvalidInput when there is no "<digit>: <name>".
Result<std::string> ParseIbState(std::string_view text);

// Parses one counter file (a decimal count, optionally followed by a newline). InvalidInput
// naming the text otherwise.
Result<uint64_t> ParseIbCounter(std::string_view text);

// The `nvidia-smi topo -m` relation of two PCI functions from their real sysfs paths
// ("/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0") and NUMA nodes (-1 unknown): "PIX",
// "PXB", "PHB", "NODE", "SYS" or "?" (different root complexes and a NUMA node unknown).
std::string PcieRelation(std::string_view a_path, int a_numa, std::string_view b_path, int b_numa);

// Rank of a relation for "nearest": PIX 0 … SYS 4, "?" 5.
int PcieRelationRank(std::string_view relation);

// Reads every RDMA device and port, then the nearest device of each GPU in `gpus` (the PCI GPU
// list, may be empty or not read). Unsupported when /sys/class/infiniband is absent; Error when it
// cannot be listed. A garbled or unreadable file leaves its field an Error (or, for a counter, a
// line in counter_errors) naming the file; it never drops the device.
Reading<InfinibandState> ReadInfiniband(const HostPaths& paths,
                                        const Reading<std::vector<GpuPciTopology>>& gpus);

}  // namespace gpuvet
