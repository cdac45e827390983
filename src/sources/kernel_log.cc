// Kernel log parsing, Xid extraction and the non-blocking /dev/kmsg reader. Line formats are
// matched by hand (no std::regex: it is slow on long logs and recurses on long lines), each
// matcher either consuming its prefix or declining, so a garbled line is kept as plain text.
#include "sources/kernel_log.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <utility>

#include "util/strings.h"

namespace gpuvet {

namespace {

// Stop reading a live /dev/kmsg after this much (the task's bound; the kernel ring buffer is
// CONFIG_LOG_BUF_SHIFT, 128 KiB to a few MiB, so this only guards against a non-kmsg device).
constexpr size_t kKmsgMaxBytes = 16u << 20;
// Saved logs larger than this are read from their tail (the recent events matter).
constexpr size_t kLogFileMaxBytes = 64u << 20;
// One /dev/kmsg read returns one record; the kernel caps a record with its dictionary at
// CONSOLE_EXT_LOG_MAX (8 KiB), so 16 KiB never gets EINVAL for a short buffer.
constexpr size_t kKmsgReadBuffer = 16384;
// EPIPE means the reader fell behind and records were overwritten; each one is reported once, so
// a long run of them means something else is wrong.
constexpr int kMaxConsecutiveEpipe = 1024;
// A "fallen off the bus" line this many records after an Xid 79 of the same GPU is the same event
// (the driver prints both for one failure).
constexpr size_t kFallenOffBusWindow = 8;
// systemd journal files start with this signature (systemd journal-def.h).
constexpr std::string_view kJournalMagic = "LPKSHHRH";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Number of decimal digits at the start of `s`.
size_t CountDigits(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsDigit(s[i])) ++i;
  return i;
}

// Drops leading spaces.
std::string_view SkipSpaces(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}

// Matches "\d{N}" at s[pos..] and advances pos.
bool Digits(std::string_view s, size_t& pos, size_t n) {
  if (pos + n > s.size()) return false;
  for (size_t i = 0; i < n; ++i) {
    if (!IsDigit(s[pos + i])) return false;
  }
  pos += n;
  return true;
}

bool Char(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

// Length of an ISO-8601 timestamp at the start of `s` ("2025-01-21T02:21:33,498559+00:00",
// "2025-01-17T17:10:43+0000", "…Z", with or without fraction), or 0. It must end the string or be
// followed by a space.
size_t IsoTimeLength(std::string_view s) {
  size_t p = 0;
  if (!(Digits(s, p, 4) && Char(s, p, '-') && Digits(s, p, 2) && Char(s, p, '-') &&
        Digits(s, p, 2) && (Char(s, p, 'T') || Char(s, p, ' ')) && Digits(s, p, 2) &&
        Char(s, p, ':') && Digits(s, p, 2) && Char(s, p, ':') && Digits(s, p, 2))) {
    return 0;
  }
  if (p < s.size() && (s[p] == ',' || s[p] == '.')) {
    size_t n = CountDigits(s.substr(p + 1));
    if (n == 0) return 0;
    p += 1 + n;
  }
  if (p < s.size() && s[p] == 'Z') {
    ++p;
  } else if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
    size_t q = p + 1;
    if (!Digits(s, q, 2)) return 0;
    Char(s, q, ':');
    if (!Digits(s, q, 2)) return 0;
    p = q;
  }
  if (p < s.size() && s[p] != ' ') return 0;
  return p;
}

// A "[  123.456789]" or "[Tue Jan 21 02:21:33 2025]" prefix at the start of `s`.
struct BracketTime {
  std::string time;         // "[123.456789]" / "Tue Jan 21 02:21:33 2025"
  double monotonic_s = -1;  // seconds since boot for the numeric form
  size_t length = 0;        // bytes consumed, including one following space
};

std::optional<BracketTime> ParseBracketTime(std::string_view s) {
  if (s.empty() || s[0] != '[') return std::nullopt;
  size_t close = s.find(']');
  // dmesg -T prints at most "[Tue Jan 21 02:21:33 2025]"; a longer bracket is message text.
  if (close == std::string_view::npos || close > 40) return std::nullopt;
  std::string_view inner = Trim(s.substr(1, close - 1));
  BracketTime out;
  out.length = close + 1;
  if (out.length < s.size() && s[out.length] == ' ') ++out.length;
  size_t int_digits = CountDigits(inner);
  if (int_digits > 0 && int_digits < inner.size() && inner[int_digits] == '.' &&
      CountDigits(inner.substr(int_digits + 1)) == inner.size() - int_digits - 1) {
    auto v = ParseDouble(inner);
    if (!v) return std::nullopt;
    out.time = fmt::format("[{}]", inner);
    out.monotonic_s = *v;
    return out;
  }
  // dmesg -T / --ctime: "Tue Jan 21 02:21:33 2025" (a weekday, then a ':'-separated time).
  if (inner.size() >= 20 && inner[0] >= 'A' && inner[0] <= 'Z' &&
      inner.find(':') != std::string_view::npos) {
    out.time = std::string(inner);
    return out;
  }
  return std::nullopt;
}

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

// "Jan 17 17:10:43 " classic syslog time; returns its length (without the space) or 0.
size_t SyslogTimeLength(std::string_view line) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (line.size() < 16) return 0;
  bool month = false;
  for (std::string_view m : kMonths) month = month || StartsWith(line, m);
  if (!month || line[3] != ' ') return 0;
  size_t p = 4;
  if (line[p] == ' ') ++p;  // day padded with a space
  size_t day = CountDigits(line.substr(p));
  if (day == 0 || day > 2) return 0;
  p += day;
  if (!(Char(line, p, ' ') && Digits(line, p, 2) && Char(line, p, ':') && Digits(line, p, 2) &&
        Char(line, p, ':') && Digits(line, p, 2))) {
    return 0;
  }
  if (p < line.size() && line[p] != ' ') return 0;
  return p;
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

// "PCI:0000:38:00", "0000:38:00", "00000000:3B:00.0", "38:00.1" -> "0000:38:00.0" form.
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

namespace {

// Parses every line and reports the format most recognised lines are in.
std::vector<KernelLogRecord> ParseWithFormat(std::string_view text, KernelLogFormat* dominant) {
  std::vector<KernelLogRecord> out;
  std::map<KernelLogFormat, size_t> counts;
  ForEachLine(text, [&](std::string_view line) {
    KernelLogRecord rec;
    if (auto format = ParseLine(line, rec)) {
      if (*format != KernelLogFormat::kUnknown) ++counts[*format];
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

}  // namespace

std::vector<KernelLogRecord> ParseKernelLog(std::string_view text) {
  KernelLogFormat unused;
  return ParseWithFormat(text, &unused);
}

KernelLogFormat DetectKernelLogFormat(std::string_view text) {
  KernelLogFormat format;
  ParseWithFormat(text, &format);
  return format;
}

std::vector<XidEvent> ExtractXidEvents(const std::vector<KernelLogRecord>& records) {
  std::map<std::pair<std::string, int>, XidEvent> groups;
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
    XidEvent& ev = groups[{m->address, m->xid}];
    if (ev.count == 0) {
      ev.pci_address = m->address;
      ev.xid = m->xid;
      ev.first_time = rec.time;
      ev.sample = rec.text;
    }
    ++ev.count;
    ev.last_time = rec.time;
  }
  std::vector<XidEvent> out;
  out.reserve(groups.size());
  for (auto& [key, ev] : groups) out.push_back(std::move(ev));
  return out;
}

namespace {

// Reads a character device the /dev/kmsg way: one record per read() from the oldest record, until
// EAGAIN (no more records: never blocks, the fd is O_NONBLOCK) or the byte bound.
Result<std::string> ReadKmsgDevice(int fd, const std::string& shown_path) {
  // On /dev/kmsg SEEK_DATA moves to the oldest record still in the ring buffer; other devices
  // may refuse it, which is harmless.
  (void)::lseek(fd, 0, SEEK_DATA);
  std::string out;
  char buf[kKmsgReadBuffer];
  int epipe_run = 0;
  while (out.size() < kKmsgMaxBytes) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n > 0) {
      epipe_run = 0;
      out.append(buf, static_cast<size_t>(n));
      if (out.back() != '\n') out.push_back('\n');
      continue;
    }
    if (n == 0) break;
    int err = errno;
    if (err == EINTR) continue;
    if (err == EAGAIN || err == EWOULDBLOCK) break;
    if (err == EPIPE) {  // records were overwritten while reading: the next read continues
      if (++epipe_run > kMaxConsecutiveEpipe) break;
      continue;
    }
    return Status(StatusCode::kUnavailable,
                  fmt::format("cannot read {}: {}", shown_path, std::strerror(err)));
  }
  return out;
}

// Reads a regular file or pipe, keeping the last `max_bytes` of a larger regular file (from the
// start of a line).
Result<std::string> ReadLogStream(int fd, const struct stat& st, const std::string& shown_path,
                                  size_t max_bytes) {
  bool tail = S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes;
  if (tail && ::lseek(fd, st.st_size - static_cast<off_t>(max_bytes), SEEK_SET) < 0) {
    return Status(StatusCode::kUnavailable,
                  fmt::format("cannot seek in {}: {}", shown_path, std::strerror(errno)));
  }
  std::string out;
  char buf[65536];
  while (out.size() < max_bytes) {
    ssize_t n = ::read(fd, buf, std::min(sizeof(buf), max_bytes - out.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status(StatusCode::kUnavailable,
                    fmt::format("cannot read {}: {}", shown_path, std::strerror(errno)));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  if (tail) out.erase(0, std::min(out.size(), out.find('\n') + 1));
  return out;
}

// Refuses data that is not text: a systemd journal file, or mostly control bytes in the first
// 64 KiB (a compressed or binary dump). Stray NULs in a text log are tolerated.
Status CheckText(std::string_view data, const std::string& shown_path) {
  if (StartsWith(data, kJournalMagic)) {
    return InvalidInput(fmt::format(
        "{}: is a binary systemd journal file; export it with `journalctl -k -o short-iso "
        "--file {}`",
        shown_path, shown_path));
  }
  std::string_view head = data.substr(0, 65536);
  size_t control = 0;
  size_t first = std::string_view::npos;
  for (size_t i = 0; i < head.size(); ++i) {
    auto c = static_cast<unsigned char>(head[i]);
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0x1b) {
      ++control;
      if (first == std::string_view::npos) first = i;
    }
  }
  // A third of control bytes is far beyond any text log; NUL padding after a crash is local.
  if (!head.empty() && control * 3 > head.size()) {
    return InvalidInput(
        fmt::format("{}: binary data (first control byte at offset {}), not a text kernel log",
                    shown_path, first));
  }
  return Status::Ok();
}

// Opens `path` without blocking and reads it as a kernel log; `shown_path` names it in messages.
Result<std::string> ReadLogPath(const std::string& path, const std::string& shown_path,
                                size_t max_bytes, int* open_errno) {
  *open_errno = 0;
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *open_errno = errno;
    return Status(StatusCode::kUnavailable,
                  fmt::format("cannot open {}: {}", shown_path, std::strerror(errno)));
  }
  struct stat st {};
  Result<std::string> data = Status(StatusCode::kInternal, "unreached");
  if (::fstat(fd, &st) != 0) {
    data = Status(StatusCode::kUnavailable,
                  fmt::format("cannot stat {}: {}", shown_path, std::strerror(errno)));
  } else if (S_ISDIR(st.st_mode)) {
    data = InvalidInput(fmt::format("{}: is a directory, not a kernel log", shown_path));
  } else if (S_ISCHR(st.st_mode)) {
    data = ReadKmsgDevice(fd, shown_path);
  } else {
    // Pipes (`--kernel-log <(dmesg)`) are read to their end; regular files never block.
    if (!S_ISREG(st.st_mode)) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    data = ReadLogStream(fd, st, shown_path, max_bytes);
  }
  ::close(fd);
  if (data.ok()) {
    if (Status s = CheckText(*data, shown_path); !s.ok()) return s;
  }
  return data;
}

}  // namespace

KernelLogState ReadKernelLog(const HostPaths& paths, const std::string& log_file) {
  KernelLogState state;
  std::string text;
  int open_errno = 0;
  if (!log_file.empty()) {
    auto data = ReadLogPath(log_file, log_file, kLogFileMaxBytes, &open_errno);
    if (!data.ok()) {
      state.source = log_file;
      state.record_count = Reading<int>::Error(data.status().message());
      return state;
    }
    text = std::move(data).value();
  } else {
    // Messages name the host path, not the fixture path (the operator fixes the host).
    const std::string shown = "/dev/kmsg";
    state.source = shown;
    auto data = ReadLogPath(paths.Dev("kmsg"), shown, kKmsgMaxBytes, &open_errno);
    if (!data.ok()) {
      if (open_errno == ENOENT) {
        state.record_count = Reading<int>::Unsupported(
            "/dev/kmsg does not exist (common in containers); pass a saved log with "
            "--kernel-log FILE");
      } else if (open_errno == EACCES || open_errno == EPERM) {
        state.record_count = Reading<int>::Error(
            "cannot read /dev/kmsg: Permission denied (needs root, CAP_SYSLOG or "
            "kernel.dmesg_restrict=0); pass a saved log with --kernel-log FILE");
      } else {
        state.record_count = Reading<int>::Error(data.status().message());
      }
      return state;
    }
    text = std::move(data).value();
  }
  KernelLogFormat format;
  std::vector<KernelLogRecord> records = ParseWithFormat(text, &format);
  if (!log_file.empty()) {
    state.source = fmt::format("{} ({})", log_file, KernelLogFormatName(format));
  }
  state.record_count = Reading<int>::Of(static_cast<int>(records.size()));
  state.xids = ExtractXidEvents(records);
  return state;
}

}  // namespace gpuvet
