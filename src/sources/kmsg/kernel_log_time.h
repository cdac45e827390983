// Timestamp matchers for kernel log lines: ISO-8601 (dmesg --time-format iso, journalctl), the
// bracketed printk time or ctime of dmesg, and the classic syslog time. Each returns how much it
// matched, or nothing, so ParseKernelLog can try the formats in turn without backtracking.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpuvet::kernel_log_internal {

// Length of an ISO-8601 timestamp at the start of `s` ("2025-01-21T02:21:33,498559+00:00",
// "2025-01-17T17:10:43+0000", "…Z", with or without fraction), or 0. It must end the string or be
// followed by a space.
size_t IsoTimeLength(std::string_view s);

// A "[  123.456789]" or "[Tue Jan 21 02:21:33 2025]" prefix at the start of `s`.
struct BracketTime {
  std::string time;         // "[123.456789]" / "Tue Jan 21 02:21:33 2025"
  double monotonic_s = -1;  // seconds since boot for the numeric form
  size_t length = 0;        // bytes consumed, including one following space
};

// The bracketed time at the start of `s`, or nullopt when `s` does not start with one.
std::optional<BracketTime> ParseBracketTime(std::string_view s);

// "Jan 17 17:10:43 " classic syslog time; returns its length (without the space) or 0.
size_t SyslogTimeLength(std::string_view line);

// A record's time as ISO 8601 (extended format) where its format allows: ISO times keep their
// fraction ("2025-01-21T02:21:33,498559+00:00", ISO 8601 allows the comma) but get the 'T' and a
// "+00:00" zone ("2025-01-17 17:10:43+0000" -> "2025-01-17T17:10:43+00:00"); dmesg -T's
// "Tue Jan 21 02:21:33 2025" -> "2025-01-21T02:21:33" (local time: the log has no zone). Seconds
// since boot ("[123.456]", "7.000000 s after boot") and year-less syslog times have no calendar
// date and come back unchanged, as does anything unrecognised.
std::string IsoLogTime(std::string_view time);

}  // namespace gpuvet::kernel_log_internal
