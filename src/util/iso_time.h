// ISO 8601 date-times: the one parser every reader of a timestamp uses (report generated_at,
// --now, kernel log times) and the formatter gpuvet writes its own timestamps with. Pure
// arithmetic on the proleptic Gregorian calendar: no time zone database, no locale, no libc
// strptime/timegm, so the result does not depend on the host.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/status.h"

namespace gpuvet {

// Days from 1970-01-01 to the proleptic Gregorian date `year`-`month`-`day` (negative before
// 1970; Howard Hinnant's days_from_civil). `month` must be 1..12; a `day` past the end of the
// month counts on into the next one, as timegm does. Never fails.
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);

// Unix seconds of an ISO 8601 date-time, surrounding whitespace ignored:
//   YYYY-MM-DD('T'|' ')hh:mm:ss[('.'|',')fraction][zone]
// where zone is 'Z', "+hh:mm", "-hh:mm", "+hhmm", "-hhmm" or absent (read as UTC), and the
// fraction has any number of digits. Every field has exactly the width shown. InvalidInput with
// a message that quotes the text and names the first bad part: the field out of range (month 13,
// February 30 outside a leap year, hour 24, an offset past 23:59; second 60 is a leap second and
// allowed) or what was found instead of the expected character.
Result<double> ParseIsoTime(std::string_view text);

// `unix_s` as "YYYY-MM-DDThh:mm:ssZ" (what gpuvet writes in generated_at and prints for --now).
// Years outside 0000..9999 are printed with as many digits as they need.
std::string FormatIsoTime(int64_t unix_s);

}  // namespace gpuvet
