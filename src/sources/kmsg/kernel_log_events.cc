// Kernel log signal events over whole logs: merges multi-line reports (OOM header and kill line,
// AER header and detail line, the lines of one kernel crash, a beyond-end report and its device
// line), marks crashes provoked on purpose (SysRq, crash-test modules), deduplicates events with
// count and first/last time (ISO 8601 where the log allows), pairs NFS "not responding" with "OK"
// into outages, and converts ISO times to Unix time for durations.
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "sources/kmsg/kernel_log_signals.h"
#include "sources/kmsg/kernel_log_time.h"
#include "util/iso_time.h"

namespace gpuvet {

namespace {

using kernel_log_internal::IsoLogTime;

// The kill line follows its "oom-kill:" header within a few records (the kernel prints the task
// dump between them only with vm.oom_dump_tasks, which is usually off in that position).
constexpr size_t kOomWindow = 64;
// The "PCIe Bus Error" detail line follows its "error received" header directly (the kernel
// prints it right after; the status-register lines come after it).
constexpr size_t kAerWindow = 2;
// Distinct extras (PIDs, error types) kept per deduplicated event.
constexpr size_t kMaxExtras = 8;
// The device line of an "attempt to access beyond end of device" report follows it directly.
constexpr size_t kBeyondEndWindow = 2;
// One crash prints "BUG: …", "Oops: …" and often "Kernel panic - not syncing: Fatal exception"
// within its register dump and call trace (~60 lines); a header this close to the previous one is
// the same crash.
constexpr size_t kCrashWindow = 100;
// A SysRq crash trigger or a crash-test module this close to a crash (either side) made it.
constexpr size_t kDeliberateWindow = 64;

// Lines that show a crash was provoked on purpose (kdump/pstore tests): "sysrq: Trigger a crash"
// ("SysRq : Trigger a crash" on older kernels), the SysRq handler or a crash-test module in the
// trace, the LKDTM test driver, a "Test panic".
bool IsDeliberateCrashMarker(const std::string& text) {
  for (std::string_view marker :
       {"Trigger a crash", "sysrq_handle_crash", "crash_test", "Test panic", "lkdtm", "LKDTM"}) {
    if (text.find(marker) != std::string::npos) return true;
  }
  return false;
}

// panic > oops > bug: the most serious name of one crash report.
int CrashRank(const std::string& detail) {
  if (detail == "panic") return 3;
  if (detail == "oops") return 2;
  return 1;
}

// Seconds to compare two records by: since boot when both have it, else Unix time.
bool Elapsed(const KernelLogRecord& a, const KernelLogRecord& b, double* out) {
  if (a.monotonic_s >= 0 && b.monotonic_s >= 0) {
    *out = b.monotonic_s - a.monotonic_s;
    return true;
  }
  Result<double> ea = ParseIsoTime(a.time), eb = ParseIsoTime(b.time);
  if (ea.ok() && eb.ok()) {
    *out = *eb - *ea;
    return true;
  }
  return false;
}

}  // namespace

std::vector<KernelSignalEvent> ClassifyKernelLog(const std::vector<KernelLogRecord>& records) {
  std::vector<KernelSignalEvent> out;
  struct Open {
    size_t record = 0;
    size_t event = 0;
    int pid = 0;
    std::string detail;
  };
  std::optional<Open> oom, aer, beyond, crash, mismatch;
  std::vector<size_t> markers;                     // records of deliberate-crash markers
  std::vector<std::pair<size_t, size_t>> crashes;  // (record, event) of each crash report
  for (size_t i = 0; i < records.size(); ++i) {
    const KernelLogRecord& rec = records[i];
    if (IsDeliberateCrashMarker(rec.text)) markers.push_back(i);
    std::optional<KernelSignalMatch> m = ClassifyKernelMessage(rec.text);
    if (!m) continue;
    if (m->signal == KernelSignal::kIoError && m->detail == "beyond_end" && m->continuation) {
      // The device line: names the device of the report just before it; alone it is not one.
      if (beyond && i - beyond->record <= kBeyondEndWindow && out[beyond->event].key.empty()) {
        out[beyond->event].key = m->key;
      }
      beyond.reset();
      continue;
    }
    if (m->signal == KernelSignal::kKernelCrash && crash && i - crash->record <= kCrashWindow) {
      KernelSignalEvent& ev = out[crash->event];
      if (CrashRank(m->detail) > CrashRank(ev.detail)) {
        ev.detail = m->detail;
        ev.extra = m->extra;
      }
      crash->record = i;
      continue;
    }
    if (m->signal == KernelSignal::kNfsNotResponding && m->detail == "ok") continue;
    if (m->signal == KernelSignal::kDriverMismatch && m->continuation) {
      // "NVRM: this kernel module has the version Y": the second line of an API mismatch.
      if (mismatch && i - mismatch->record <= 2) {
        out[mismatch->event].extra += ", kernel module " + m->extra;
      }
      mismatch.reset();
      continue;
    }
    if (m->signal == KernelSignal::kOomKill && m->continuation && oom && oom->pid == m->pid &&
        i - oom->record <= kOomWindow) {
      if (m->detail == "cgroup") out[oom->event].detail = "cgroup";
      oom.reset();
      continue;
    }
    if (m->signal == KernelSignal::kPcieAer && m->continuation && aer && aer->detail == m->detail &&
        i - aer->record <= kAerWindow) {
      if (out[aer->event].extra.empty()) out[aer->event].extra = m->extra;
      aer.reset();  // one detail line per header: a later one is a report of its own
      continue;
    }
    KernelSignalEvent ev;
    ev.signal = m->signal;
    ev.key = std::move(m->key);
    ev.detail = std::move(m->detail);
    ev.extra = std::move(m->extra);
    ev.value = m->value;
    ev.time = rec.time;
    ev.monotonic_s = rec.monotonic_s;
    Result<double> epoch = ParseIsoTime(rec.time);
    ev.epoch_s = epoch.ok() ? *epoch : -1;
    ev.text = rec.text;
    if (ev.signal == KernelSignal::kOomKill && !m->continuation) {
      oom = Open{i, out.size(), m->pid, ev.detail};
    }
    if (ev.signal == KernelSignal::kPcieAer && !m->continuation) {
      aer = Open{i, out.size(), 0, ev.detail};
    }
    if (ev.signal == KernelSignal::kDriverMismatch && ev.detail == "api" &&
        ev.extra.find("kernel module") == std::string::npos) {
      mismatch = Open{i, out.size(), 0, ev.detail};
    }
    if (ev.signal == KernelSignal::kIoError && ev.detail == "beyond_end") {
      beyond = Open{i, out.size(), 0, ev.detail};
    }
    if (ev.signal == KernelSignal::kKernelCrash) {
      crash = Open{i, out.size(), 0, ev.detail};
      crashes.push_back({i, out.size()});
    }
    out.push_back(std::move(ev));
  }
  // A crash with a deliberate trigger nearby (before or after its header) was provoked.
  for (const auto& [record, event] : crashes) {
    for (size_t marker : markers) {
      size_t distance = marker > record ? marker - record : record - marker;
      if (distance <= kDeliberateWindow) {
        out[event].detail += "_deliberate";
        break;
      }
    }
  }
  return out;
}

std::vector<KernelEvent> ExtractKernelEvents(const std::vector<KernelLogRecord>& records) {
  std::map<std::tuple<int, std::string, std::string>, KernelEvent> groups;
  for (KernelSignalEvent& ev : ClassifyKernelLog(records)) {
    KernelEvent& g = groups[{static_cast<int>(ev.signal), ev.key, ev.detail}];
    if (g.count == 0) {
      g.signal = ev.signal;
      g.key = ev.key;
      g.detail = ev.detail;
      if (ev.signal == KernelSignal::kPcieAer) g.pci_address = ev.key;
      g.first_time = IsoLogTime(ev.time);
      g.sample = ev.text;
    }
    ++g.count;
    g.last_time = IsoLogTime(ev.time);
    g.max_value = std::max(g.max_value, ev.value);
    if (ev.value > 0) g.sum_value += ev.value;
    if (!ev.extra.empty() && g.extras.size() < kMaxExtras &&
        std::find(g.extras.begin(), g.extras.end(), ev.extra) == g.extras.end()) {
      g.extras.push_back(ev.extra);
    }
  }
  std::vector<KernelEvent> out;
  out.reserve(groups.size());
  for (auto& [key, ev] : groups) out.push_back(std::move(ev));
  return out;
}

std::vector<NfsOutage> ExtractNfsOutages(const std::vector<KernelLogRecord>& records) {
  std::vector<NfsOutage> out;
  std::map<std::string, std::pair<size_t, size_t>> open;  // server -> (outage, start record)
  for (size_t i = 0; i < records.size(); ++i) {
    const KernelLogRecord& rec = records[i];
    if (rec.text.find("server ") == std::string::npos) continue;
    std::optional<KernelSignalMatch> m = ClassifyKernelMessage(rec.text);
    if (!m || m->signal != KernelSignal::kNfsNotResponding) continue;
    auto it = open.find(m->key);
    if (m->detail == "ok") {
      if (it == open.end()) continue;  // an OK without a preceding outage in this log
      NfsOutage& o = out[it->second.first];
      o.end_time = IsoLogTime(rec.time);
      double d;
      if (Elapsed(records[it->second.second], rec, &d) && d >= 0) o.duration_s = d;
      open.erase(it);
      continue;
    }
    if (it != open.end()) {
      ++out[it->second.first].not_responding_lines;
      continue;
    }
    NfsOutage o;
    o.server = m->key;
    o.start_time = IsoLogTime(rec.time);
    o.not_responding_lines = 1;
    open[m->key] = {out.size(), i};
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace gpuvet
