// Finding: the unit of every gpuvet answer. A stable dotted id from the catalogue, the subject it
// is about, a severity, a one-line summary, the evidence (what was read and the threshold it was
// held against), and what it means and what to do, taken from the catalogue unless a rule has
// something more specific to say.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet {

enum class Severity { kOk = 0, kInfo = 1, kWarn = 2, kUnknown = 3, kFail = 4 };

// "ok", "info", "warn", "unknown", "fail".
std::string_view SeverityName(Severity s);
std::optional<Severity> ParseSeverity(std::string_view name);

// One number or fact a finding rests on. `threshold` is empty when nothing was compared.
struct Evidence {
  std::string name;       // "current_width"
  std::string value;      // "8"
  std::string threshold;  // "== max_width (16)"
};

struct Finding {
  std::string id;       // catalogue id, e.g. "pcie.link_width_reduced"
  std::string subject;  // "gpu0 (0000:3b:00.0)", "host", "pid 4242"
  Severity severity = Severity::kOk;
  std::string summary;  // one line, specific: "PCIe link x8, slot supports x16"
  std::vector<Evidence> evidence;
  std::string meaning;   // empty: use the catalogue's text
  std::string decision;  // empty: use the catalogue's text
};

// A finding with the catalogue's meaning and decision (empty fields). Each catalogue's Make*
// wraps this with a check that `id` is one of its entries.
Finding NewFinding(std::string_view id, std::string subject, Severity severity, std::string summary,
                   std::vector<Evidence> evidence = {});

// The worst severity in a list (kOk when empty); unknown ranks below fail, above warn.
Severity WorstSeverity(const std::vector<Finding>& findings);

}  // namespace gpuvet
