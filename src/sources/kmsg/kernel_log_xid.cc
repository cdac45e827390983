// NVIDIA Xid extraction from parsed kernel log records: matches the "NVRM: Xid (…): N" lines and
// the separate "GPU has fallen off the bus" line, normalises the PCI address they name, and
// groups the events per (GPU, Xid) with count, first/last time and a sample message.
#include <fmt/format.h>

#include <cctype>
#include <map>
#include <optional>
#include <utility>

#include "sources/kmsg/kernel_log.h"
#include "sources/kmsg/kernel_log_scan.h"
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
};

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
  return XidMatch{AddressOf(address), static_cast<int>(*xid), false};
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
  return XidMatch{AddressOf(token), 79, true};
}

}  // namespace

std::vector<XidOccurrence> ExtractXidOccurrences(const std::vector<KernelLogRecord>& records) {
  std::vector<XidOccurrence> out;
  std::map<std::string, size_t> last_xid79;  // address -> record index of its last Xid 79 line
  for (size_t i = 0; i < records.size(); ++i) {
    const KernelLogRecord& rec = records[i];
    if (rec.text.find("NVRM: ") == std::string::npos) continue;
    std::optional<XidMatch> m = MatchXidLine(rec.text);
    if (!m) m = MatchFallenOffBus(rec.text);
    if (!m) continue;
    if (m->xid == 79) {
      auto it = last_xid79.find(m->address);
      bool echo =
          m->fallen_off_bus_line && it != last_xid79.end() && i - it->second <= kFallenOffBusWindow;
      if (!m->fallen_off_bus_line) last_xid79[m->address] = i;
      if (echo) continue;
    }
    out.push_back(XidOccurrence{std::move(m->address), m->xid, rec.time, rec.text});
  }
  return out;
}

std::vector<XidEvent> GroupXidOccurrences(const std::vector<XidOccurrence>& occurrences) {
  std::map<std::pair<std::string, int>, XidEvent> groups;
  for (const XidOccurrence& o : occurrences) {
    XidEvent& ev = groups[{o.pci_address, o.xid}];
    if (ev.count == 0) {
      ev.pci_address = o.pci_address;
      ev.xid = o.xid;
      ev.first_time = o.time;
      ev.sample = o.text;
    }
    ++ev.count;
    ev.last_time = o.time;
  }
  std::vector<XidEvent> out;
  out.reserve(groups.size());
  for (auto& [key, ev] : groups) out.push_back(std::move(ev));
  return out;
}

std::vector<XidEvent> ExtractXidEvents(const std::vector<KernelLogRecord>& records) {
  return GroupXidOccurrences(ExtractXidOccurrences(records));
}

}  // namespace gpuvet
