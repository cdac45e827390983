// Xid check: turns the kernel log's deduplicated Xid events into one finding per (GPU, Xid) (per
// Fatal/Nonfatal for NVLink5), with the severity of the Xid's class in the catalogue
// (application and informational → info, recoverable → warn, critical → fail), NVIDIA's immediate
// action as evidence and gpuvet's action as the decision. Xid 154 is judged by the recovery action
// its message names. The driver's "printing 1 of every N" notices mark the GSP errors of that GPU
// as undercounted (or, with no Xid printed, stand for them). Events on a GPU NVML no longer lists
// (it fell off the bus) are reported on the PCI address.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "rules/rules.h"
#include "rules/xid_catalog.h"

namespace gpuvet {

namespace {

std::string_view FindingIdOf(XidClass c) {
  switch (c) {
    case XidClass::kApplication:
      return "xid.application";
    case XidClass::kInformational:
      return "xid.informational";
    case XidClass::kCritical:
      return "xid.critical";
    case XidClass::kRecoverable:
      break;
  }
  return "xid.recoverable";
}

Severity SeverityOf(XidClass c) {
  switch (c) {
    case XidClass::kApplication:
    case XidClass::kInformational:
      return Severity::kInfo;
    case XidClass::kCritical:
      return Severity::kFail;
    case XidClass::kRecoverable:
      break;
  }
  return Severity::kWarn;
}

// The GSP RPC errors the driver rate-limits when it prints "printing 1 of every N".
bool IsGspXid(int xid) { return xid == 119 || xid == 120; }

// The rate-limit notices of one GPU.
struct RateLimits {
  int every = 0;  // the largest N
  int notices = 0;
  std::string first_time;
};

std::map<std::string, RateLimits> RateLimitsByAddress(const KernelLogState& log) {
  std::map<std::string, RateLimits> out;
  for (const XidRateLimit& r : log.xid_rate_limits) {
    RateLimits& l = out[r.pci_address];
    if (l.notices++ == 0) l.first_time = r.time;
    l.every = std::max(l.every, r.every);
  }
  return out;
}

// The subject for an event: the NVML GPU at that address, else the bare PCI address.
std::string SubjectOf(const GpuInventory& gpus, const std::string& address) {
  if (address.empty()) return "host";
  for (const GpuState& gpu : gpus.gpus) {
    if (gpu.pci_bus_id == address) return GpuSubject(gpu);
  }
  return "pci " + address;
}

Finding XidFinding(const XidEvent& ev, const GpuInventory& gpus, const RateLimits* limits) {
  XidInfo info = ClassifyXidEvent(ev.xid, ev.detail);
  bool nvlink5 = ev.xid >= 144 && ev.xid <= 150;
  std::string name(info.name);
  if (nvlink5 && !ev.detail.empty()) name += ev.detail == "fatal" ? ", fatal" : ", non-fatal";
  std::string summary = fmt::format("Xid {} ({}) ×{}", ev.xid, name, ev.count);
  if (!ev.last_time.empty()) {
    summary += (ev.count > 1 ? ", last " : ", at ") + ShortLogTime(ev.last_time);
  }
  if (ev.xid == 154 && !ev.detail.empty()) summary += "; recovery action now: " + ev.detail;
  if (limits) {
    summary += fmt::format(
        "; the driver rate-limits these (1 of every {} printed), so there were "
        "more",
        limits->every);
  }
  std::vector<Evidence> evidence = {
      {"xid", std::to_string(ev.xid), ""},
      {"name", name, ""},
      {"class", std::string(XidClassName(info.xid_class)), ""},
      {"nvidia_action", info.nvidia_action.empty() ? "none given" : std::string(info.nvidia_action),
       ""},
  };
  if (ev.xid == 154 && !ev.detail.empty()) evidence.push_back({"recovery_action", ev.detail, ""});
  evidence.push_back({"count", std::to_string(ev.count), ""});
  if (limits) {
    evidence.push_back(
        {"rate_limit",
         fmt::format("1 of every {} printed since {}", limits->every, limits->first_time), ""});
    evidence.push_back({"rate_limit_notices", std::to_string(limits->notices), ""});
  }
  evidence.push_back({"first", ev.first_time, ""});
  evidence.push_back({"last", ev.last_time, ""});
  evidence.push_back({"sample", ev.sample, ""});
  Finding f = MakeFinding(FindingIdOf(info.xid_class), SubjectOf(gpus, ev.pci_address),
                          SeverityOf(info.xid_class), std::move(summary), std::move(evidence));
  f.decision = std::string(info.action);
  return f;
}

// A rate-limit notice for a GPU with no GSP Xid printed: the errors it suppressed are Xid 119s
// (GSP RPC timeouts), and the driver itself says the GPU likely needs a reset.
Finding RateLimitFinding(const std::string& address, const RateLimits& limits,
                         const GpuInventory& gpus) {
  XidInfo info = ClassifyXid(119);
  Finding f = MakeFinding(
      FindingIdOf(info.xid_class), SubjectOf(gpus, address), SeverityOf(info.xid_class),
      fmt::format("the driver rate-limits GSP RPC errors on this GPU (1 of every {} printed) ×{}, "
                  "since {}: GSP calls keep timing out",
                  limits.every, limits.notices, ShortLogTime(limits.first_time)),
      {{"xid", "119", "implied by the rate-limit notice"},
       {"name", std::string(info.name), ""},
       {"nvidia_action", std::string(info.nvidia_action), ""},
       {"rate_limit", fmt::format("1 of every {} printed", limits.every), ""},
       {"rate_limit_notices", std::to_string(limits.notices), ""},
       {"first", limits.first_time, ""}});
  f.decision = std::string(info.action);
  return f;
}

}  // namespace

void CheckXid(const CheckInput& in, const Policy& /*policy*/, std::vector<Finding>& out) {
  const KernelLogState& log = in.host.kernel_log;
  const Reading<int>& records = log.record_count;
  if (records.state == Reading<int>::State::kAbsent) return;  // the kernel log source was skipped
  if (!records.has()) {
    std::string note = records.note.empty() ? "the kernel log could not be read" : records.note;
    out.push_back(MakeFinding("kernel.log_access", "host", Severity::kUnknown, note,
                              {{"source", log.source.empty() ? "/dev/kmsg" : log.source, ""}}));
    return;
  }
  out.push_back(MakeFinding("kernel.log_access", "host", Severity::kOk,
                            fmt::format("read {} kernel log records from {}", *records, log.source),
                            {{"records", std::to_string(*records), ""}}));
  std::map<std::string, RateLimits> limits = RateLimitsByAddress(log);
  if (log.xids.empty() && limits.empty()) {
    out.push_back(MakeFinding("xid.critical", "host", Severity::kOk,
                              fmt::format("no Xid events in {} kernel log records", *records)));
    return;
  }
  std::set<std::string> limits_used;
  for (const XidEvent& ev : log.xids) {
    const RateLimits* l = nullptr;
    if (IsGspXid(ev.xid)) {
      if (auto it = limits.find(ev.pci_address); it != limits.end()) {
        l = &it->second;
        limits_used.insert(ev.pci_address);
      }
    }
    out.push_back(XidFinding(ev, in.gpus, l));
  }
  for (const auto& [address, l] : limits) {
    if (!limits_used.count(address)) out.push_back(RateLimitFinding(address, l, in.gpus));
  }
}

}  // namespace gpuvet
