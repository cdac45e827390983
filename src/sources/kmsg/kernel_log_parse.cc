// Kernel log line parsing: recognises each line's format (raw kmsg, dmesg and its options,
// journalctl, syslog, pstore) and splits it into time and text. Line formats are matched by hand,
// each matcher either consuming its prefix or declining, so a garbled line is kept as plain text.
#include "sources/kmsg/kernel_log_parse.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <utility>

#include "sources/kmsg/kernel_log.h"
#include "sources/kmsg/kernel_log_scan.h"
#include "sources/kmsg/kernel_log_time.h"
#include "util/strings.h"
#include "util/utf8.h"

namespace gpuvet {
namespace kernel_log_internal {
namespace {

// Strips an optional printk time "[123.456] " from a syslog/journal kernel message.
void TakeInnerBracketTime(std::string_view& text, KernelLogRecord& rec) {
  if (auto bt = ParseBracketTime(text); bt && bt->monotonic_s >= 0) {
    rec.monotonic_s = bt->monotonic_s;
    text.remove_prefix(bt->length);
  }
}

// "6,3964,206764307,-;message": priority, sequence, microseconds since boot, flags, then more
// optional comma fields, ';', text (Documentation/ABI/testing/dev-kmsg).
bool ParseKmsg(std::string_view line, KernelLogRecord& rec) {
  size_t semi = line.find(';');
  if (semi == std::string_view::npos) return false;
  std::vector<std::string_view> fields = Split(line.substr(0, semi), ',');
  if (fields.size() < 4) return false;
  if (!ParseUint(fields[0]) || !ParseUint(fields[1])) return false;
  auto us = ParseUint(fields[2]);
  if (!us) return false;
  rec.monotonic_s = static_cast<double>(*us) / 1e6;
  rec.time = fmt::format("{}.{:06d}", *us / 1000000, *us % 1000000);
  rec.text = std::string(line.substr(semi + 1));
  return true;
}

// "<6>" syslog priority prefix of dmesg -r and pstore dumps; returns bytes consumed or 0.
size_t PriorityPrefixLength(std::string_view line) {
  if (line.size() < 3 || line[0] != '<') return 0;
  size_t n = CountDigits(line.substr(1));
  if (n == 0 || n > 3 || 1 + n >= line.size() || line[1 + n] != '>') return 0;
  return n + 2;
}

// "kern  :warn  : " from dmesg --decode: facility, padding, ':', level, padding, ':', space.
size_t DecodePrefixLength(std::string_view line) {
  size_t p = 0;
  while (p < line.size() && (IsLower(line[p]) || IsDigit(line[p]))) ++p;
  if (p == 0 || p > 8) return 0;
  while (p < line.size() && line[p] == ' ') ++p;
  if (!Char(line, p, ':')) return 0;
  size_t level_start = p;
  while (p < line.size() && IsLower(line[p])) ++p;
  if (p == level_start || p - level_start > 6) return 0;
  while (p < line.size() && line[p] == ' ') ++p;
  if (!Char(line, p, ':')) return 0;
  if (p < line.size() && line[p] == ' ') ++p;
  return p;
}

// After a timestamp: "host kernel: message" (journal/syslog) or "host ident[pid]: message".
// Returns the message (for the kernel, without an inner printk time), or nullopt when the rest
// does not look like a host and an identifier.
std::optional<std::string> ParseHostIdent(std::string_view rest, KernelLogRecord& rec) {
  rest = SkipSpaces(rest);
  size_t host_end = rest.find(' ');
  if (host_end == std::string_view::npos || host_end == 0) return std::nullopt;
  std::string_view after_host = rest.substr(host_end + 1);
  size_t ident_end = after_host.find(' ');
  std::string_view ident = after_host.substr(0, ident_end);
  std::string_view message =
      ident_end == std::string_view::npos ? std::string_view() : after_host.substr(ident_end + 1);
  if (ident == "kernel:") {
    TakeInnerBracketTime(message, rec);
    return std::string(message);
  }
  // "systemd[1]:" (another program's line in a full journal or syslog): keep it whole.
  size_t bracket = ident.find('[');
  if (bracket != std::string_view::npos && bracket > 0 && EndsWith(ident, "]:") &&
      ParseUint(ident.substr(bracket + 1, ident.size() - bracket - 3))) {
    return std::string(after_host);
  }
  return std::nullopt;
}

// Parses the time that follows a dmesg --decode prefix (ISO, bracket or none).
void ParseDecodedRest(std::string_view rest, KernelLogRecord& rec) {
  if (size_t n = IsoTimeLength(rest); n > 0) {
    rec.time = std::string(rest.substr(0, n));
    rest.remove_prefix(std::min(n + 1, rest.size()));
  } else if (auto bt = ParseBracketTime(rest)) {
    rec.time = bt->time;
    rec.monotonic_s = bt->monotonic_s;
    rest.remove_prefix(bt->length);
  }
  rec.text = std::string(rest);
}

// True for a /dev/kmsg dictionary continuation line (" SUBSYSTEM=pci", " DEVICE=+pci:…").
bool IsKmsgDictLine(std::string_view line) {
  if (line.empty() || line[0] != ' ') return false;
  std::string_view t = Trim(line);
  size_t eq = t.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  for (char c : t.substr(0, eq)) {
    if (!((c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_')) return false;
  }
  return true;
}

// Parses one line; nullopt for lines to skip.
std::optional<KernelLogFormat> ParseLine(std::string_view line, KernelLogRecord& rec) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (Trim(line).empty() || IsKmsgDictLine(line)) return std::nullopt;
  if (IsDigit(line[0]) && ParseKmsg(line, rec)) return KernelLogFormat::kKmsg;
  if (size_t n = PriorityPrefixLength(line); n > 0) {
    std::string_view rest = line.substr(n);
    if (auto bt = ParseBracketTime(rest)) {
      rec.time = bt->time;
      rec.monotonic_s = bt->monotonic_s;
      rest.remove_prefix(bt->length);
    }
    rec.text = std::string(rest);
    return KernelLogFormat::kDmesgRaw;
  }
  if (auto bt = ParseBracketTime(line)) {
    rec.time = bt->time;
    rec.monotonic_s = bt->monotonic_s;
    rec.text = std::string(line.substr(bt->length));
    return KernelLogFormat::kDmesg;
  }
  if (size_t n = IsoTimeLength(line); n > 0) {
    rec.time = std::string(line.substr(0, n));
    std::string_view rest = line.substr(std::min(n + 1, line.size()));
    if (auto message = ParseHostIdent(rest, rec)) {
      rec.text = std::move(*message);
      return KernelLogFormat::kJournalctl;
    }
    rec.text = std::string(rest);
    return KernelLogFormat::kDmesgIso;
  }
  if (size_t n = SyslogTimeLength(line); n > 0) {
    if (auto message = ParseHostIdent(line.substr(n), rec)) {
      rec.time = std::string(line.substr(0, n));
      rec.text = std::move(*message);
      return KernelLogFormat::kSyslog;
    }
  }
  if (size_t n = DecodePrefixLength(line); n > 0) {
    ParseDecodedRest(line.substr(n), rec);
    return KernelLogFormat::kDmesgDecode;
  }
  rec = KernelLogRecord{};
  rec.text = std::string(line);
  return KernelLogFormat::kUnknown;
}

// Calls fn(line) for each line; '\0' also ends a line (syslog files get NUL runs after a crash).
template <typename Fn>
void ForEachLine(std::string_view text, Fn fn) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find_first_of(std::string_view("\n\0", 2), start);
    if (end == std::string_view::npos) end = text.size();
    fn(text.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace

std::vector<KernelLogRecord> ParseKernelLogWithFormat(std::string_view text,
                                                      KernelLogFormat* dominant) {
  std::vector<KernelLogRecord> out;
  std::map<KernelLogFormat, size_t> counts;
  ForEachLine(text, [&](std::string_view line) {
    KernelLogRecord rec;
    if (auto format = ParseLine(line, rec)) {
      if (*format != KernelLogFormat::kUnknown) ++counts[*format];
      // Real logs carry stray bytes (a process name, a driver's binary dump): data to keep and
      // quote, made valid UTF-8 here so every renderer can quote it.
      SanitizeUtf8(rec.text);
      SanitizeUtf8(rec.time);
      out.push_back(std::move(rec));
    }
  });
  *dominant = KernelLogFormat::kUnknown;
  size_t best = 0;
  for (const auto& [format, count] : counts) {
    if (count > best) {
      *dominant = format;
      best = count;
    }
  }
  return out;
}

}  // namespace kernel_log_internal

std::string_view KernelLogFormatName(KernelLogFormat format) {
  switch (format) {
    case KernelLogFormat::kKmsg:
      return "/dev/kmsg records";
    case KernelLogFormat::kDmesg:
      return "dmesg";
    case KernelLogFormat::kDmesgRaw:
      return "dmesg --raw / pstore";
    case KernelLogFormat::kDmesgIso:
      return "dmesg --time-format iso";
    case KernelLogFormat::kDmesgDecode:
      return "dmesg --decode";
    case KernelLogFormat::kJournalctl:
      return "journalctl";
    case KernelLogFormat::kSyslog:
      return "syslog";
    case KernelLogFormat::kUnknown:
      break;
  }
  return "unrecognised format";
}

std::vector<KernelLogRecord> ParseKernelLog(std::string_view text) {
  KernelLogFormat unused;
  return kernel_log_internal::ParseKernelLogWithFormat(text, &unused);
}

KernelLogFormat DetectKernelLogFormat(std::string_view text) {
  KernelLogFormat format;
  kernel_log_internal::ParseKernelLogWithFormat(text, &format);
  return format;
}

}  // namespace gpuvet
