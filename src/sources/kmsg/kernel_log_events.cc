// Kernel log signal events over whole logs: merges multi-line reports (OOM header and kill line,
// AER header and detail line), deduplicates events with count and first/last time, pairs NFS
// "not responding" with "OK" into outages, and converts ISO times to Unix time for durations.
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "sources/kmsg/kernel_log_scan.h"
#include "sources/kmsg/kernel_log_signals.h"

namespace gpuvet {

namespace {

using kernel_log_internal::CountDigits;
using kernel_log_internal::Digits;

// The kill line follows its "oom-kill:" header within a few records (the kernel prints the task
// dump between them only with vm.oom_dump_tasks, which is usually off in that position).
constexpr size_t kOomWindow = 64;
// The "PCIe Bus Error" detail line follows its "error received" header directly (the kernel
// prints it right after; the status-register lines come after it).
constexpr size_t kAerWindow = 2;
// Distinct extras (PIDs, error types) kept per deduplicated event.
constexpr size_t kMaxExtras = 8;

// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned mp = m > 2 ? m - 3 : m + 9;  // March-based month, no unsigned wrap-around
  const unsigned doy = (153 * mp + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

int Num(std::string_view s, size_t pos, size_t n) {
  int v = 0;
  for (size_t i = 0; i < n; ++i) v = v * 10 + (s[pos + i] - '0');
  return v;
}

// Seconds to compare two records by: since boot when both have it, else Unix time.
bool Elapsed(const KernelLogRecord& a, const KernelLogRecord& b, double* out) {
  if (a.monotonic_s >= 0 && b.monotonic_s >= 0) {
    *out = b.monotonic_s - a.monotonic_s;
    return true;
  }
  double ea = IsoTimeToEpoch(a.time), eb = IsoTimeToEpoch(b.time);
  if (ea >= 0 && eb >= 0) {
    *out = eb - ea;
    return true;
  }
  return false;
}

}  // namespace

double IsoTimeToEpoch(std::string_view s) {
  size_t p = 0;
  using kernel_log_internal::Char;
  if (!(Digits(s, p, 4) && Char(s, p, '-') && Digits(s, p, 2) && Char(s, p, '-') &&
        Digits(s, p, 2) && (Char(s, p, 'T') || Char(s, p, ' ')) && Digits(s, p, 2) &&
        Char(s, p, ':') && Digits(s, p, 2) && Char(s, p, ':') && Digits(s, p, 2))) {
    return -1;
  }
  int year = Num(s, 0, 4), month = Num(s, 5, 2), day = Num(s, 8, 2);
  int hour = Num(s, 11, 2), minute = Num(s, 14, 2), second = Num(s, 17, 2);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return -1;
  }
  double frac = 0;
  if (p < s.size() && (s[p] == ',' || s[p] == '.')) {
    size_t n = CountDigits(s.substr(p + 1));
    double scale = 0.1;
    for (size_t i = 0; i < n && i < 9; ++i, scale /= 10) frac += (s[p + 1 + i] - '0') * scale;
    p += 1 + n;
  }
  int offset_s = 0;
  if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
    int sign = s[p] == '-' ? -1 : 1;
    size_t q = p + 1;
    if (!Digits(s, q, 2)) return -1;
    int oh = Num(s, p + 1, 2);
    Char(s, q, ':');
    size_t mstart = q;
    if (!Digits(s, q, 2)) return -1;
    offset_s = sign * (oh * 3600 + Num(s, mstart, 2) * 60);
  } else if (p < s.size() && s[p] != 'Z' && s[p] != ' ') {
    return -1;
  }
  int64_t days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  double t = static_cast<double>(days * 86400 + hour * 3600 + minute * 60 + second) + frac;
  return t - offset_s;
}

std::vector<KernelSignalEvent> ClassifyKernelLog(const std::vector<KernelLogRecord>& records) {
  std::vector<KernelSignalEvent> out;
  struct Open {
    size_t record = 0;
    size_t event = 0;
    int pid = 0;
    std::string detail;
  };
  std::optional<Open> oom, aer;
  for (size_t i = 0; i < records.size(); ++i) {
    const KernelLogRecord& rec = records[i];
    std::optional<KernelSignalMatch> m = ClassifyKernelMessage(rec.text);
    if (!m) continue;
    if (m->signal == KernelSignal::kNfsNotResponding && m->detail == "ok") continue;
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
    ev.epoch_s = IsoTimeToEpoch(rec.time);
    ev.text = rec.text;
    if (ev.signal == KernelSignal::kOomKill && !m->continuation) {
      oom = Open{i, out.size(), m->pid, ev.detail};
    }
    if (ev.signal == KernelSignal::kPcieAer && !m->continuation) {
      aer = Open{i, out.size(), 0, ev.detail};
    }
    out.push_back(std::move(ev));
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
      g.first_time = ev.time;
      g.sample = ev.text;
    }
    ++g.count;
    g.last_time = ev.time;
    g.max_value = std::max(g.max_value, ev.value);
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
      o.end_time = rec.time;
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
    o.start_time = rec.time;
    o.not_responding_lines = 1;
    open[m->key] = {out.size(), i};
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace gpuvet
