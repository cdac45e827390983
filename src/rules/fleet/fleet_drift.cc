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

VersionSpread SpreadOf(const std::vector<std::string>& values) {
  VersionSpread out;
  out.values = static_cast<int>(values.size());
  std::map<std::string, int> n;
  for (const std::string& v : values) ++n[v];
  for (const auto& [v, c] : n) {
    out.distinct.push_back(v);
    if (2 * c > out.values) {
      out.majority = v;
      out.majority_count = c;
    }
  }
  return out;
}

std::string GpuSubjectOf(const FleetGpu& g) {
  return g.pci_bus_id.empty() ? fmt::format("gpu{}", g.index)
                              : fmt::format("gpu{} ({})", g.index, g.pci_bus_id);
}

// One node-level version (driver or CUDA) against the allowed set and the pool.
void NodeVersion(const char* id, const char* what, const std::string& value,
                 const std::vector<std::string>& allowed, const char* policy_key,
                 const VersionSpread& pool, int min_pool, std::vector<Finding>& out) {
  if (value.empty()) return;
  if (!allowed.empty() && !MatchesAny(allowed, value)) {
    out.push_back(MakeFleetFinding(
        id, "node", Severity::kFail, fmt::format("{} {} is not in the allowed set", what, value),
        {{what, value, fmt::format("in {} [{}]", policy_key, Join(allowed, ", "))}}));
    return;
  }
  if (pool.values < min_pool) return;
  if (pool.majority.empty()) {
    if (pool.distinct.size() > 1) {
      out.push_back(MakeFleetFinding(
          id, "node", Severity::kInfo,
          fmt::format("pool has no majority {}: {}", what, Join(pool.distinct, ", ")),
          {{what, value, ""}}));
    }
    return;
  }
  if (pool.majority != value) {
    out.push_back(
        MakeFleetFinding(id, "node", Severity::kWarn,
                         fmt::format("{} {} differs from its pool's {} ({} of {} nodes)", what,
                                     value, pool.majority, pool.majority_count, pool.values),
                         {{what, value, fmt::format("== pool majority {}", pool.majority)}}));
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

FleetPoolStats PoolStatsOf(const std::vector<const FleetNode*>& pool) {
  std::vector<std::string> drivers, cudas, vbioses;
  FleetPoolStats stats;
  for (const FleetNode* n : pool) {
    if (!n->driver_version.empty()) drivers.push_back(n->driver_version);
    if (!n->cuda_version.empty()) cudas.push_back(n->cuda_version);
    bool any_vbios = false;
    for (const FleetGpu& g : n->gpus) {
      if (g.vbios_version.empty()) continue;
      vbioses.push_back(g.vbios_version);
      any_vbios = true;
    }
    stats.nodes_with_vbios += any_vbios;
  }
  stats.driver = SpreadOf(drivers);
  stats.cuda = SpreadOf(cudas);
  stats.vbios = SpreadOf(vbioses);
  return stats;
}

std::vector<Finding> DriftFindings(const FleetNode& node, const std::vector<const FleetNode*>& pool,
                                   const Policy& policy) {
  return DriftFindings(node, PoolStatsOf(pool), policy);
}

std::vector<Finding> DriftFindings(const FleetNode& node, const FleetPoolStats& stats,
                                   const Policy& policy) {
  std::vector<Finding> out;
  const int min_pool = policy.fleet.min_pool_nodes;
  NodeVersion("fleet.driver_drift", "driver", node.driver_version, policy.allowed_driver_versions,
              "driver.allowed_versions", stats.driver, min_pool, out);
  NodeVersion("fleet.cuda_drift", "cuda", node.cuda_version, policy.allowed_cuda_versions,
              "driver.allowed_cuda_versions", stats.cuda, min_pool, out);

  // VBIOS per GPU; the pool majority is over the GPUs of the pool's nodes.
  const bool pool_big_enough = stats.nodes_with_vbios >= min_pool;
  static const std::string kNone;
  const std::string& m = pool_big_enough ? stats.vbios.majority : kNone;
  for (const FleetGpu& g : node.gpus) {
    if (g.vbios_version.empty()) continue;
    const std::vector<std::string>& allowed = policy.allowed_vbios_versions;
    if (!allowed.empty() && !MatchesAny(allowed, g.vbios_version)) {
      out.push_back(MakeFleetFinding(
          "fleet.vbios_drift", GpuSubjectOf(g), Severity::kFail,
          fmt::format("VBIOS {} is not in the allowed set", g.vbios_version),
          {{"vbios", g.vbios_version,
            fmt::format("in driver.allowed_vbios_versions [{}]", Join(allowed, ", "))}}));
    } else if (!m.empty() && g.vbios_version != m) {
      out.push_back(MakeFleetFinding(
          "fleet.vbios_drift", GpuSubjectOf(g), Severity::kWarn,
          fmt::format("VBIOS {} differs from its pool's {} ({} of {} GPUs)", g.vbios_version, m,
                      stats.vbios.majority_count, stats.vbios.values),
          {{"vbios", g.vbios_version, fmt::format("== pool majority {}", m)}}));
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
