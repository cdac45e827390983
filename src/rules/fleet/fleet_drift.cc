// Fleet drift (driver, CUDA, VBIOS against the allowed set and the pool majority), pools, and
// failing checks. A version is only "drift" against something: the policy's allowed globs, or
// what most nodes with the same GPU model and count run.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/fleet_catalogue.h"
#include "rules/fleet/fleet_audit.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

bool MatchesAny(const std::vector<std::string>& globs, const std::string& v) {
  return std::any_of(globs.begin(), globs.end(),
                     [&](const std::string& g) { return GlobMatch(g, v); });
}

// The value more than half of `values` share, or "" when there is none.
std::string StrictMajority(const std::vector<std::string>& values, int* count) {
  std::map<std::string, int> n;
  for (const std::string& v : values) ++n[v];
  for (const auto& [v, c] : n) {
    if (2 * c > static_cast<int>(values.size())) {
      *count = c;
      return v;
    }
  }
  *count = 0;
  return "";
}

std::string GpuSubjectOf(const FleetGpu& g) {
  return g.pci_bus_id.empty() ? fmt::format("gpu{}", g.index)
                              : fmt::format("gpu{} ({})", g.index, g.pci_bus_id);
}

// One node-level version (driver or CUDA) against the allowed set and the pool.
void NodeVersion(const char* id, const char* what, const std::string& value,
                 const std::vector<std::string>& allowed, const char* policy_key,
                 const std::vector<std::string>& pool_values, int min_pool,
                 std::vector<Finding>& out) {
  if (value.empty()) return;
  if (!allowed.empty() && !MatchesAny(allowed, value)) {
    out.push_back(MakeFleetFinding(
        id, "node", Severity::kFail, fmt::format("{} {} is not in the allowed set", what, value),
        {{what, value, fmt::format("in {} [{}]", policy_key, Join(allowed, ", "))}}));
    return;
  }
  if (static_cast<int>(pool_values.size()) < min_pool) return;
  int count = 0;
  std::string majority = StrictMajority(pool_values, &count);
  if (majority.empty()) {
    std::set<std::string> distinct(pool_values.begin(), pool_values.end());
    if (distinct.size() > 1) {
      out.push_back(MakeFleetFinding(id, "node", Severity::kInfo,
                                     fmt::format("pool has no majority {}: {}", what,
                                                 Join({distinct.begin(), distinct.end()}, ", ")),
                                     {{what, value, ""}}));
    }
    return;
  }
  if (majority != value) {
    out.push_back(MakeFleetFinding(id, "node", Severity::kWarn,
                                   fmt::format("{} {} differs from its pool's {} ({} of {} nodes)",
                                               what, value, majority, count, pool_values.size()),
                                   {{what, value, fmt::format("== pool majority {}", majority)}}));
  }
}

}  // namespace

std::string PoolOf(const FleetNode& node) {
  if (node.gpus.empty()) return "no GPUs";
  std::set<std::string> models;
  for (const FleetGpu& g : node.gpus) models.insert(g.name.empty() ? "unknown GPU" : g.name);
  return fmt::format("{} x{}", Join({models.begin(), models.end()}, "+"), node.gpus.size());
}

std::string BenchPoolOf(const FleetNode& node) {
  double gen = 0, width = 0;
  for (const FleetGpu& g : node.gpus) {
    gen = std::max(gen, g.pcie_gen_max.value_or(0));
    width = std::max(width, g.pcie_width_max.value_or(0));
  }
  if (gen == 0 && width == 0) return PoolOf(node);
  return fmt::format("{} / Gen{} x{}", PoolOf(node), gen, width);
}

std::vector<Finding> DriftFindings(const FleetNode& node, const std::vector<const FleetNode*>& pool,
                                   const Policy& policy) {
  std::vector<Finding> out;
  const int min_pool = policy.fleet.min_pool_nodes;
  std::vector<std::string> drivers, cudas, vbioses;
  for (const FleetNode* n : pool) {
    if (!n->driver_version.empty()) drivers.push_back(n->driver_version);
    if (!n->cuda_version.empty()) cudas.push_back(n->cuda_version);
    for (const FleetGpu& g : n->gpus) {
      if (!g.vbios_version.empty()) vbioses.push_back(g.vbios_version);
    }
  }
  NodeVersion("fleet.driver_drift", "driver", node.driver_version, policy.allowed_driver_versions,
              "driver.allowed_versions", drivers, min_pool, out);
  NodeVersion("fleet.cuda_drift", "cuda", node.cuda_version, policy.allowed_cuda_versions,
              "driver.allowed_cuda_versions", cudas, min_pool, out);

  // VBIOS per GPU; the pool majority is over the GPUs of the pool's nodes.
  int count = 0;
  std::set<const FleetNode*> with_vbios;
  for (const FleetNode* n : pool) {
    for (const FleetGpu& g : n->gpus) {
      if (!g.vbios_version.empty()) with_vbios.insert(n);
    }
  }
  const bool pool_big_enough = static_cast<int>(with_vbios.size()) >= min_pool;
  const std::string majority = pool_big_enough ? StrictMajority(vbioses, &count) : "";
  for (const FleetGpu& g : node.gpus) {
    if (g.vbios_version.empty()) continue;
    const std::vector<std::string>& allowed = policy.allowed_vbios_versions;
    if (!allowed.empty() && !MatchesAny(allowed, g.vbios_version)) {
      out.push_back(MakeFleetFinding(
          "fleet.vbios_drift", GpuSubjectOf(g), Severity::kFail,
          fmt::format("VBIOS {} is not in the allowed set", g.vbios_version),
          {{"vbios", g.vbios_version,
            fmt::format("in driver.allowed_vbios_versions [{}]", Join(allowed, ", "))}}));
    } else if (!majority.empty() && g.vbios_version != majority) {
      out.push_back(MakeFleetFinding(
          "fleet.vbios_drift", GpuSubjectOf(g), Severity::kWarn,
          fmt::format("VBIOS {} differs from its pool's {} ({} of {} GPUs)", g.vbios_version,
                      majority, count, vbioses.size()),
          {{"vbios", g.vbios_version, fmt::format("== pool majority {}", majority)}}));
    }
  }
  return out;
}

std::vector<Finding> CheckFindings(const FleetNode& node) {
  std::vector<Finding> out;
  for (const FleetCheck& c : node.checks) {
    if (c.severity != Severity::kFail) continue;
    std::string summary = c.summary.empty() ? fmt::format("check {} fails", c.check)
                                            : fmt::format("{}: {}", c.check, c.summary);
    out.push_back(MakeFleetFinding("fleet.check_failed", c.subject.empty() ? "node" : c.subject,
                                   Severity::kFail, summary, {{"check", c.check, "not fail"}}));
  }
  return out;
}

}  // namespace gpuvet
