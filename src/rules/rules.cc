// The rule table and the runner that applies policy skip lists and severity overrides.
#include "rules/rules.h"

#include <algorithm>
#include <map>

#include "core/catalogue.h"

namespace gpuvet {

namespace {
constexpr std::string_view kDriverAreas[] = {"driver", "gpu"};
constexpr std::string_view kHealthAreas[] = {"gpu", "ecc", "nvlink"};
constexpr std::string_view kPcieAreas[] = {"pcie"};
constexpr std::string_view kClockAreas[] = {"clocks", "throttle", "thermal", "power"};
constexpr std::string_view kEccAreas[] = {"ecc"};
constexpr std::string_view kSettingsAreas[] = {"settings", "mig", "nvlink"};
constexpr std::string_view kXidAreas[] = {"xid", "kernel"};
constexpr std::string_view kHostAreas[] = {"host",   "numa",   "cpu",    "cgroup",
                                           "memory", "device", "process"};
constexpr std::string_view kKernelAreas[] = {"kernel"};
constexpr std::string_view kContainerAreas[] = {"container"};
constexpr std::string_view kNetworkAreas[] = {"ib"};

constexpr Rule kRules[] = {
    {"driver", CheckDriver, kDriverAreas, true},
    {"health", CheckGpuHealth, kHealthAreas, true},
    {"pcie", CheckPcie, kPcieAreas, true},
    {"clocks", CheckClocks, kClockAreas, true},
    {"ecc", CheckEcc, kEccAreas, true},
    {"settings", CheckGpuSettings, kSettingsAreas, true},
    {"xid", CheckXid, kXidAreas, false},
    {"host", CheckHost, kHostAreas, false},
    {"kernel", CheckKernelSignals, kKernelAreas, false},
    {"container", CheckContainer, kContainerAreas, false},
    {"network", CheckNetwork, kNetworkAreas, false},
};
}  // namespace

std::span<const Rule> Rules() { return kRules; }

bool IsGpuOnlyArea(std::string_view area) {
  bool gpu = false;
  for (const Rule& r : kRules) {
    for (std::string_view a : r.areas) {
      if (a != area) continue;
      if (!r.gpu_only) return false;  // an area a host rule also emits needs this machine
      gpu = true;
    }
  }
  return gpu;
}

std::vector<Finding> RunRules(const CheckInput& in, const Policy& policy) {
  std::vector<Finding> all;
  for (const Rule& rule : kRules) rule.fn(in, policy, all);

  std::vector<Finding> kept;
  std::map<std::string, int> area_rank;  // order of first appearance
  for (Finding& f : all) {
    if (IsSkipped(policy, f.id)) continue;
    if (auto it = policy.severity_overrides.find(f.id);
        it != policy.severity_overrides.end() && f.severity != Severity::kOk) {
      f.severity = it->second;  // an override changes what a problem weighs, never turns ok bad
    }
    if (in.gpus.from_capture && f.severity == Severity::kUnknown && f.meaning.empty() &&
        f.summary.find(kNotInTheCapture) != std::string::npos) {
      ExplainCaptureGap(f);
      f.not_in_capture = true;
    }
    // The GPU's index, address, serial and UUID, found once here from the subject each rule
    // wrote, so renderers can name the board an RMA needs without every rule carrying them.
    if (!f.gpu) f.gpu = GpuOfSubject(in, f.subject);
    area_rank.emplace(std::string(AreaOf(f.id)), static_cast<int>(area_rank.size()));
    kept.push_back(std::move(f));
  }
  std::stable_sort(kept.begin(), kept.end(), [&](const Finding& a, const Finding& b) {
    int ra = area_rank[std::string(AreaOf(a.id))], rb = area_rank[std::string(AreaOf(b.id))];
    return ra < rb;  // within an area, rules' own order (GPU index order) is kept
  });
  return kept;
}

}  // namespace gpuvet
