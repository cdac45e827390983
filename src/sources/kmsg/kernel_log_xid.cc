// NVIDIA Xid extraction from parsed kernel log records: matches the "NVRM: Xid (…): N" lines and
// the separate "GPU has fallen off the bus" line, normalises the PCI address they name, and
// groups the events per (GPU, Xid) with count, first/last time and a sample message.
#include <fmt/format.h>

#include <cctype>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "sources/kmsg/kernel_log.h"
#include "sources/kmsg/kernel_log_scan.h"
#include "sources/kmsg/kernel_log_time.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

using kernel_log_internal::CountDigits;
using kernel_log_internal::IsDigit;
using kernel_log_internal::IsHex;
using kernel_log_internal::SkipSpaces;

// A "fallen off the bus" line this many records after an Xid 79 of the same GPU is the same event
// (the driver prints both for one failure).
constexpr size_t kFallenOffBusWindow = 8;

}  // namespace

namespace kernel_log_internal {

std::optional<std::string> NormalizePciAddress(std::string_view raw) {
  std::string s = ToLower(Trim(raw));
  if (StartsWith(s, "pci:")) s.erase(0, 4);
  std::vector<std::string_view> parts = Split(s, ':');
  if (parts.size() == 2) parts.insert(parts.begin(), "0");
  if (parts.size() != 3) return std::nullopt;
  std::string_view dev = parts[2];
  int function = 0;
  if (size_t dot = dev.find('.'); dot != std::string_view::npos) {
    std::string_view fn = dev.substr(dot + 1);
    if (fn.size() != 1 || fn[0] < '0' || fn[0] > '7') return std::nullopt;
    function = fn[0] - '0';
    dev = dev.substr(0, dot);
  }
  auto hex = [](std::string_view v, size_t max_len) -> std::optional<unsigned> {
    if (v.empty() || v.size() > max_len) return std::nullopt;
    unsigned out = 0;
    for (char c : v) {
      if (!IsHex(c)) return std::nullopt;
      out = out * 16 + static_cast<unsigned>(IsDigit(c) ? c - '0' : c - 'a' + 10);
    }
    return out;
  };
  auto domain = hex(parts[0], 8);
  auto bus = hex(parts[1], 2);
  auto device = hex(dev, 2);
  if (!domain || !bus || !device || *device > 0x1f) return std::nullopt;
  return fmt::format("{:04x}:{:02x}:{:02x}.{}", *domain, *bus, *device, function);
}

}  // namespace kernel_log_internal

namespace {

using kernel_log_internal::NormalizePciAddress;

// The address as reported when it cannot be normalised: lower case, bounded, printable.
std::string RawAddress(std::string_view raw) {
  std::string out;
  for (char c : raw.substr(0, 32)) {
    if (c > ' ' && c < 127) out.push_back(static_cast<char>(std::tolower(c)));
  }
  return out;
}

std::string AddressOf(std::string_view raw) {
  if (auto a = NormalizePciAddress(raw)) return *a;
  return RawAddress(raw);
}

struct XidMatch {
  std::string address;
  int xid = 0;
  bool fallen_off_bus_line = false;  // the separate "GPU has fallen off the bus" line
  std::string detail;                // XidEvent::detail
};

// What the message after the code adds: NVLink5 (144-150) "Fatal"/"Nonfatal", and Xid 154's
// new recovery action ("… changed from 0x0 (None) to 0x4 (Drain and Reset)" -> "Drain and Reset").
std::string DetailOf(int xid, std::string_view message) {
  if (xid >= 144 && xid <= 150) {
    // "144, SAW_MVB Nonfatal XC0 i0 Link 00 (…)"; "Nonfatal" before "Fatal", which it contains
    // only in lower case.
    if (message.find("Nonfatal") != std::string_view::npos ||
        message.find("Non-fatal") != std::string_view::npos ||
        message.find("Non-Fatal") != std::string_view::npos) {
      return "nonfatal";
    }
    if (message.find("Fatal") != std::string_view::npos) return "fatal";
    return "";
  }
  if (xid != 154) return "";
  size_t to = message.find(" to 0x");
  if (to == std::string_view::npos) return "";
  std::string_view rest = message.substr(to);
  size_t open = rest.find('(');
  size_t close = rest.find(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
      close - open > 48) {
    return "";
  }
  std::string out;
  for (char c : rest.substr(open + 1, close - open - 1)) {
    if (c >= ' ' && c < 127) out.push_back(c);
  }
  return std::string(Trim(out));
}

// "NVRM: Xid (PCI:0000:38:00): 13, …", "NVRM: Xid (0000:38:00): 13, …",
// "NVRM: Xid (PCI:0000:38:00 GPU-I:05): 43, …".
std::optional<XidMatch> MatchXidLine(std::string_view text) {
  constexpr std::string_view kPrefix = "NVRM: Xid (";
  size_t at = text.find(kPrefix);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + kPrefix.size());
  size_t close = rest.find(')');
  if (close == std::string_view::npos || close > 64) return std::nullopt;
  std::string_view inside = rest.substr(0, close);
  std::string_view address = inside.substr(0, inside.find(' '));
  rest = rest.substr(close + 1);
  if (rest.empty() || rest[0] != ':') return std::nullopt;
  rest = SkipSpaces(rest.substr(1));
  size_t n = CountDigits(rest);
  // Xid codes are 1..~200 today; five digits leave room without accepting garbage.
  if (n == 0 || n > 5) return std::nullopt;
  if (n < rest.size() && rest[n] != ',' && rest[n] != ' ') return std::nullopt;
  auto xid = ParseInt(rest.substr(0, n));
  if (!xid || *xid <= 0 || address.empty()) return std::nullopt;
  int code = static_cast<int>(*xid);
  return XidMatch{AddressOf(address), code, false, DetailOf(code, rest.substr(n))};
}

// "NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus." and the newer
// "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus." (Xid 79 in NVIDIA's catalogue).
std::optional<XidMatch> MatchFallenOffBus(std::string_view text) {
  if (text.find("GPU has fallen off the bus") == std::string_view::npos) return std::nullopt;
  constexpr std::string_view kPrefix = "NVRM: GPU ";
  size_t at = text.find(kPrefix);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + kPrefix.size());
  if (StartsWith(rest, "at ")) rest.remove_prefix(3);
  std::string_view token = rest.substr(0, rest.find(' '));
  if (EndsWith(token, ":")) token.remove_suffix(1);
  return XidMatch{AddressOf(token), 79, true, ""};
}

// The probe-time report, printed as one message of three lines (or two, older drivers):
//   "NVRM: The NVIDIA GPU 0000:5d:00.0" / "NVRM: (PCI ID: 10de:2330) installed in this system
//   has" / "NVRM: fallen off the bus and is not responding to commands."
// The address line, when it is a record of its own, comes at most this many records before.
constexpr size_t kProbeReportWindow = 3;

// The address in "NVRM: The NVIDIA GPU 0000:5d:00.0 …", or nullopt.
std::optional<std::string> ProbeReportAddress(std::string_view text) {
  constexpr std::string_view kPrefix = "NVRM: The NVIDIA GPU ";
  size_t at = text.find(kPrefix);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + kPrefix.size());
  std::string_view token = rest.substr(0, rest.find_first_of(" \n"));
  if (token.empty()) return std::nullopt;
  return AddressOf(token);
}

bool IsProbeFallenOffBus(std::string_view text) {
  return text.find("fallen off the bus and is not responding") != std::string_view::npos;
}

}  // namespace

std::vector<XidOccurrence> ExtractXidOccurrences(const std::vector<KernelLogRecord>& records) {
  std::vector<XidOccurrence> out;
  std::map<std::string, size_t> last_xid79;  // address -> record index of its last Xid 79 line
  std::optional<std::pair<std::string, size_t>> probe;  // "The NVIDIA GPU ADDR" and its record
  for (size_t i = 0; i < records.size(); ++i) {
    const KernelLogRecord& rec = records[i];
    if (rec.text.find("NVRM: ") == std::string::npos) continue;
    if (auto address = ProbeReportAddress(rec.text)) probe = {{*address, i}};
    std::optional<XidMatch> m = MatchXidLine(rec.text);
    if (!m) m = MatchFallenOffBus(rec.text);
    if (!m && IsProbeFallenOffBus(rec.text)) {
      // The GPU was lost at driver load, before any Xid: Xid 79 in NVIDIA's terms. Without its
      // address line nearby the GPU is unknown ("").
      std::string address;
      if (probe && i - probe->second <= kProbeReportWindow) address = probe->first;
      probe.reset();
      m = XidMatch{std::move(address), 79, true, ""};
    }
    if (!m) continue;
    if (m->xid == 79) {
      auto it = last_xid79.find(m->address);
      bool echo =
          m->fallen_off_bus_line && it != last_xid79.end() && i - it->second <= kFallenOffBusWindow;
      if (!m->fallen_off_bus_line) last_xid79[m->address] = i;
      if (echo) continue;
    }
    out.push_back(
        XidOccurrence{std::move(m->address), m->xid, rec.time, rec.text, std::move(m->detail)});
  }
  return out;
}

std::vector<XidEvent> GroupXidOccurrences(const std::vector<XidOccurrence>& occurrences) {
  using kernel_log_internal::IsoLogTime;
  // NVLink5 reports are grouped by Fatal/Nonfatal too (they are judged apart); Xid 154 keeps
  // the action of its latest report (a later "to 0x0 (None)" clears an earlier one).
  std::map<std::tuple<std::string, int, std::string>, XidEvent> groups;
  for (const XidOccurrence& o : occurrences) {
    bool nvlink5 = o.xid >= 144 && o.xid <= 150;
    XidEvent& ev = groups[{o.pci_address, o.xid, nvlink5 ? o.detail : ""}];
    if (ev.count == 0) {
      ev.pci_address = o.pci_address;
      ev.xid = o.xid;
      ev.first_time = IsoLogTime(o.time);
      ev.sample = o.text;
    }
    ++ev.count;
    ev.last_time = IsoLogTime(o.time);
    if (nvlink5 || !o.detail.empty()) ev.detail = o.detail;
  }
  std::vector<XidEvent> out;
  out.reserve(groups.size());
  for (auto& [key, ev] : groups) out.push_back(std::move(ev));
  return out;
}

std::vector<XidEvent> ExtractXidEvents(const std::vector<KernelLogRecord>& records) {
  return GroupXidOccurrences(ExtractXidOccurrences(records));
}

std::vector<XidRateLimit> ExtractXidRateLimits(const std::vector<KernelLogRecord>& records) {
  constexpr std::string_view kPrefix = "NVRM: Rate limiting ";
  constexpr std::string_view kAt = " for GPU at ";
  constexpr std::string_view kEvery = "(printing 1 of every ";
  std::vector<XidRateLimit> out;
  for (const KernelLogRecord& rec : records) {
    std::string_view text = rec.text;
    size_t at = text.find(kPrefix);
    if (at == std::string_view::npos) continue;
    text.remove_prefix(at + kPrefix.size());
    size_t gpu = text.find(kAt);
    size_t every = text.find(kEvery);
    if (gpu == std::string_view::npos || every == std::string_view::npos || every < gpu) continue;
    std::string_view address = text.substr(gpu + kAt.size());
    address = address.substr(0, address.find(' '));
    std::string_view n = text.substr(every + kEvery.size());
    size_t digits = CountDigits(n);
    auto value = ParseInt(n.substr(0, std::min<size_t>(digits, 6)));
    if (digits == 0 || !value || *value <= 0 || address.empty()) continue;
    out.push_back(XidRateLimit{AddressOf(address), static_cast<int>(*value),
                               kernel_log_internal::IsoLogTime(rec.time)});
  }
  return out;
}

}  // namespace gpuvet
