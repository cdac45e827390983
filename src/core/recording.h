// A recording: what `gpuvet record` sampled over time (or `gpuvet import` read from nvidia-smi
// logs), as plain structs. The sampler fills them, the SQLite store writes and reads them
// (docs/recording.md), `analyze` and `watch` read them. Rates are per second over the interval
// that ended at the sample; counters are cumulative. A field the source could not read is an empty
// optional / absent entry, never zero.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuvet {

// 1: samples only. 2: adds the `events` table (RecordingEvent). 3: the child rows (disks,
// interfaces, RDMA ports, processes) are packed into the samples row. A reader reads every older
// version.
inline constexpr int kRecordingSchemaVersion = 3;

// What a GPU is, read once at the start.
struct RecordedGpu {
  int index = 0;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  std::string uuid;
  std::string pci_bus_id;  // "0000:3b:00.0"
  std::optional<uint64_t> memory_total_bytes;
  std::optional<double> power_limit_w;
  std::optional<int> sm_clock_max_mhz;
  std::optional<int> mem_clock_max_mhz;
  std::optional<int> pcie_gen_max;
  std::optional<int> pcie_width_max;
  std::optional<int> numa_node;
};

struct RecordingMeta {
  int schema_version = kRecordingSchemaVersion;
  std::string producer;  // "gpuvet record 0.1", "gpuvet import nvidia-smi-dmon (file)"
  std::string host;
  std::string kernel_release;
  std::string driver_version;        // "550.90.07"; empty when unknown
  std::string cuda_version;          // "12.4"
  std::vector<std::string> command;  // the workload's argv; empty when attached with --pid
  int target_pid = 0;                // the workload's root process (0: none, e.g. an import)
  double interval_s = 1.0;
  double start_unix_s = 0;
  std::optional<double> end_unix_s;  // absent while recording, or when the recorder was killed
  std::optional<int> exit_code;      // the workload's; absent when attached or killed
  int online_cpus = 0;
  std::optional<double> cpu_quota_cores;  // cgroup cpu.max of the workload, when limited
  std::string work_unit;                  // "samples", "tokens" … for --work-regex/--work-file
  std::vector<RecordedGpu> gpus;
  std::map<std::string, std::string> notes;  // free-form facts ("sampler.gpm": "not supported")
};

// One process of the workload's tree running on a GPU, as NVML saw it.
struct GpuProcessSample {
  uint32_t pid = 0;
  std::optional<uint64_t> used_memory_bytes;
  std::optional<double> sm_util_pct;
};

struct GpuSample {
  int gpu = 0;  // RecordedGpu::index
  std::optional<double> util_pct;
  std::optional<double> mem_util_pct;
  std::optional<double> sm_clock_mhz;
  std::optional<double> mem_clock_mhz;
  std::optional<double> power_w;
  std::optional<double> energy_j;  // cumulative since the driver loaded (NVML mJ counter / 1000)
  std::optional<double> temperature_c;
  std::optional<uint64_t> clock_event_reasons;  // clock_reason bits (core/gpu_state.h)
  std::optional<double> pcie_tx_bytes_per_s;
  std::optional<double> pcie_rx_bytes_per_s;
  std::optional<uint64_t> memory_used_bytes;
  std::optional<uint64_t> ecc_corrected_volatile;
  std::optional<uint64_t> ecc_uncorrected_volatile;
  // GPM (Hopper and newer), percent of the interval / bytes per second.
  std::optional<double> sm_active_pct;
  std::optional<double> sm_occupancy_pct;
  std::optional<double> tensor_active_pct;
  std::optional<double> dram_bw_util_pct;
  std::optional<double> gpm_pcie_tx_bytes_per_s;
  std::optional<double> gpm_pcie_rx_bytes_per_s;
  std::optional<double> nvlink_tx_bytes_per_s;
  std::optional<double> nvlink_rx_bytes_per_s;
  std::vector<GpuProcessSample> processes;
};

struct DiskSample {
  std::string device;  // "nvme0n1"
  double read_bytes_per_s = 0;
  double write_bytes_per_s = 0;
  double busy_pct = 0;  // io_ticks delta / interval
};

struct NetSample {
  std::string interface;  // "eth0"
  double rx_bytes_per_s = 0;
  double tx_bytes_per_s = 0;
};

// One RDMA port over the interval: InfiniBand, or RoCE when the link layer is Ethernet
// (/sys/class/infiniband/DEV/ports/N). Data rates come from port_rcv_data / port_xmit_data, which
// count octets divided by 4 (kernel Documentation/ABI/stable/sysfs-class-infiniband); the state
// and rate are as read at the sample, so a link that retrains mid-run shows. A port whose data
// counters could not be read in both reads of an interval is left out of that sample.
struct IbPortSample {
  std::string port;        // "mlx5_0/1"
  std::string link_layer;  // "InfiniBand", "Ethernet"; "" unknown
  double rate_gbps = 0;    // the port's active rate; 0 unknown
  bool active = false;     // state ACTIVE
  double rx_bytes_per_s = 0;
  double tx_bytes_per_s = 0;
  std::optional<double> xmit_wait_per_s;  // port_xmit_wait ticks (data queued, none sent) per s
  std::optional<double> cnp_per_s;        // np_cnp_sent + rp_cnp_handled per s (RoCE congestion)
  std::optional<double> errors_per_s;     // symbol, receive, link-down and link-recovery errors
};

struct HostSample {
  // Shares of all CPUs' time over the interval, percent (0–100).
  std::optional<double> cpu_user_pct, cpu_system_pct, cpu_iowait_pct, cpu_steal_pct, cpu_idle_pct;
  std::vector<double> core_busy_pct;  // per online CPU, index = CPU number
                                      // (-1: that CPU was offline / not in /proc/stat)
  std::optional<double> run_queue;    // procs_running from /proc/stat
  // PSI "some" (and io/memory "full") stall share over the interval, percent, from total= deltas.
  std::optional<double> psi_cpu_some_pct, psi_io_some_pct, psi_io_full_pct, psi_memory_some_pct,
      psi_memory_full_pct;
  std::optional<uint64_t> mem_available_bytes;
  std::optional<double> major_faults_per_s;
  std::vector<DiskSample> disks;
  std::vector<NetSample> nets;
  std::vector<IbPortSample> ib_ports;  // RDMA ports (table ib_samples, docs/recording.md)
};

struct ThreadSample {
  int tid = 0;
  std::string comm;
  double cpu_pct = 0;  // of one core over the interval
};

// One process of the workload's tree (the root and its descendants).
struct ProcessSample {
  int pid = 0;
  int ppid = 0;
  std::string comm;
  double cpu_pct = 0;  // user+system of one core over the interval (800 = eight cores)
  std::optional<uint64_t> rss_bytes;
  int threads = 0;
  // /proc/PID/io rates (absent without permission).
  std::optional<double> read_bytes_per_s;   // read_bytes: from storage
  std::optional<double> write_bytes_per_s;  // write_bytes
  std::optional<double> rchar_per_s;        // rchar: all read() bytes, page cache included
  std::optional<double> read_syscalls_per_s;
  std::optional<double> opens_per_s;      // files newly open since the last sample (fd table diff)
  std::vector<ThreadSample> top_threads;  // busiest threads, highest first (at most 8)
};

struct WorkloadSample {
  std::optional<double> cgroup_throttled_pct;  // throttled_usec delta / interval
  std::optional<double> cgroup_nr_throttled_per_s;
  std::optional<double> work_total;  // the last value of --work-regex / --work-file so far
};

struct Sample {
  double t = 0;           // seconds since RecordingMeta::start_unix_s
  double unix_time = 0;   // wall clock
  double interval_s = 0;  // the time the rates cover (the first sample: since the baseline read)
  std::vector<GpuSample> gpus;
  HostSample host;
  std::vector<ProcessSample> processes;  // empty when no workload is followed
  WorkloadSample workload;
};

// What kind of thing a RecordingEvent is. Kernel log kinds come from the kernel log classifier
// (sources/kmsg) as `record` followed it; fault kinds from the recorder itself.
enum class RecordingEventKind {
  kXid,               // an NVIDIA Xid report
  kNfsNotResponding,  // "nfs: server X not responding"
  kNfsOk,             // "nfs: server X OK": the end of an outage
  kHungTask,          // "task X blocked for more than N seconds"
  kIoError,           // block, NVMe, md or filesystem I/O error
  kOomKill,           // the OOM killer
  kKernelOther,       // another classified kernel signal (AER, crash, lockup …)
  kGpuLost,           // the sampler lost a GPU (fell off the bus, NVML GPU_IS_LOST)
  kNvmlHung,          // an NVML call did not answer within its deadline
  kNvmlRecovered,     // NVML answered again after a hang
};

// The stable id of `kind` as stored in the file ("xid", "nfs_not_responding", "nfs_ok",
// "hung_task", "io_error", "oom_kill", "kernel", "gpu_lost", "nvml_hung", "nvml_recovered").
const char* RecordingEventKindId(RecordingEventKind kind);
// The kind with that id; nullopt for an id this gpuvet does not know (a newer writer).
std::optional<RecordingEventKind> FindRecordingEventKind(const std::string& id);
// True for the faults of the recorder itself (GPU lost, NVML hung or recovered).
bool IsRecorderFault(RecordingEventKind kind);

// Something that happened during the recording that a sample cannot hold: a classified kernel log
// line, or a fault of the recorder (schema version 2).
struct RecordingEvent {
  double t = 0;  // seconds since RecordingMeta::start_unix_s
  RecordingEventKind kind = RecordingEventKind::kKernelOther;
  std::string subject;  // "gpu1", "fs1", "nvme0n1", "pid 4242 (python)"; may be empty
  std::string message;  // the kernel line's text, or what the recorder saw
};

struct Recording {
  RecordingMeta meta;
  std::vector<Sample> samples;         // by time
  std::vector<RecordingEvent> events;  // by time; empty in version 1 files
};

}  // namespace gpuvet
