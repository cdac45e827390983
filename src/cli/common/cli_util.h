// Helpers every subcommand shares: usage errors on stderr with exit code 2, the report timestamp,
// and the colour decision (TTY, NO_COLOR, --color).
#pragma once

#include <string>
#include <string_view>

namespace gpuvet {

// Prints "gpuvet COMMAND: MESSAGE" on stderr and returns kExitUsage.
int UsageError(std::string_view command, const std::string& message);

// The current time as ISO 8601 UTC ("2026-11-30T07:20:00Z").
std::string NowIso();

// --color auto|always|never: auto is colour only when stdout is a TTY and NO_COLOR is unset.
bool UseColor(const std::string& mode);

}  // namespace gpuvet
