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
  Reading<int> width;  // current lanes; 0 (a value) when the maximum is known: the link is down
  Reading<int> max_width;
  // current_link_speed read "Unknown" while max_link_speed is a rate: no link trained (link down,
  // or a function in D3cold; `PciFunction::power_state` tells which).
  bool speed_unknown = false;
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
  // power_state ("D0", "D3hot", "D3cold"; Linux 5.17+), Unsupported on older kernels.
  Reading<std::string> power_state;
};

// An NVIDIA GPU function on the PCI bus and the bridge right above it (the switch or root port
// whose downstream link feeds the GPU; its own upstream link can be downtrained too).
struct GpuPciTopology {
  PciFunction gpu;
  std::optional<PciFunction> upstream_bridge;
};

// Whether the host is a virtual machine, from the CPU's `hypervisor` flag (/proc/cpuinfo), the
// DMI system vendor and product (/sys/class/dmi/id) and virtual PCIe bridges above the GPUs.
// Rules use it to judge links the guest sees through the hypervisor's model (no slot to reseat).
struct VirtualMachineState {
  bool detected = false;
  std::string hypervisor;             // "KVM", "Amazon EC2", "QEMU", "VMware", … or "" (unknown)
  std::vector<std::string> evidence;  // each marker found ("cpuinfo flag hypervisor", …)
  // Addresses of GPU upstream bridges that are virtual (QEMU/VMware root ports): their link
  // registers are the hypervisor's model, not the physical slot.
  std::vector<std::string> virtual_bridges;
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
  // What the message adds to the code: NVLink5 (144-150) "fatal"/"nonfatal" (events are grouped
  // by it); Xid 154 the recovery action of its latest report ("Drain and Reset"); "" otherwise.
  std::string detail;
  std::string first_time, last_time;  // ISO 8601 where the log's time allows, else as printed
  int count = 0;
  std::string sample;  // the first message text, for evidence
};

// One Xid report as it appears in the log, before grouping (the fallen-off-the-bus echo of an
// Xid 79 already dropped). The exporter counts each one once across re-reads of the ring buffer.
struct XidOccurrence {
  std::string pci_address;  // normalised "0000:38:00.0"
  int xid = 0;
  std::string time;    // the record's time as printed ("" when the line had none)
  std::string text;    // the message text
  std::string detail;  // as XidEvent::detail, from this report's message
};

// One "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:… (printing 1 of every N)" line.
struct XidRateLimit {
  std::string pci_address;  // normalised "0000:61:00.0"
  int every = 0;            // N
  std::string time;         // ISO 8601 where the log's time allows, else as printed
};

// Kernel log signals other than Xid (sources/kmsg/kernel_log_signals.h classifies the lines).
enum class KernelSignal {
  kNfsNotResponding,  // "nfs: server X not responding"  (key: server)
  kHungTask,          // "task COMM:PID blocked for more than N seconds"  (key: comm)
  kIoError,           // block / buffer / ext4 / xfs / nvme errors  (key: device)
  kOomKill,           // "Out of memory: Killed process PID (COMM)"  (key: comm)
  kCommLibSegfault,   // "segfault at … in libnccl.so…" and GPU/RDMA libraries  (key: library)
  kPeermemError,      // nvidia-peermem / nv_peer_mem errors  (key: function or message)
  kPcieAer,           // "AER: Corrected error received: 0000:3b:00.0"  (key: address + severity)
  kNvswitchSxid,    // "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 24007, Fatal, …"  (key: switch)
  kNvlinkTraining,  // NVLink link training failures  (key: device or link)
  kKernelCrash,     // "Kernel panic - not syncing", "Oops:", "BUG: …"  (key: "kernel")
  kCpuStall,        // soft/hard lockups and RCU stalls  (key: CPU or "rcu")
  kEdacMemory,      // "EDAC MC0: 1 CE/UE memory … error on …"  (key: memory controller)
  kNicSlotPower,    // "mlx5_core …: Detected insufficient power on the PCIe slot"  (key: address)
  // "NVRM: API mismatch: the client has the version X, but this kernel module has the version Y",
  // nvidia-modeset / nvidia-drm version mismatches  (key: module; extra: the versions)
  kDriverMismatch,
  // "RmInitAdapter failed", "rm_init_adapter failed", "The NVIDIA probe routine failed"
  // (key: PCI address or "nvidia")
  kGpuInitFailed,
  kNetCarrier,    // "ib6: lost carrier", "mlx5_core …: Link down"  (key: interface)
  kPcieHwError,   // firmware-first "[Hardware Error]: … PCIe error … device_id"  (key: address)
  kPcieDpc,       // "DPC: containment event"  (key: port address)
  kPcieHotplug,   // "pciehp …: Slot(N): Link Down"  (key: port address)
  kMachineCheck,  // "mce: [Hardware Error]"  (key: CPU or bank)
  kNicHealth,     // mlx5 "health recovery flow aborted", module high temperature  (key: address)
  kNfsLockReclaim,  // "lockd: … lock reclaim failed"  (key: server)
  kFileMax,         // "VFS: file-max limit N reached"  (key: "file-max")
};

// One kernel log line that matched a signal, with its time: the per-event stream `analyze` can
// correlate with stalls (KernelEvent below is the deduplicated form `check` reports).
struct KernelSignalEvent {
  KernelSignal signal = KernelSignal::kIoError;
  std::string key;  // what the event is about (server, device, comm, library, address)
  // Sub-kind: nfs "still_trying"/"timed_out"; io "block", "buffer", "ext4", "xfs",
  // "nvme_timeout", "nvme_reset", "nvme_disabled", "nvme_path_lost", "beyond_end", "md_degraded",
  // "md_failed"; oom "cgroup"/"system"; aer "corrected", "uncorrected_nonfatal",
  // "uncorrected_fatal"; comm_lib_segfault: the crashing comm; sxid "fatal"/"nonfatal"; crash
  // "panic"/"oops"/"bug", with "_deliberate" appended when a SysRq or test module triggered it;
  // cpu_stall "soft_lockup"/"hard_lockup"/"rcu_stall"; edac "ce"/"ue"; "" otherwise.
  std::string detail;
  // "pid 4242", an AER error type ("Physical Layer"), an SXid code, a crash reason, or ""
  std::string extra;
  // hung task: the seconds it was blocked for; soft lockup: seconds stuck; EDAC: error count;
  // -1 otherwise
  double value = -1;
  std::string time;         // as printed
  double monotonic_s = -1;  // seconds since boot when the log format carries it, else -1
  double epoch_s = -1;      // Unix time when the line has an ISO time with a zone, else -1
  std::string text;         // the message
};

// Events of one (signal, key, detail), deduplicated like XidEvent.
struct KernelEvent {
  KernelSignal signal = KernelSignal::kIoError;
  std::string key;
  std::string detail;
  std::string pci_address;  // kPcieAer: normalised "0000:3b:00.0" of the device that erred
  int count = 0;
  std::string first_time, last_time;
  std::string sample;               // the first message text
  std::vector<std::string> extras;  // e.g. the PIDs an OOM kill ended, AER error types (few)
  double max_value = -1;            // the largest KernelSignalEvent::value (hung seconds)
  double sum_value = 0;             // the sum of the positive values (EDAC error counts)
};

// One NFS outage: "not responding" up to the matching "OK" of the same server.
struct NfsOutage {
  std::string server;
  std::string start_time, end_time;  // end_time "" when no "OK" followed (still down at log end)
  double duration_s = -1;            // when both times are comparable, else -1
  int not_responding_lines = 0;      // repeats inside this outage
};

struct KernelLogState {
  std::string source;          // "/dev/kmsg", "dmesg.log (dmesg --time-format iso)", …
  Reading<int> record_count;   // error/unsupported with the reason when the log was unreadable
  std::vector<XidEvent> xids;  // deduplicated per (pci_address, xid), sorted by address then xid
  std::vector<XidOccurrence> xid_occurrences;  // every Xid record, in log order
  std::vector<XidRateLimit> xid_rate_limits;   // the driver's rate-limit notices, in log order
  std::vector<KernelEvent> events;             // non-Xid signals, sorted by signal, key, detail
  std::vector<NfsOutage> nfs_outages;          // in log order
};

// The environment variables that decide which GPUs a job sees, from the inspected process.
struct GpuEnvironment {
  std::string source;  // "environment of gpuvet", "/proc/4242/environ", "--env-file FILE"
  // Only the variables gpuvet looks at (GPU visibility and container markers), never the rest:
  // environments hold secrets. Error/Unsupported with the reason when unreadable.
  Reading<std::map<std::string, std::string>> vars;
};

// One /dev/nvidia* node under the device cgroup's policy.
struct DeviceCgroupAccess {
  std::string path;            // "/dev/nvidia0"
  int major = -1, minor = -1;  // from st_rdev, else derived from /proc/devices and the name
  // cgroup v1 devices.list verdict: "allowed" (with the rule), "denied", or "" (not evaluated).
  std::string v1_verdict;
  std::string v1_rule;  // the devices.list line that allowed it ("c 195:* rwm")
  // open(O_RDWR) probe of a real character device: -1 not probed, 0 opened, else errno. EPERM
  // (not EACCES) on an existing node is the device cgroup refusing it.
  int probe_errno = -1;
};

struct DeviceCgroupState {
  int version = 0;   // cgroup version of the devices policy: 1, 2, or 0 unknown
  std::string path;  // the cgroup whose devices.list was read (v1)
  std::string note;  // what cannot be seen (v2: the eBPF device program is not readable)
  Reading<std::vector<std::string>> v1_rules;  // devices.list lines
  std::vector<DeviceCgroupAccess> nodes;       // /dev/nvidia* that exist
};

struct ContainerState {
  bool in_container = false;
  std::string runtime;                // "docker", "podman", "kubernetes", "containerd", … or ""
  std::vector<std::string> evidence;  // each marker found ("/.dockerenv exists", …)
  GpuEnvironment env;
  DeviceCgroupState device_cgroup;
};

// One port of an RDMA device (/sys/class/infiniband/DEV/ports/N): InfiniBand, or RoCE when the
// link layer is Ethernet. Counters are cumulative since the driver loaded or they were reset.
struct IbPort {
  int port = 0;
  Reading<std::string> link_layer;  // "InfiniBand" or "Ethernet" (RoCE)
  Reading<std::string> state;       // "ACTIVE", "DOWN", "INIT", "ARMED" ("4: ACTIVE" in sysfs)
  Reading<std::string> phys_state;  // "LinkUp", "Polling", "Disabled" ("5: LinkUp")
  Reading<double> rate_gbps;        // "200 Gb/sec (4X HDR)" -> 200 (active width x speed)
  Reading<int> width;               // the "4X" of the rate: active lanes
  std::string speed_name;           // "HDR", "NDR", "EDR" … from the rate text, "" when absent
  // Every numeric file of counters/ and hw_counters/ by name ("symbol_error", "np_cnp_sent").
  // port_xmit_data and port_rcv_data are kept as sysfs has them: octets divided by 4.
  std::map<std::string, uint64_t> counters;
  std::vector<std::string> counter_errors;  // "counters/symbol_error: 'abc' is not a count"
};

// One RDMA device (an HCA such as mlx5_0) with its PCIe function and ports.
struct IbDevice {
  std::string name;      // "mlx5_0"
  std::string hca_type;  // "MT4129" (ConnectX-7); "" when absent
  std::string fw_ver;
  std::string pci_address;   // "0000:17:00.0"; "" when device/ is not a PCI function
  std::string sysfs_path;    // the function's real host path ("/sys/devices/pci0000:16/…")
  Reading<PciFunction> pci;  // its PCIe link, NUMA node (Error with the reason when unreadable)
  std::vector<std::string> net_devices;  // device/net/* ("ib0", "ens1f0np0")
  std::vector<IbPort> ports;             // by port number
};

// How a GPU reaches its nearest RDMA device over PCIe, in `nvidia-smi topo -m` terms.
struct GpuNicPath {
  std::string gpu_address;  // "0000:18:00.0"
  std::string nic;          // "mlx5_0"; "" when no RDMA device is known
  // "PIX" (one PCIe switch between them), "PXB" (several bridges, no host bridge), "PHB" (the
  // same host bridge / root complex), "NODE" (another root complex of the same NUMA node), "SYS"
  // (across the inter-socket link); "?" when the NUMA node of one side is unknown.
  std::string relation;
  Reading<int> gpu_numa, nic_numa;
  std::vector<std::string> same_numa_nics;  // RDMA devices on the GPU's NUMA node (any relation)
};

struct InfinibandState {
  std::vector<IbDevice> devices;      // by name
  std::vector<GpuNicPath> gpu_paths;  // per NVIDIA GPU function, by address
};

// Who runs one GPU process (sources/host/gpu_owner): the Slurm job or the Kubernetes pod and
// container from its cgroup path (SLURM_JOB_ID in its environment as a fallback for Slurm), and
// its user. An empty string is "not known"; `note` says why when something could not be read.
// Pod names and namespaces are not in a cgroup path: `pod_uid` joins with kube-state-metrics'
// kube_pod_info{uid} for those (docs/gpu-owners.md).
struct GpuProcessOwner {
  uint32_t pid = 0;
  std::string comm;  // /proc/PID/status Name
  std::optional<uint32_t> uid;
  std::string user;               // the passwd name of uid ("" when /etc/passwd does not list it)
  std::string cgroup;             // the cgroup path the owner was read from
  std::string slurm_job;          // "4242"
  std::string slurm_job_from;     // "cgroup" or "environ"
  std::string pod_uid;            // "1f2e3d4c-…" (systemd's '_' turned back into '-')
  std::string container_id;       // the runtime's container id, prefix and ".scope" removed
  std::string container_runtime;  // "containerd", "docker", "crio" or "" (cgroupfs layout)
  std::string qos;                // "guaranteed", "burstable", "besteffort"
  std::string note;               // "process not found (ended, or another PID namespace)", …
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
  ContainerState container;  // container, GPU visibility variables, device cgroup
  VirtualMachineState virtual_machine;
  // /sys/class/infiniband: Unsupported when the host has no RDMA devices (no directory).
  Reading<InfinibandState> infiniband;
  // One per distinct PID NVML listed on any GPU (HostOptions::gpu_pids), sorted by PID.
  std::vector<GpuProcessOwner> gpu_process_owners;
};

}  // namespace gpuvet
