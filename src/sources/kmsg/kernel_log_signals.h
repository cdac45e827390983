// Kernel log signals beyond Xid: NFS servers that stop answering, hung tasks, block, NVMe, md
// RAID and filesystem I/O errors, the OOM killer, segfaults inside GPU communication libraries,
// GPUDirect (peermem) errors, PCIe AER reports, NVSwitch SXids, NVLink training failures, kernel
// crashes (panic, Oops, BUG), soft/hard lockups and RCU stalls, EDAC memory errors and NICs
// short of PCIe slot power. A per-line classifier, the per-event stream
// with times (for `analyze` to correlate with stalls) and the deduplicated form `check` reports.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_state.h"

namespace gpuvet {

// "nfs_not_responding", "hung_task", "io_error", "oom_kill", "comm_lib_segfault",
// "peermem_error", "pcie_aer", "nvswitch_sxid", "nvlink_training", "crash", "cpu_stall",
// "edac_memory", "nic_slot_power": the catalogue id is "kernel." + this name.
std::string_view KernelSignalName(KernelSignal signal);

// What one message says, when it is one of the signals.
struct KernelSignalMatch {
  KernelSignal signal = KernelSignal::kIoError;
  std::string key;     // server, device, comm, library basename, PCI address
  std::string detail;  // sub-kind (see KernelSignalEvent), "" when the signal has none
  std::string extra;   // one value worth keeping per line: a PID, an AER error type
  // Lines that continue a report rather than start one: an OOM "Killed process" after its
  // "oom-kill:" header, an AER "PCIe Bus Error" after its "error received" line. nfs "OK" lines
  // come back as kNfsNotResponding with detail "ok" (the end of an outage, not an event).
  bool continuation = false;
  int pid = 0;        // OOM and hung-task lines: the process, to pair a header with its follow-up
  double value = -1;  // hung task: seconds blocked
};

// Classifies one kernel message (KernelLogRecord::text). Pure and stateless; never throws. Lines
// that only look alike ("nvme nvme0: Shutdown timeout set to 11 seconds", "EXT4-fs (sda1):
// mounted filesystem … errors=remount-ro") are not signals.
std::optional<KernelSignalMatch> ClassifyKernelMessage(std::string_view text);

// Every record that is a signal, in log order, with its time: continuation lines are merged into
// the report they continue (the OOM header's event takes the killed process's cgroup/system
// detail; an AER "PCIe Bus Error" line within 4 records of its "error received" line adds its
// error type instead of counting twice; the "BUG:", "Oops:" and "Kernel panic" lines of one
// crash within 100 records are one event named by the most serious; the device line after
// "attempt to access beyond end of device" names its device). A crash within 64 records of a
// SysRq crash trigger or a crash-test module gets "_deliberate" appended to its detail. NFS "OK"
// lines are not events.
std::vector<KernelSignalEvent> ClassifyKernelLog(const std::vector<KernelLogRecord>& records);

// The events above deduplicated per (signal, key, detail): count, first/last time, the first
// message as sample, up to 8 distinct extras (PIDs, error types). Sorted by signal, key, detail.
std::vector<KernelEvent> ExtractKernelEvents(const std::vector<KernelLogRecord>& records);

// NFS outages per server: a "not responding" line opens one (repeats while open are counted in
// it), the server's next "OK" line closes it. The duration is computed when both lines carry
// comparable times (seconds since boot, or ISO times). An outage still open at the end of the
// log has an empty end_time. In log order of their start.
std::vector<NfsOutage> ExtractNfsOutages(const std::vector<KernelLogRecord>& records);

}  // namespace gpuvet
