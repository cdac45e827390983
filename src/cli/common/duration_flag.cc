// ParseDurationFlag: a strtod number and a unit suffix.
#include "cli/common/duration_flag.h"

#include <cmath>
#include <cstdlib>

namespace gpuvet {

Result<double> ParseDurationFlag(const std::string& flag, const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  double v = std::strtod(begin, &end);
  std::string unit = end == begin ? "?" : std::string(end);
  double scale = unit == "" || unit == "s" ? 1
                 : unit == "ms"            ? 1e-3
                 : unit == "m"             ? 60
                 : unit == "h"             ? 3600
                                           : 0;
  if (scale == 0 || !std::isfinite(v) || v <= 0) {
    return InvalidInput(flag + " '" + text +
                        "' is not a positive duration (e.g. 500ms, 1s, 10m, 2h)");
  }
  return v * scale;
}

}  // namespace gpuvet
