// Shared subcommand helpers: usage errors, the report clock and --now, colour.
#include "cli/common/cli_util.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "core/report.h"
#include "util/iso_time.h"

namespace gpuvet {

int UsageError(std::string_view command, const std::string& message) {
  std::fprintf(stderr, "gpuvet %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               message.c_str());
  return kExitUsage;
}

Result<ReportTime> ResolveNow(const std::string& now_flag) {
  if (now_flag.empty()) {
    const int64_t t = static_cast<int64_t>(std::time(nullptr));
    return ReportTime{FormatIsoTime(t), static_cast<double>(t)};
  }
  Result<double> t = ParseIsoTime(now_flag);
  if (!t.ok()) return InvalidInput("--now: " + t.status().message());
  return ReportTime{now_flag, *t};
}

bool UseColor(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

}  // namespace gpuvet
