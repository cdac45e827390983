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

// Which GPU a finding is about, in the names an operator needs: the index the tools print, the
// PCI address the kernel log and sysfs use, and the serial and UUID an RMA and a scheduler ask for.
// For a finding about a GPU's upstream bridge it names the GPU behind that bridge.
struct FindingGpu {
  int index = -1;          // NVML index; -1 for a PCI function NVML did not list
  std::string pci_bus_id;  // "0000:41:00.0"; empty when not known
  std::string serial;      // board serial; empty when not reported (GeForce boards report N/A)
  std::string uuid;        // "GPU-8f6d…"; empty when not read
};

struct Finding {
  std::string id;       // catalogue id, e.g. "pcie.link_width_reduced"
  std::string subject;  // "gpu0 (0000:3b:00.0)", "host", "pid 4242"
  Severity severity = Severity::kOk;
  std::string summary;  // one line, specific: "PCIe link x8, slot supports x16"
  std::vector<Evidence> evidence;
  std::string meaning;   // empty: use the catalogue's text
  std::string decision;  // empty: use the catalogue's text
  // Unknown only because a saved capture lacks the fields the check needs (set by RunRules);
  // the text renderer folds such findings into one block that lists the fields.
  bool not_in_capture = false;
  // Set for findings about a GPU (filled from the subject where the rules run, see RunRules);
  // unset for the host, processes and devices that are not GPUs. Last, as positional aggregate
  // initialisers (tests) end before it.
  std::optional<FindingGpu> gpu = std::nullopt;
};

// A finding with the catalogue's meaning and decision (empty fields). Each catalogue's Make*
// wraps this with a check that `id` is one of its entries.
Finding NewFinding(std::string_view id, std::string subject, Severity severity, std::string summary,
                   std::vector<Evidence> evidence = {});

// The worst severity in a list (kOk when empty); unknown ranks below fail, above warn.
Severity WorstSeverity(const std::vector<Finding>& findings);

}  // namespace gpuvet
