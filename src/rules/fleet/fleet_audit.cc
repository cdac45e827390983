// The fleet audit: pools the nodes, runs every area (drift, checks, GPU health, benchmarks,
// freshness), ranks the nodes worst first and decides quarantine (any fail finding).
#include "rules/fleet/fleet_audit.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/fleet_catalogue.h"
#include "rules/rule_util.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Ranking weight per finding: one fail outranks any number of warnings on a realistic node.
int Weight(Severity s) {
  switch (s) {
    case Severity::kFail:
      return 1000;
    case Severity::kUnknown:
      return 50;
    case Severity::kWarn:
      return 10;
    case Severity::kInfo:
      return 1;
    case Severity::kOk:
      return 0;
  }
  return 0;
}

std::string FormatAge(double s) {
  if (s >= 86400) return FormatNumber(s / 86400, 1) + " d";
  if (s >= 3600) return FormatNumber(s / 3600, 1) + " h";
  return FormatNumber(s, 0) + " s";
}

}  // namespace

FleetReport AuditFleet(const FleetInput& input, const Policy& policy) {
  FleetReport report;
  report.origin = input.origin;
  report.policy_source = policy.source;
  report.window_s = input.window_s;
  report.skipped = input.skipped;

  std::map<std::string, std::vector<const FleetNode*>> pools, bench_pools;
  std::vector<std::string> pool_of;  // per input node
  pool_of.reserve(input.nodes.size());
  for (const FleetNode& n : input.nodes) {
    pool_of.push_back(PoolOf(n));
    pools[pool_of.back()].push_back(&n);
    bench_pools[BenchPoolOf(n)].push_back(&n);
  }
  // Pool statistics once per pool: per node they made the audit quadratic in pool size.
  std::map<std::string, FleetPoolStats> pool_stats;
  for (const auto& [name, members] : pools) pool_stats.emplace(name, PoolStatsOf(members));
  std::map<std::string, std::vector<Finding>> bench;
  for (const auto& [name, members] : bench_pools) {
    for (auto& [node, findings] : BenchRegressions(members, policy)) {
      auto& dst = bench[node];
      dst.insert(dst.end(), findings.begin(), findings.end());
    }
  }

  for (const FleetNode& n : input.nodes) {
    FleetNodeResult r;
    r.node = n.name;
    r.pool = pool_of[&n - input.nodes.data()];
    r.sources = n.sources;
    auto add = [&](std::vector<Finding> f) {
      r.findings.insert(r.findings.end(), std::make_move_iterator(f.begin()),
                        std::make_move_iterator(f.end()));
    };
    add(DriftFindings(n, pool_stats.at(r.pool), policy));
    add(CheckFindings(n));
    add(GpuHealthFindings(n, policy, input.now, input.window_s));
    if (auto b = bench.find(n.name); b != bench.end()) add(std::move(b->second));
    const double stale_after = input.stale_after_s > 0 ? input.stale_after_s : input.window_s;
    if (stale_after > 0 && n.last_seen > 0 && n.last_seen < input.now - stale_after) {
      const std::string limit = stale_after == input.window_s ? "the window" : "the limit";
      r.findings.push_back(MakeFleetFinding(
          "fleet.stale", "node", Severity::kWarn,
          fmt::format("newest data is {} old, older than {} ({})",
                      FormatAge(input.now - n.last_seen), limit, FormatAge(stale_after)),
          {{"age_s", FormatNumber(input.now - n.last_seen, 0),
            fmt::format("<= {}", FormatNumber(stale_after, 0))}}));
    }
    std::stable_sort(r.findings.begin(), r.findings.end(), [](const Finding& a, const Finding& b) {
      if (a.severity != b.severity) return a.severity > b.severity;
      if (a.id != b.id) return a.id < b.id;
      return a.subject < b.subject;
    });
    r.verdict = WorstSeverity(r.findings);
    std::vector<std::string> reasons;
    std::set<std::string> ids;
    for (const Finding& f : r.findings) {
      r.score += Weight(f.severity);
      if (f.severity != Severity::kFail) continue;
      r.quarantine = true;
      // Short subject ("gpu3", not "gpu3 (0000:5d:00.0)"): the reason ends up in a Slurm field.
      std::string subject = f.subject.substr(0, f.subject.find(" ("));
      reasons.push_back(subject == "node" ? f.summary : subject + ": " + f.summary);
      if (ids.insert(f.id).second) r.reason_ids.push_back(f.id);
    }
    r.reason = Join(reasons, "; ");
    report.nodes.push_back(std::move(r));
  }
  std::stable_sort(report.nodes.begin(), report.nodes.end(),
                   [](const FleetNodeResult& a, const FleetNodeResult& b) {
                     if (a.verdict != b.verdict) return a.verdict > b.verdict;
                     if (a.score != b.score) return a.score > b.score;
                     return a.node < b.node;
                   });
  for (const FleetNodeResult& r : report.nodes) {
    if (r.verdict > report.verdict) report.verdict = r.verdict;
  }
  return report;
}

}  // namespace gpuvet
