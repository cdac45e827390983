// Severity names and ordering.
#include "core/finding.h"

#include <algorithm>
#include <utility>

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
  for (Severity s :
       {Severity::kOk, Severity::kInfo, Severity::kWarn, Severity::kUnknown, Severity::kFail}) {
    if (SeverityName(s) == name) return s;
  }
  return std::nullopt;
}

Finding NewFinding(std::string_view id, std::string subject, Severity severity, std::string summary,
                   std::vector<Evidence> evidence) {
  Finding f;
  f.id = std::string(id);
  f.subject = std::move(subject);
  f.severity = severity;
  f.summary = std::move(summary);
  f.evidence = std::move(evidence);
  return f;
}

Severity WorstSeverity(const std::vector<Finding>& findings) {
  Severity worst = Severity::kOk;
  for (const Finding& f : findings) worst = std::max(worst, f.severity);
  return worst;
}

}  // namespace gpuvet
