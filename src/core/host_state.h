// What the host sources read from /proc, /sys, /dev and the kernel log, as plain structs. All
// paths were resolved through HostPaths (--root), so every field can come from a fixture tree.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/reading.h"

namespace gpuvet {

// Link state of one PCIe function (from /sys/bus/pci/devices/ADDR/{current,max}_link_*).
struct PciLink {
  Reading<double> speed_gts;  // current, GT/s (2.5, 5, 8, 16, 32, 64)
  Reading<double> max_speed_gts;
  Reading<int> width;  // current lanes
  Reading<int> max_width;
};

// Totals from aer_dev_correctable / aer_dev_nonfatal / aer_dev_fatal ("TOTAL_ERR_COR 3" lines).
struct AerCounts {
  uint64_t correctable = 0;
  uint64_t nonfatal = 0;
  uint64_t fatal = 0;
};

struct PciFunction {
  std::string address;  // "0000:3b:00.0"
  uint32_t vendor = 0;  // 0x10de
  uint32_t device = 0;
  uint32_t class_code = 0;  // 0x030200 (3D controller), 0x030000 (VGA)
  PciLink link;
  Reading<AerCounts> aer;
  Reading<int> numa_node;                // -1 in sysfs means "no NUMA info": reported unsupported
  Reading<std::vector<int>> local_cpus;  // local_cpulist
  std::string driver;                    // bound driver name ("nvidia", "vfio-pci"), "" if none
};

// An NVIDIA GPU function on the PCI bus and the bridge right above it (the switch or root port
// whose downstream link feeds the GPU; its own upstream link can be downtrained too).
struct GpuPciTopology {
  PciFunction gpu;
  std::optional<PciFunction> upstream_bridge;
};

struct CpuFreqState {
  // governor name -> CPUs using it, e.g. {"powersave": {0..31}}. Empty with `note` when cpufreq
  // is absent (VMs, containers without /sys/devices/system/cpu/cpufreq).
  std::map<std::string, std::vector<int>> governors;
  std::string note;
};

struct CgroupState {
  int version = 0;                  // 2, 1, or 0 when no cgroup fs was found
  std::string path;                 // the process's cgroup, e.g. "/kubepods.slice/…"
  Reading<double> cpu_quota_cores;  // cpu.max quota/period; unsupported/absent = no limit ("max")
  bool cpu_unlimited = false;       // true when cpu.max says "max"
  Reading<uint64_t> memory_max_bytes;
  bool memory_unlimited = false;
};

struct MemInfo {
  Reading<uint64_t> total_bytes;
  Reading<uint64_t> available_bytes;
  Reading<uint64_t> swap_total_bytes;
  Reading<uint64_t> swap_free_bytes;
};

// One PSI line: "some avg10=1.23 avg60=… avg300=… total=…".
struct PsiLine {
  double avg10 = 0, avg60 = 0, avg300 = 0;
  uint64_t total_us = 0;
};

struct PsiState {
  Reading<PsiLine> cpu_some;
  Reading<PsiLine> memory_some;
  Reading<PsiLine> memory_full;
  Reading<PsiLine> io_some;
  Reading<PsiLine> io_full;
};

struct DeviceNode {
  std::string path;  // "/dev/nvidiactl" (as the host sees it, not the fixture path)
  bool exists = false;
  bool is_char_device = false;
  uint32_t mode = 0;      // permission bits
  bool readable = false;  // access(R_OK) by this process
  bool writable = false;  // access(W_OK) by this process
};

struct ProcessState {
  int pid = 0;
  std::string comm;
  Reading<std::vector<int>> cpus_allowed;  // Cpus_allowed_list from /proc/PID/status
  Reading<bool> maps_gpu;                  // /proc/PID/maps mentions /dev/nvidia* or libcuda
  std::vector<std::string> gpu_evidence;   // the matching map entries (deduplicated, few)
};

// One kernel log record, whatever format it came from.
struct KernelLogRecord {
  std::string time;  // as printed: ISO timestamp, "[12345.678]", or seconds since boot from kmsg
  double monotonic_s = -1;  // seconds since boot when known, else -1
  std::string text;         // message without prefixes
};

struct XidEvent {
  std::string pci_address;  // normalised "0000:38:00.0"
  int xid = 0;
  std::string first_time, last_time;
  int count = 0;
  std::string sample;  // the first message text, for evidence
};

// One Xid report as it appears in the log, before grouping (the fallen-off-the-bus echo of an
// Xid 79 already dropped). The exporter counts each one once across re-reads of the ring buffer.
struct XidOccurrence {
  std::string pci_address;  // normalised "0000:38:00.0"
  int xid = 0;
  std::string time;  // the record's time as printed ("" when the line had none)
  std::string text;  // the message text
};

struct KernelLogState {
  std::string source;          // "/dev/kmsg", "dmesg.log (dmesg --time-format iso)", …
  Reading<int> record_count;   // error/unsupported with the reason when the log was unreadable
  std::vector<XidEvent> xids;  // deduplicated per (pci_address, xid), sorted by address then xid
  std::vector<XidOccurrence> xid_occurrences;  // every Xid record, in log order
};

struct HostState {
  std::string hostname;
  std::string kernel_release;
  Reading<double> uptime_s;
  Reading<int> online_cpus;
  // "550.90.07" from /proc/driver/nvidia/version; NotSupported when the module is not loaded.
  Reading<std::string> nvidia_module_version;
  Reading<std::vector<GpuPciTopology>> pci_gpus;  // NVIDIA display/3D functions, sorted by address
  CpuFreqState cpufreq;
  CgroupState cgroup;
  MemInfo meminfo;
  PsiState psi;
  std::vector<DeviceNode> device_nodes;  // /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidiaN …
  ProcessState process;                  // --pid PID, else gpuvet itself
  bool process_is_target = false;        // true when the user named the process with --pid
  KernelLogState kernel_log;
};

}  // namespace gpuvet
