// Severity names and ordering.
#include "core/finding.h"

#include <algorithm>

namespace gpuvet {

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kOk:
      return "ok";
    case Severity::kInfo:
      return "info";
    case Severity::kWarn:
      return "warn";
    case Severity::kUnknown:
      return "unknown";
    case Severity::kFail:
      return "fail";
  }
  return "unknown";
}

std::optional<Severity> ParseSeverity(std::string_view name) {
  for (Severity s : {Severity::kOk, Severity::kInfo, Severity::kWarn, Severity::kUnknown,
                     Severity::kFail}) {
    if (SeverityName(s) == name) return s;
  }
  return std::nullopt;
}

Severity WorstSeverity(const std::vector<Finding>& findings) {
  Severity worst = Severity::kOk;
  for (const Finding& f : findings) worst = std::max(worst, f.severity);
  return worst;
}

}  // namespace gpuvet
