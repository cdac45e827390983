// Helpers every subcommand shares: usage errors on stderr with exit code 2, the report timestamp
// (the clock, or --now), and the colour decision (TTY, NO_COLOR, --color).
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace gpuvet {

// Prints "gpuvet COMMAND: MESSAGE" on stderr and returns kExitUsage.
int UsageError(std::string_view command, const std::string& message);

// The time a report is stamped with.
struct ReportTime {
  std::string iso;  // generated_at: --now exactly as given, or the clock as "2026-11-30T07:20:00Z"
  double unix_s = 0;  // the same instant as Unix seconds
};

// Resolves a --now flag value: empty means the clock; otherwise an ISO 8601 time as
// ParseIsoTime (util/iso_time.h) reads it. InvalidInput "--now: …" naming the bad part and the
// accepted form when it does not parse; callers turn that into a usage error (exit 2).
Result<ReportTime> ResolveNow(const std::string& now_flag);

// --color auto|always|never: auto is colour only when stdout is a TTY and NO_COLOR is unset.
bool UseColor(const std::string& mode);

}  // namespace gpuvet
