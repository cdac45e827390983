// What `gpuvet bench` records about each GPU before measuring: the driver's device attributes
// (SMs, clocks, bus width, memory, copy engines, compute capability) and, from sysfs, the NUMA
// node, local CPUs and PCIe link. The link is read again while a copy keeps it busy.
#pragma once

#include <string>

#include "core/bench.h"
#include "core/host_paths.h"
#include "core/reading.h"
#include "sources/cuda/cuda_loader.h"
#include "util/status.h"

namespace gpuvet::bench {

// Describes CUDA device `ordinal`: name, attributes (clocks converted kHz -> MHz), PCI bus id in
// sysfs form ("0000:3b:00.0"), and the sysfs fields of that function (NUMA node, local CPUs,
// PCIe generation/width now and at most). Fails only when the device cannot be opened
// (cuDeviceGet); single attributes that fail are left 0, sysfs fields carry their own Reading.
Result<BenchGpu> DescribeGpu(const CudaLibrary& cuda, int ordinal, const HostPaths& paths);

// Reads /sys/bus/pci/devices/ADDRESS/current_link_speed now and maps it to a generation
// (PcieGenFromGts, core/hw/pcie.h; an unknown rate is an error reading). Cheap
// (one small file), so it can run while a copy is in flight: that is the "loaded" reading.
Reading<int> ReadPcieGen(const HostPaths& paths, const std::string& address);

}  // namespace gpuvet::bench
