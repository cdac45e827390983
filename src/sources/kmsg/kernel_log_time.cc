// Kernel log timestamp matchers (see kernel_log_time.h). Hand-written scanners: a garbled time
// declines the match and the line is kept as plain text.
#include "sources/kmsg/kernel_log_time.h"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "sources/kmsg/kernel_log_scan.h"
#include "util/strings.h"

namespace gpuvet::kernel_log_internal {

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

std::string IsoLogTime(std::string_view time) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (size_t n = IsoTimeLength(time); n > 0 && n == time.size()) {
    std::string out(time);
    out[10] = 'T';
    size_t p = 19;  // the fraction keeps its separator: ISO 8601 allows ',' (dmesg's choice)
    while (p < out.size() && out[p] != '+' && out[p] != '-' && out[p] != 'Z') ++p;
    // "+0000" -> "+00:00"
    if (p < out.size() && out[p] != 'Z' && out.size() == p + 5) out.insert(p + 3, ":");
    return out;
  }
  // "Tue Jan 21 02:21:33 2025" (dmesg -T pads a one-digit day with a space).
  std::vector<std::string_view> parts;
  for (std::string_view part : Split(time, ' ')) {
    if (!part.empty()) parts.push_back(part);
  }
  if (parts.size() == 5 && parts[3].size() == 8 && parts[4].size() == 4 &&
      CountDigits(parts[4]) == 4 && CountDigits(parts[2]) == parts[2].size() &&
      parts[2].size() <= 2) {
    for (size_t m = 0; m < kMonths.size(); ++m) {
      if (parts[1] != kMonths[m]) continue;
      size_t q = 0;
      std::string_view hms = parts[3];
      if (!(Digits(hms, q, 2) && Char(hms, q, ':') && Digits(hms, q, 2) && Char(hms, q, ':') &&
            Digits(hms, q, 2))) {
        break;
      }
      return fmt::format("{}-{:02d}-{:0>2}T{}", parts[4], m + 1, parts[2], hms);
    }
  }
  return std::string(time);
}

}  // namespace gpuvet::kernel_log_internal
