// Byte sizes (see units.h).
#include "util/units.h"

#include <fmt/format.h>

#include <cmath>

namespace gpuvet {

std::string FormatBytes(double bytes) {
  if (!std::isfinite(bytes)) return "–";
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = bytes;
  int u = 0;
  while (std::fabs(v) >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  std::string out = u == 0 ? fmt::format("{:.0f} B", v) : fmt::format("{:.1f} {}", v, kUnits[u]);
  if (out.rfind("-0 ", 0) == 0 || out.rfind("-0.0 ", 0) == 0) out.erase(0, 1);
  return out;
}

}  // namespace gpuvet
