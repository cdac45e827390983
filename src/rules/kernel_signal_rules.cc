// Kernel log signals beyond Xid: one finding per NFS server, hung task, failing device, OOM-killed
// process, crashing library, peermem error and AER source, with the deduplicated count and
// first/last time as evidence. Severities: an NFS outage still open at the end of the log, I/O
// errors and fatal AER (or non-fatal AER on a GPU or its bridge) fail; the rest warn, except a few
// corrected AER errors (info). An ok finding per signal when the log has none.
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
  return "block I/O errors";
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
      Severity sev = ev.detail == "nvme_timeout" ? Severity::kWarn : Severity::kFail;
      return MakeFinding(
          "kernel.io_error", "/dev/" + ev.key, sev,
          fmt::format("{} on {} ×{}{}", IoKind(ev.detail), ev.key, ev.count, LastAt(ev)),
          with({{"device", ev.key, ""}, {"kind", ev.detail, ""}}));
    }
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
  };
  for (const Kind& k : kKinds) {
    std::vector<const KernelEvent*> events = EventsOf(log, k.signal);
    if (events.empty()) {
      AddOk(k.signal, k.none, records, out);
      continue;
    }
    for (const KernelEvent* ev : events) out.push_back(EventFinding(in, *ev));
  }
}

}  // namespace gpuvet
