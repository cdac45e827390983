// Device attributes and sysfs facts for each benchmarked GPU (bench_gpu_info.h).
#include "sources/bench/bench_gpu_info.h"

#include <fmt/format.h>

#include "core/hw/pcie.h"
#include "sources/bench/bench_cuda.h"
#include "sources/host/pci_sysfs.h"
#include "sources/nvml/nvml_source.h"
#include "util/file.h"

namespace gpuvet::bench {

namespace {

template <typename T>
Reading<int> GenReading(const Reading<T>& speed) {
  if (speed.has()) {
    const int gen = PcieGenFromGts(*speed);
    if (gen == 0) return Reading<int>::Error(fmt::format("unknown PCIe link rate {} GT/s", *speed));
    return Reading<int>::Of(gen);
  }
  if (speed.unsupported()) return Reading<int>::Unsupported(speed.note);
  return Reading<int>::Error(speed.note);
}

std::string DevicePath(const std::string& address) { return "/sys/bus/pci/devices/" + address; }

// Reads the sysfs side (NUMA node, CPUs, link) of `gpu`, whose pci_bus_id is set.
void ReadSysfs(const HostPaths& paths, BenchGpu& gpu) {
  auto set_all = [&gpu](const Reading<int>& r) {
    gpu.numa_node = gpu.pcie_gen_idle = gpu.pcie_gen_max = gpu.pcie_width = gpu.pcie_width_max = r;
  };
  if (!IsPciAddress(gpu.pci_bus_id)) {
    set_all(Reading<int>::Error(
        fmt::format("driver gave no usable PCI bus id ('{}')", gpu.pci_bus_id)));
    return;
  }
  auto dir = ResolveHostPath(paths, DevicePath(gpu.pci_bus_id));
  if (!dir.ok()) {
    set_all(dir.status().code() == StatusCode::kNotFound
                ? Reading<int>::Unsupported(fmt::format("no sysfs entry {} ({})",
                                                        paths.Resolve(DevicePath(gpu.pci_bus_id)),
                                                        dir.status().message()))
                : Reading<int>::Error(dir.status().message()));
    return;
  }
  auto fn = ReadPciFunction(paths, *dir, gpu.pci_bus_id);
  if (!fn.ok()) {
    set_all(Reading<int>::Error(fn.status().message()));
    return;
  }
  gpu.numa_node = fn->numa_node;
  if (fn->local_cpus.has()) gpu.local_cpus = *fn->local_cpus;
  gpu.pcie_gen_idle = GenReading(fn->link.speed_gts);
  gpu.pcie_gen_max = GenReading(fn->link.max_speed_gts);
  gpu.pcie_width = fn->link.width;
  gpu.pcie_width_max = fn->link.max_width;
}

}  // namespace

Reading<int> ReadPcieGen(const HostPaths& paths, const std::string& address) {
  if (!IsPciAddress(address)) {
    return Reading<int>::Error(fmt::format("no usable PCI bus id ('{}')", address));
  }
  const std::string path = paths.Resolve(DevicePath(address) + "/current_link_speed");
  auto text = ReadAttribute(path);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return Reading<int>::Unsupported(path + " absent");
    }
    return Reading<int>::Error(text.status().message());
  }
  auto speed = ParseLinkSpeed(*text);
  if (!speed.ok()) {
    if (speed.status().code() == StatusCode::kNotSupported) {
      return Reading<int>::Unsupported(path + ": " + speed.status().message());
    }
    return Reading<int>::Error(path + ": " + speed.status().message());
  }
  return GenReading(Reading<double>::Of(*speed));
}

Result<BenchGpu> DescribeGpu(const CudaLibrary& cuda, int ordinal, const HostPaths& paths) {
  BenchGpu gpu;
  gpu.index = ordinal;
  CUdevice dev = 0;
  if (Status st = CudaCheck(cuda, cuda.cuDeviceGet(&dev, ordinal), "cuDeviceGet"); !st.ok()) {
    return st;
  }
  char name[256] = {};
  if (cuda.cuDeviceGetName(name, sizeof(name) - 1, dev) == CUDA_SUCCESS) gpu.name = name;

  auto attr = [&](int attribute) {
    int v = 0;
    return cuda.cuDeviceGetAttribute(&v, attribute, dev) == CUDA_SUCCESS ? v : 0;
  };
  gpu.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  gpu.sm_clock_mhz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1e3;
  gpu.mem_clock_mhz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1e3;
  gpu.memory_bus_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  gpu.copy_engines = attr(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
  gpu.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  gpu.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  size_t total = 0;
  if (cuda.cuDeviceTotalMem_v2(&total, dev) == CUDA_SUCCESS) gpu.memory_bytes = total;

  char bus_id[64] = {};
  if (cuda.cuDeviceGetPCIBusId(bus_id, sizeof(bus_id) - 1, dev) == CUDA_SUCCESS) {
    gpu.pci_bus_id = NormalizePciBusId(bus_id);
  } else {
    // Older drivers without cuDeviceGetPCIBusId: build it from the domain/bus/device attributes.
    gpu.pci_bus_id =
        fmt::format("{:04x}:{:02x}:{:02x}.0", attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
                    attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID), attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
  }
  ReadSysfs(paths, gpu);
  return gpu;
}

}  // namespace gpuvet::bench
