// Shared subcommand helpers.
#include "cli/common/cli_util.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "core/report.h"

namespace gpuvet {

int UsageError(std::string_view command, const std::string& message) {
  std::fprintf(stderr, "gpuvet %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               message.c_str());
  return kExitUsage;
}

std::string NowIso() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool UseColor(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

}  // namespace gpuvet
