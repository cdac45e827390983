// Kernel log signals beyond Xid: one finding per NFS server, hung task, failing device, OOM-killed
// process, crashing library, peermem error, AER source, NVSwitch, NVLink training failure, kernel
// crash, CPU stall kind, memory controller and NIC slot-power report, with the deduplicated count
// and first/last time as evidence. Severities: an NFS outage still open at the end of the log, I/O
// errors (NVMe gone or without a path, md array failed, beyond-end accesses), fatal AER (or
// non-fatal AER on a GPU or its bridge), fatal SXids, NVLink training failures, kernel crashes,
// hard lockups and uncorrectable EDAC errors fail; a crash provoked on purpose (SysRq, crash-test
// module) and fewer than 10 corrected AER or EDAC errors are info; the rest warn. An ok finding
// per signal when the log has none.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "rules/rules.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Corrected AER errors at or above this count in one log warn; fewer are informational (single
// corrected errors happen on healthy links; a stream of them means a marginal one).
constexpr int kAerCorrectedWarnCount = 10;
// Corrected DRAM errors (EDAC CE) at or above this count warn: a DIMM that keeps correcting is
// wearing out; single ones happen on healthy memory.
constexpr int kEdacCorrectedWarnCount = 10;

std::string LastAt(const KernelEvent& ev) {
  if (ev.last_time.empty()) return "";
  return (ev.count > 1 ? ", last " : ", at ") + ShortLogTime(ev.last_time);
}

std::vector<Evidence> CommonEvidence(const KernelEvent& ev) {
  std::vector<Evidence> e = {{"count", std::to_string(ev.count), ""},
                             {"first", ev.first_time, ""},
                             {"last", ev.last_time, ""}};
  if (!ev.extras.empty()) e.push_back({"seen", Join(ev.extras, ", "), ""});
  e.push_back({"sample", ev.sample, ""});
  return e;
}

std::vector<const KernelEvent*> EventsOf(const KernelLogState& log, KernelSignal signal) {
  std::vector<const KernelEvent*> out;
  for (const KernelEvent& ev : log.events) {
    if (ev.signal == signal) out.push_back(&ev);
  }
  return out;
}

std::string Id(KernelSignal signal) {
  switch (signal) {
    case KernelSignal::kNfsNotResponding:
      return "kernel.nfs_not_responding";
    case KernelSignal::kHungTask:
      return "kernel.hung_task";
    case KernelSignal::kIoError:
      return "kernel.io_error";
    case KernelSignal::kOomKill:
      return "kernel.oom_kill";
    case KernelSignal::kCommLibSegfault:
      return "kernel.comm_lib_segfault";
    case KernelSignal::kPeermemError:
      return "kernel.peermem_error";
    case KernelSignal::kNvswitchSxid:
      return "kernel.nvswitch_sxid";
    case KernelSignal::kNvlinkTraining:
      return "kernel.nvlink_training";
    case KernelSignal::kKernelCrash:
      return "kernel.crash";
    case KernelSignal::kCpuStall:
      return "kernel.cpu_stall";
    case KernelSignal::kEdacMemory:
      return "kernel.edac_memory";
    case KernelSignal::kNicSlotPower:
      return "kernel.nic_slot_power";
    case KernelSignal::kDriverMismatch:
      return "kernel.driver_mismatch";
    case KernelSignal::kGpuInitFailed:
      return "kernel.gpu_init_failed";
    case KernelSignal::kNetCarrier:  // not classified yet (kernel_log_signals.cc)
    case KernelSignal::kPcieHwError:
    case KernelSignal::kPcieDpc:
    case KernelSignal::kPcieHotplug:
    case KernelSignal::kMachineCheck:
    case KernelSignal::kNicHealth:
    case KernelSignal::kNfsLockReclaim:
    case KernelSignal::kFileMax:
    case KernelSignal::kPcieAer:
      break;
  }
  return "kernel.pcie_aer";
}

void AddOk(KernelSignal signal, std::string_view what, int records, std::vector<Finding>& out) {
  out.push_back(MakeFinding(Id(signal), "host", Severity::kOk,
                            fmt::format("no {} in {} kernel log records", what, records)));
}

void CheckNfs(const KernelLogState& log, int records, std::vector<Finding>& out) {
  std::map<std::string, std::vector<const NfsOutage*>> by_server;
  for (const NfsOutage& o : log.nfs_outages) by_server[o.server].push_back(&o);
  if (by_server.empty()) return AddOk(KernelSignal::kNfsNotResponding, "NFS outage", records, out);
  for (const auto& [server, outages] : by_server) {
    int lines = 0;
    double longest = -1, total = 0;
    bool all_timed = true;
    for (const NfsOutage* o : outages) {
      lines += o->not_responding_lines;
      if (o->duration_s >= 0) {
        longest = std::max(longest, o->duration_s);
        total += o->duration_s;
      } else if (!o->end_time.empty()) {
        all_timed = false;
      }
    }
    const NfsOutage& last = *outages.back();
    bool still_down = last.end_time.empty();
    std::string summary = fmt::format("NFS server {} stopped answering {} time{}", server,
                                      outages.size(), outages.size() == 1 ? "" : "s");
    if (longest >= 0) summary += fmt::format(" (longest {:.0f} s)", longest);
    summary += still_down ? fmt::format("; no 'OK' since {}: it may still be down",
                                        ShortLogTime(last.start_time))
                          : fmt::format(", last at {}", ShortLogTime(last.start_time));
    std::vector<Evidence> ev = {
        {"server", server, ""},
        {"outages", std::to_string(outages.size()), ""},
        {"not_responding_lines", std::to_string(lines), ""},
        {"first", outages.front()->start_time, ""},
        {"last", last.start_time, ""},
        {"still_down", still_down ? "yes" : "no", ""},
    };
    if (longest >= 0) {
      ev.push_back({"longest_outage_s", FormatNumber(longest, 1), ""});
      ev.push_back({"total_outage_s", FormatNumber(total, 1), all_timed ? "" : "timed outages"});
    }
    for (const KernelEvent* e : EventsOf(log, KernelSignal::kNfsNotResponding)) {
      if (e->key == server) {
        ev.push_back({"sample", e->sample, ""});
        break;
      }
    }
    out.push_back(MakeFinding("kernel.nfs_not_responding", "host",
                              still_down ? Severity::kFail : Severity::kWarn, std::move(summary),
                              std::move(ev)));
  }
}

// "… blocked for more than 122 seconds." -> "122".
std::string BlockedSeconds(const std::string& sample) {
  size_t at = sample.find("more than ");
  if (at == std::string::npos) return "";
  std::string_view rest = std::string_view(sample).substr(at + 10);
  size_t n = 0;
  while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') ++n;
  return std::string(rest.substr(0, n));
}

std::string_view IoKind(const std::string& detail) {
  if (detail == "buffer") return "buffer-cache I/O errors";
  if (detail == "ext4") return "EXT4 filesystem errors";
  if (detail == "xfs") return "XFS filesystem errors";
  if (detail == "nvme_timeout") return "NVMe command timeouts";
  if (detail == "nvme_reset") return "NVMe controller failures/resets";
  if (detail == "nvme_disabled") return "NVMe drive disabled after a failed reset";
  if (detail == "nvme_path_lost") return "NVMe namespace without a usable path";
  if (detail == "beyond_end") return "accesses beyond the end of the device";
  if (detail == "md_degraded") return "md RAID member failures (array degraded)";
  if (detail == "md_failed") return "md RAID array failures";
  return "block I/O errors";
}

// What one kind of crash means, for the summary.
std::string_view CrashName(const std::string& detail) {
  if (StartsWith(detail, "panic")) return "kernel panic";
  if (StartsWith(detail, "oops")) return "kernel Oops";
  return "kernel BUG";
}

std::string_view StallName(const std::string& detail) {
  if (detail == "hard_lockup") return "hard lockups (a CPU stopped taking interrupts)";
  if (detail == "rcu_stall") return "RCU stalls";
  return "soft lockups (a CPU stuck in the kernel)";
}

std::string_view AerName(const std::string& detail) {
  if (detail == "uncorrected_fatal") return "uncorrected (fatal)";
  if (detail == "uncorrected_nonfatal") return "uncorrected (non-fatal)";
  return "corrected";
}

// The subject for a PCI address and whether it is a GPU or a GPU's upstream bridge.
std::pair<std::string, std::string> PciSubject(const CheckInput& in, const std::string& address) {
  if (address.empty()) return {"host", "unknown device"};
  auto gpu_name = [&](const std::string& gpu_address, size_t pci_index) {
    for (const GpuState& g : in.gpus.gpus) {
      if (g.pci_bus_id == gpu_address) return GpuSubject(g);
    }
    return fmt::format("gpu{} ({})", pci_index, gpu_address);
  };
  for (const GpuState& g : in.gpus.gpus) {
    if (g.pci_bus_id == address) return {GpuSubject(g), "GPU"};
  }
  if (in.host.pci_gpus.has()) {
    const auto& pci = *in.host.pci_gpus;
    for (size_t i = 0; i < pci.size(); ++i) {
      if (pci[i].gpu.address == address) return {gpu_name(address, i), "GPU"};
      if (pci[i].upstream_bridge && pci[i].upstream_bridge->address == address) {
        std::string gpu = gpu_name(pci[i].gpu.address, i);
        return {fmt::format("{} upstream bridge {}", gpu, address), "upstream bridge of " + gpu};
      }
    }
  }
  return {"pci " + address, "not a GPU or GPU bridge"};
}

Finding EventFinding(const CheckInput& in, const KernelEvent& ev) {
  std::vector<Evidence> common = CommonEvidence(ev);
  auto with = [&](std::vector<Evidence> first) {
    first.insert(first.end(), common.begin(), common.end());
    return first;
  };
  switch (ev.signal) {
    case KernelSignal::kHungTask: {
      std::string secs =
          ev.max_value >= 0 ? FormatNumber(ev.max_value, 0) : BlockedSeconds(ev.sample);
      return MakeFinding(
          "kernel.hung_task", "host", Severity::kWarn,
          fmt::format("task {} blocked{} ×{}{}", ev.key,
                      secs.empty() ? "" : " for more than " + secs + " s", ev.count, LastAt(ev)),
          with({{"task", ev.key, ""}, {"longest_blocked_s", secs, ""}}));
    }
    case KernelSignal::kIoError: {
      // A timeout is retried and a degraded md array still serves I/O: warn. The rest lost I/O.
      Severity sev = ev.detail == "nvme_timeout" || ev.detail == "md_degraded" ? Severity::kWarn
                                                                               : Severity::kFail;
      std::string device = ev.key.empty() ? "an unnamed device" : ev.key;
      return MakeFinding(
          "kernel.io_error", ev.key.empty() ? "host" : "/dev/" + ev.key, sev,
          fmt::format("{} on {} ×{}{}", IoKind(ev.detail), device, ev.count, LastAt(ev)),
          with({{"device", ev.key, ""}, {"kind", ev.detail, ""}}));
    }
    case KernelSignal::kNvswitchSxid: {
      bool fatal = ev.detail == "fatal";
      return MakeFinding(
          "kernel.nvswitch_sxid", "nvswitch " + ev.key, fatal ? Severity::kFail : Severity::kWarn,
          fmt::format("NVSwitch {} {} SXid errors ×{}{}", ev.key, fatal ? "fatal" : "non-fatal",
                      ev.count, LastAt(ev)),
          with({{"nvswitch", ev.key, ""}, {"severity", fatal ? "fatal" : "non-fatal", ""}}));
    }
    case KernelSignal::kNvlinkTraining: {
      auto [subject, role] = PciSubject(in, ev.key);
      if (role == "not a GPU or GPU bridge") subject = "host";
      return MakeFinding(
          "kernel.nvlink_training", subject, Severity::kFail,
          fmt::format("NVLink links failed to train ({}) ×{}{}", ev.key, ev.count, LastAt(ev)),
          with({{"where", ev.key, ""}}));
    }
    case KernelSignal::kKernelCrash: {
      bool deliberate = EndsWith(ev.detail, "_deliberate");
      std::string reason = ev.extras.empty() ? "" : ev.extras.front();
      Finding f = MakeFinding(
          "kernel.crash", "host", deliberate ? Severity::kInfo : Severity::kFail,
          deliberate ? fmt::format("{} provoked on purpose (SysRq or a crash-test module) ×{}{}",
                                   CrashName(ev.detail), ev.count, LastAt(ev))
                     : fmt::format("{} ×{}{}{}", CrashName(ev.detail), ev.count,
                                   reason.empty() ? "" : ": " + reason, LastAt(ev)),
          with({{"kind", ev.detail, ""}, {"deliberate", deliberate ? "yes" : "no", ""}}));
      if (deliberate) {
        f.decision =
            "Nothing to repair: someone crashed the kernel on purpose (a kdump or pstore test). "
            "Clear the saved dumps (/sys/fs/pstore, /var/lib/systemd/pstore) so a real crash "
            "stands out next time.";
      }
      return f;
    }
    case KernelSignal::kCpuStall: {
      Severity sev = ev.detail == "hard_lockup" ? Severity::kFail : Severity::kWarn;
      std::vector<Evidence> e = with({{"kind", ev.detail, ""}});
      if (ev.max_value > 0) e.push_back({"longest_stuck_s", FormatNumber(ev.max_value, 0), ""});
      return MakeFinding(
          "kernel.cpu_stall", "host", sev,
          fmt::format("{} ×{}{}{}", StallName(ev.detail), ev.count,
                      ev.max_value > 0 ? fmt::format(", longest {:.0f} s", ev.max_value) : "",
                      LastAt(ev)),
          std::move(e));
    }
    case KernelSignal::kEdacMemory: {
      bool ue = ev.detail == "ue";
      int errors = static_cast<int>(ev.sum_value > 0 ? ev.sum_value : ev.count);
      Severity sev = ue                                  ? Severity::kFail
                     : errors >= kEdacCorrectedWarnCount ? Severity::kWarn
                                                         : Severity::kInfo;
      std::vector<Evidence> e = with({{"memory_controller", ev.key, ""},
                                      {"errors", std::to_string(errors),
                                       ue ? "" : fmt::format("< {}", kEdacCorrectedWarnCount)},
                                      {"kind", ue ? "uncorrectable" : "corrected", ""}});
      return MakeFinding("kernel.edac_memory", "host memory " + ev.key, sev,
                         fmt::format("{} {} host memory error{} on {}{}", errors,
                                     ue ? "uncorrectable" : "corrected", errors == 1 ? "" : "s",
                                     ev.key, LastAt(ev)),
                         std::move(e));
    }
    case KernelSignal::kNicSlotPower:
      return MakeFinding("kernel.nic_slot_power", "host", Severity::kWarn,
                         fmt::format("{} NIC report{} of insufficient PCIe slot power ({}){}",
                                     ev.count, ev.count == 1 ? "" : "s", ev.key, LastAt(ev)),
                         with({{"required", ev.key, ""}}));
    case KernelSignal::kOomKill: {
      bool cgroup = ev.detail == "cgroup";
      return MakeFinding(
          "kernel.oom_kill", "host", Severity::kWarn,
          fmt::format("the OOM killer ended {} ×{} ({}){}", ev.key, ev.count,
                      cgroup ? "its cgroup hit its memory limit" : "the host ran out of memory",
                      LastAt(ev)),
          with({{"process", ev.key, ""}, {"constraint", cgroup ? "cgroup limit" : "host", ""}}));
    }
    case KernelSignal::kCommLibSegfault:
      return MakeFinding(
          "kernel.comm_lib_segfault", "host", Severity::kWarn,
          fmt::format("{} crashed in {} ×{}{}", ev.detail, ev.key, ev.count, LastAt(ev)),
          with({{"library", ev.key, ""}, {"process", ev.detail, ""}}));
    case KernelSignal::kPeermemError:
      return MakeFinding(
          "kernel.peermem_error", "host", Severity::kWarn,
          fmt::format("GPUDirect RDMA (peermem) error in {} ×{}{}", ev.key, ev.count, LastAt(ev)),
          with({{"where", ev.key, ""}}));
    case KernelSignal::kPcieAer: {
      auto [subject, role] = PciSubject(in, ev.pci_address);
      bool gpu_path = role == "GPU" || StartsWith(role, "upstream bridge");
      Severity sev = Severity::kInfo;
      if (ev.detail == "uncorrected_fatal") {
        sev = Severity::kFail;
      } else if (ev.detail == "uncorrected_nonfatal") {
        sev = gpu_path ? Severity::kFail : Severity::kWarn;
      } else if (ev.count >= kAerCorrectedWarnCount) {
        sev = Severity::kWarn;
      }
      std::vector<Evidence> e = with({{"address", ev.pci_address, ""},
                                      {"severity", std::string(AerName(ev.detail)), ""},
                                      {"device", role, ""}});
      if (ev.detail == "corrected") {
        e[3].threshold = fmt::format("< {}", kAerCorrectedWarnCount);  // e[3] is "count"
      }
      return MakeFinding("kernel.pcie_aer", subject, sev,
                         fmt::format("PCIe AER {} errors ×{} reported for {}{}", AerName(ev.detail),
                                     ev.count, ev.pci_address, LastAt(ev)),
                         std::move(e));
    }
    case KernelSignal::kDriverMismatch: {
      Finding f = MakeFinding(
          "kernel.driver_mismatch", "host", Severity::kFail,
          ev.detail == "api"
              ? fmt::format("NVRM: API mismatch ({}) ×{}{}: the driver's library and kernel "
                            "module differ",
                            ev.extras.empty() ? "versions not in the line" : ev.extras.front(),
                            ev.count, LastAt(ev))
              : fmt::format("{} version mismatch ×{}{}", ev.key, ev.count, LastAt(ev)),
          with({{"module", ev.key, ""}, {"versions", Join(ev.extras, "; "), ""}}));
      return f;
    }
    case KernelSignal::kGpuInitFailed: {
      auto [subject, role] = ev.key == "nvidia" ? std::pair<std::string, std::string>{"host", ""}
                                                : PciSubject(in, ev.key);
      return MakeFinding(
          "kernel.gpu_init_failed", subject, Severity::kFail,
          fmt::format("{} ×{}{}{}",
                      ev.detail == "probe"
                          ? "the NVIDIA probe routine failed"
                          : "the driver failed to initialise the GPU (RmInitAdapter)",
                      ev.count, ev.key == "nvidia" ? "" : " for " + ev.key, LastAt(ev)),
          with({{"address", ev.key, ""}, {"kind", ev.detail, ""}, {"device", role, ""}}));
    }
    case KernelSignal::kNetCarrier:
    case KernelSignal::kPcieHwError:
    case KernelSignal::kPcieDpc:
    case KernelSignal::kPcieHotplug:
    case KernelSignal::kMachineCheck:
    case KernelSignal::kNicHealth:
    case KernelSignal::kNfsLockReclaim:
    case KernelSignal::kFileMax:
    case KernelSignal::kNfsNotResponding:
      break;
  }
  return MakeFinding("kernel.nfs_not_responding", "host", Severity::kWarn, ev.sample, common);
}

}  // namespace

void CheckKernelSignals(const CheckInput& in, const Policy& /*policy*/, std::vector<Finding>& out) {
  const KernelLogState& log = in.host.kernel_log;
  if (!log.record_count.has()) return;  // CheckXid reports kernel.log_access
  int records = *log.record_count;
  CheckNfs(log, records, out);
  struct Kind {
    KernelSignal signal;
    std::string_view none;
  };
  static constexpr Kind kKinds[] = {
      {KernelSignal::kHungTask, "hung task"},
      {KernelSignal::kIoError, "block or filesystem I/O error"},
      {KernelSignal::kOomKill, "OOM kill"},
      {KernelSignal::kCommLibSegfault, "crash in a GPU communication library"},
      {KernelSignal::kPeermemError, "peermem error"},
      {KernelSignal::kPcieAer, "PCIe AER report"},
      {KernelSignal::kNvswitchSxid, "NVSwitch SXid error"},
      {KernelSignal::kNvlinkTraining, "NVLink training failure"},
      {KernelSignal::kKernelCrash, "kernel panic, Oops or BUG"},
      {KernelSignal::kCpuStall, "soft lockup, hard lockup or RCU stall"},
      {KernelSignal::kEdacMemory, "EDAC memory error"},
      {KernelSignal::kNicSlotPower, "NIC slot-power warning"},
  };
  for (const Kind& k : kKinds) {
    std::vector<const KernelEvent*> events = EventsOf(log, k.signal);
    if (events.empty()) {
      AddOk(k.signal, k.none, records, out);
      continue;
    }
    for (const KernelEvent* ev : events) out.push_back(EventFinding(in, *ev));
  }
  // NVIDIA driver failures: reported when the log has them (no ok line for their absence).
  for (KernelSignal signal : {KernelSignal::kDriverMismatch, KernelSignal::kGpuInitFailed}) {
    for (const KernelEvent* ev : EventsOf(log, signal)) out.push_back(EventFinding(in, *ev));
  }
}

}  // namespace gpuvet
