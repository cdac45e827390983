// Shared rule helpers.
#include "rules/rule_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/catalogue.h"
#include "util/strings.h"

namespace gpuvet {

std::string GpuSubject(const GpuState& gpu) {
  if (gpu.pci_bus_id.empty()) return fmt::format("gpu{}", gpu.index);
  return fmt::format("gpu{} ({})", gpu.index, gpu.pci_bus_id);
}

namespace {

FindingGpu IdentityOf(const GpuState& gpu) {
  return {gpu.index, gpu.pci_bus_id, gpu.serial, gpu.uuid};
}

// The leading decimal number of `s` ("3" in "3 (0000:…)"), or nullopt.
std::optional<int> LeadingIndex(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && n < 6 && s[n] >= '0' && s[n] <= '9') ++n;
  if (n == 0 || (n < s.size() && s[n] != ' ')) return std::nullopt;
  std::optional<int64_t> v = ParseInt(s.substr(0, n));
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

}  // namespace

std::optional<FindingGpu> GpuOfSubject(const CheckInput& in, std::string_view subject) {
  std::optional<int> index;
  std::string_view address;
  if (StartsWith(subject, "gpu")) {
    std::string_view rest = subject.substr(3);
    index = LeadingIndex(rest);
    if (!index) return std::nullopt;
    if (size_t open = rest.find(" ("); open != std::string_view::npos) {
      size_t close = rest.find(')', open);
      if (close != std::string_view::npos) address = rest.substr(open + 2, close - open - 2);
    }
  } else if (StartsWith(subject, "pci ")) {
    address = subject.substr(4);
    address = address.substr(0, address.find(' '));
  } else {
    return std::nullopt;
  }
  if (!address.empty()) {
    for (const GpuState& gpu : in.gpus.gpus) {
      if (gpu.pci_bus_id == address) return IdentityOf(gpu);
    }
    if (in.host.pci_gpus.has()) {
      for (const GpuPciTopology& t : *in.host.pci_gpus) {
        // An NVIDIA function NVML did not list: its sysfs position is no NVML index.
        if (t.gpu.address == address) return FindingGpu{-1, std::string(address), "", ""};
      }
    }
  }
  if (!index) return std::nullopt;  // "pci 0000:…" of a device that is not a GPU
  for (const GpuState& gpu : in.gpus.gpus) {
    if (gpu.index == *index && (address.empty() || gpu.pci_bus_id.empty())) return IdentityOf(gpu);
  }
  return std::nullopt;  // an address on neither list: nothing to name it by
}

bool Evaluable(const GpuState& gpu) {
  // gpu.unresponsive, gpu.lost or gpu.reset_required reports these.
  return !gpu.lost && !gpu.abandoned && !gpu.answered_nothing &&
         gpu.handle_fault == GpuFault::kNone;
}

const GpuPciTopology* FindPci(const HostState& host, std::string_view pci_address) {
  if (!host.pci_gpus.has()) return nullptr;
  for (const GpuPciTopology& t : *host.pci_gpus) {
    if (t.gpu.address == pci_address) return &t;
  }
  return nullptr;
}

GpuActivity GpuActivityOf(const GpuState* gpu, const Thresholds& t) {
  if (gpu == nullptr) {
    return {false, {"gpu_util_pct", "unknown (no NVML reading): treated as idle", ""}};
  }
  if (!gpu->gpu_util_pct.has()) {
    std::string why = gpu->gpu_util_pct.note.empty() ? "not read" : gpu->gpu_util_pct.note;
    return {false, {"gpu_util_pct", fmt::format("unknown ({}): treated as idle", why), ""}};
  }
  const int util = *gpu->gpu_util_pct;
  if (gpu->clock_event_reasons.has() && (*gpu->clock_event_reasons & clock_reason::kGpuIdle)) {
    return {false, {"gpu_util_pct", fmt::format("{} (idle: GPU idle clock reason set)", util), ""}};
  }
  // The busy threshold classifies the GPU; it is not an expectation of the value.
  const bool busy = util >= t.busy_util_pct;
  return {busy,
          {"gpu_util_pct",
           fmt::format("{} ({}: busy at >= busy_util_pct {})", util, busy ? "busy" : "idle",
                       t.busy_util_pct),
           ""}};
}

Finding MakeFinding(std::string_view id, std::string subject, Severity severity,
                    std::string summary, std::vector<Evidence> evidence) {
  assert(FindCatalogueEntry(id) != nullptr);
  return NewFinding(id, std::move(subject), severity, std::move(summary), std::move(evidence));
}

Finding NotChecked(std::string_view id, std::string subject, std::string summary,
                   std::vector<Evidence> evidence) {
  Finding f =
      MakeFinding(id, std::move(subject), Severity::kInfo, std::move(summary), std::move(evidence));
  f.meaning = "This check could not run on this machine: its input is not exposed here.";
  f.decision =
      "Nothing to fix for this check; run gpuvet where the input is visible (bare metal, "
      "or a container with the host's /sys and /proc) if the answer matters.";
  return f;
}

std::string ShortLogTime(const std::string& time) {
  if (time.size() > 19 && time[10] == 'T' && time[13] == ':' && time[16] == ':') {
    return time.substr(0, 19);
  }
  return time;
}

std::string FormatNumber(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

std::string FormatSignificant(double v, int digits) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  if (v == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const int decimals = std::clamp(digits - 1 - magnitude, 0, 9);
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

void ExplainCaptureGap(Finding& f) {
  f.meaning =
      "The capture does not contain the values this check needs (nvidia-smi of an older driver, "
      "or a trimmed capture), so it could not be judged; nothing says the GPU has this problem "
      "or not.";
  f.decision =
      "Ask for a full capture from a current driver (`nvidia-smi -q -x > capture.xml` on the "
      "node), or run `gpuvet check` on the node itself.";
}

}  // namespace gpuvet
