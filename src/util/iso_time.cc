// ISO 8601 parsing and formatting (see iso_time.h). A hand-written scanner over fixed-width
// fields: each step says which field it expected, so the error names it.
#include "util/iso_time.h"

#include <fmt/format.h>

#include "util/strings.h"

namespace gpuvet {

namespace {

bool IsLeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t year, unsigned month) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// Reads the fixed-width parts of one timestamp, remembering the first problem.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  // `width` decimal digits as a number; false (and the error) when fewer are there.
  bool Number(size_t width, const char* field, int* out) {
    int v = 0;
    for (size_t i = 0; i < width; ++i) {
      if (pos_ + i >= s_.size() || s_[pos_ + i] < '0' || s_[pos_ + i] > '9') {
        return Fail(fmt::format("expected {} digits of the {}", width, field));
      }
      v = v * 10 + (s_[pos_ + i] - '0');
    }
    pos_ += width;
    *out = v;
    return true;
  }

  // The character `c` (or `alt`, when not 0); false (and the error) otherwise.
  bool Expect(char c, const char* after, char alt = 0) {
    if (pos_ < s_.size() && (s_[pos_] == c || (alt != 0 && s_[pos_] == alt))) {
      ++pos_;
      return true;
    }
    if (alt != 0) return Fail(fmt::format("expected '{}' or '{}' after the {}", c, alt, after));
    return Fail(fmt::format("expected '{}' after the {}", c, after));
  }

  bool Range(int v, int lo, int hi, const char* field) {
    if (v >= lo && v <= hi) return true;
    return Fail(fmt::format("{} {} is out of range {}..{}", field, v, lo, hi));
  }

  bool Fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
    return false;
  }

  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek() const { return AtEnd() ? '\0' : s_[pos_]; }
  void Skip() { ++pos_; }
  std::string_view Rest() const { return s_.substr(pos_); }
  const std::string& error() const { return error_; }

 private:
  std::string_view s_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned mp = m > 2 ? m - 3 : m + 9;  // March-based month, no unsigned wrap-around
  const unsigned doy = (153 * mp + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

Result<double> ParseIsoTime(std::string_view text) {
  const std::string_view s = Trim(text);
  Scanner in(s);
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  bool ok =
      in.Number(4, "year", &year) && in.Expect('-', "year") && in.Number(2, "month", &month) &&
      in.Range(month, 1, 12, "month") && in.Expect('-', "month") && in.Number(2, "day", &day) &&
      in.Range(day, 1, static_cast<int>(DaysInMonth(year, static_cast<unsigned>(month))), "day") &&
      in.Expect('T', "date", ' ') && in.Number(2, "hour", &hour) && in.Range(hour, 0, 23, "hour") &&
      in.Expect(':', "hour") && in.Number(2, "minute", &minute) &&
      in.Range(minute, 0, 59, "minute") && in.Expect(':', "minute") &&
      in.Number(2, "second", &second) && in.Range(second, 0, 60, "second");
  double fraction = 0;
  if (ok && (in.Peek() == '.' || in.Peek() == ',')) {
    in.Skip();
    if (in.Peek() < '0' || in.Peek() > '9') {
      ok = in.Fail("expected digits after the decimal mark");
    }
    // Digits past the 17th change nothing a double can hold; they are read and dropped.
    double scale = 0.1;
    while (ok && in.Peek() >= '0' && in.Peek() <= '9') {
      fraction += (in.Peek() - '0') * scale;
      scale /= 10;
      in.Skip();
    }
  }
  int offset_s = 0;
  if (ok && in.Peek() == 'Z') {
    in.Skip();
  } else if (ok && (in.Peek() == '+' || in.Peek() == '-')) {
    const int sign = in.Peek() == '-' ? -1 : 1;
    in.Skip();
    int oh = 0, om = 0;
    ok = in.Number(2, "UTC offset hours", &oh) && in.Range(oh, 0, 23, "UTC offset hours");
    if (ok && in.Peek() == ':') in.Skip();
    ok = ok && in.Number(2, "UTC offset minutes", &om) && in.Range(om, 0, 59, "UTC offset minutes");
    offset_s = sign * (oh * 3600 + om * 60);
  }
  if (ok && !in.AtEnd()) ok = in.Fail(fmt::format("unexpected '{}' after the time", in.Rest()));
  if (!ok) {
    return InvalidInput(
        fmt::format("'{}' is not an ISO 8601 time ({}); expected the form "
                    "2026-01-01T00:00:00Z",
                    s, in.error()));
  }
  const int64_t days =
      DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const int64_t whole = days * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  return static_cast<double>(whole) + fraction;
}

std::string FormatIsoTime(int64_t unix_s) {
  // civil_from_days (Howard Hinnant), the inverse of DaysFromCivil.
  int64_t days = unix_s / 86400;
  int64_t secs = unix_s % 86400;
  if (secs < 0) {
    secs += 86400;
    --days;
  }
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned day = doy - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = static_cast<int64_t>(yoe) + era * 400 + (month <= 2);
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z", year, month, day, secs / 3600,
                     secs / 60 % 60, secs % 60);
}

}  // namespace gpuvet
