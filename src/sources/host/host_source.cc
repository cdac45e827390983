// The host source: one call per reader, in an order with no dependencies except the device node
// list, which falls back to the PCI GPU count when no minor numbers were given.
#include "sources/host/host_source.h"

#include "sources/host/cgroup.h"
#include "sources/host/container.h"
#include "sources/host/cpu_sources.h"
#include "sources/host/dev_nodes.h"
#include "sources/host/device_cgroup.h"
#include "sources/host/gpu_environment.h"
#include "sources/host/gpu_owner.h"
#include "sources/host/infiniband.h"
#include "sources/host/meminfo.h"
#include "sources/host/pci_sysfs.h"
#include "sources/host/process_info.h"
#include "sources/host/system_info.h"
#include "sources/host/virtual_machine.h"
#include "sources/kmsg/kernel_log.h"

namespace gpuvet {

HostState ReadHostState(const HostPaths& paths, const HostOptions& options) {
  HostState host;
  SystemInfo info = ReadSystemInfo(paths);
  host.hostname = info.hostname.has() ? *info.hostname : "";
  host.kernel_release = info.kernel_release.has() ? *info.kernel_release : "";
  host.uptime_s = info.uptime_s;
  host.nvidia_module_version = info.nvidia_module_version;
  host.online_cpus = ReadOnlineCpus(paths);
  host.pci_gpus = ReadPciGpus(paths);
  host.virtual_machine = DetectVirtualMachine(paths, host.pci_gpus);
  host.infiniband = ReadInfiniband(paths, host.pci_gpus);
  host.cpufreq = ReadCpuFreq(paths);
  host.cgroup = ReadCgroup(paths, options.pid);
  host.meminfo = ReadMeminfo(paths);
  host.psi = ReadPsi(paths);

  std::vector<int> minors = options.gpu_minors;
  if (minors.empty() && host.pci_gpus.has()) {
    // Without NVML, assume the driver numbered the GPUs 0..n-1 (it does so in PCI bus order).
    for (size_t i = 0; i < host.pci_gpus->size(); ++i) minors.push_back(static_cast<int>(i));
  }
  host.device_nodes = ReadDeviceNodes(paths, minors);
  host.process = ReadProcess(paths, options.pid);
  host.process_is_target = options.pid != 0;
  host.kernel_log = ReadKernelLog(paths, options.kernel_log_file);
  host.container.env = ReadGpuEnvironment(paths, options.pid, options.env_file);
  DetectContainer(paths, options.pid, host.container.env, &host.container);
  // The open() probe answers for gpuvet itself, and matters where device cgroups bite: inside a
  // container (the daemon-reload failure). Elsewhere it would only reopen every GPU.
  DeviceProbe probe = options.pid == 0 && host.container.in_container ? OpenProbe : nullptr;
  host.container.device_cgroup = ReadDeviceCgroup(paths, options.pid, host.device_nodes, probe);
  host.gpu_process_owners = ReadGpuProcessOwners(paths, options.gpu_pids);
  return host;
}

}  // namespace gpuvet
