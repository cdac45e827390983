// Xid check: turns the kernel log's deduplicated Xid events into one finding per (GPU, Xid),
// with the severity of the Xid's class in the catalogue (application → info, recoverable → warn,
// critical → fail) and its action as the decision. Events on a GPU NVML no longer lists (it fell
// off the bus) are reported on the PCI address.
#include <fmt/format.h>

#include "rules/rules.h"
#include "rules/xid_catalog.h"

namespace gpuvet {

namespace {

std::string_view FindingIdOf(XidClass c) {
  switch (c) {
    case XidClass::kApplication:
      return "xid.application";
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
      return Severity::kInfo;
    case XidClass::kCritical:
      return Severity::kFail;
    case XidClass::kRecoverable:
      break;
  }
  return Severity::kWarn;
}

// The subject for an event: the NVML GPU at that address, else the bare PCI address.
std::string SubjectOf(const GpuInventory& gpus, const std::string& address) {
  if (address.empty()) return "host";
  for (const GpuState& gpu : gpus.gpus) {
    if (gpu.pci_bus_id == address) return GpuSubject(gpu);
  }
  return "pci " + address;
}

Finding XidFinding(const XidEvent& ev, const GpuInventory& gpus) {
  XidInfo info = ClassifyXid(ev.xid);
  std::string summary = fmt::format("Xid {} ({}) ×{}", ev.xid, info.name, ev.count);
  if (!ev.last_time.empty()) {
    summary += (ev.count > 1 ? ", last " : ", at ") + ShortLogTime(ev.last_time);
  }
  Finding f = MakeFinding(FindingIdOf(info.xid_class), SubjectOf(gpus, ev.pci_address),
                          SeverityOf(info.xid_class), std::move(summary),
                          {
                              {"xid", std::to_string(ev.xid), ""},
                              {"name", std::string(info.name), ""},
                              {"class", std::string(XidClassName(info.xid_class)), ""},
                              {"count", std::to_string(ev.count), ""},
                              {"first", ev.first_time, ""},
                              {"last", ev.last_time, ""},
                              {"sample", ev.sample, ""},
                          });
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
  if (log.xids.empty()) {
    out.push_back(MakeFinding("xid.critical", "host", Severity::kOk,
                              fmt::format("no Xid events in {} kernel log records", *records)));
    return;
  }
  for (const XidEvent& ev : log.xids) out.push_back(XidFinding(ev, in.gpus));
}

}  // namespace gpuvet
