// The rule table and the runner that applies policy skip lists and severity overrides.
#include "rules/rules.h"

#include <algorithm>
#include <map>

namespace gpuvet {

namespace {
constexpr Rule kRules[] = {
    {"driver", CheckDriver},
    {"health", CheckGpuHealth},
    {"pcie", CheckPcie},
    {"clocks", CheckClocks},
    {"ecc", CheckEcc},
    {"settings", CheckGpuSettings},
    {"xid", CheckXid},
    {"host", CheckHost},
    {"kernel", CheckKernelSignals},
    {"container", CheckContainer},
    {"network", CheckNetwork},
};

std::string_view AreaOf(std::string_view id) { return id.substr(0, id.find('.')); }
}  // namespace

std::span<const Rule> Rules() { return kRules; }

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
