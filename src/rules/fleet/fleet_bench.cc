// Benchmark regressions against the pool: per bench pool (GPU model, count, maximum PCIe link)
// and measurement id (and peer for P2P), the median and MAD over every node's GPUs; a GPU whose
// modified z-score is at or below −bench_z AND that loses at least bench_min_drop of the median
// regressed. Both conditions: MAD alone flags noise in a tight pool, the drop alone flags a pool
// that is spread out anyway.
#include <fmt/format.h>

#include <cmath>
#include <set>
#include <tuple>

#include "core/fleet_catalogue.h"
#include "rules/fleet/fleet_audit.h"
#include "rules/fleet/fleet_stats.h"
#include "rules/rule_util.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Latencies ("us") are better when lower; every other figure (GB/s, TFLOP/s, launches/s) higher.
bool LowerIsBetter(const std::string& unit) { return unit == "us" || unit == "ms" || unit == "s"; }

std::string FormatZ(double z) {
  if (std::isinf(z)) return z < 0 ? "-inf (MAD 0)" : "+inf (MAD 0)";
  return FormatNumber(z, 2);
}

}  // namespace

std::map<std::string, std::vector<Finding>> BenchRegressions(
    const std::vector<const FleetNode*>& pool, const Policy& policy) {
  const FleetThresholds& t = policy.fleet;
  using Key = std::tuple<std::string, int>;  // measurement id, peer
  std::map<Key, std::vector<std::pair<const FleetNode*, const FleetBenchFigure*>>> by_key;
  for (const FleetNode* n : pool) {
    for (const FleetBenchFigure& f : n->bench) by_key[{f.id, f.peer}].push_back({n, &f});
  }
  std::map<std::string, std::vector<Finding>> out;
  for (const auto& [key, figures] : by_key) {
    std::set<const FleetNode*> nodes;
    std::vector<double> values;
    for (const auto& [n, f] : figures) {
      nodes.insert(n);
      values.push_back(f->value);
    }
    if (static_cast<int>(nodes.size()) < t.min_pool_nodes) continue;
    const double median = *Median(values);
    const double mad = *MedianAbsoluteDeviation(values);
    if (median <= 0) continue;
    for (const auto& [n, f] : figures) {
      const bool lower_better = LowerIsBetter(f->unit);
      double z = ModifiedZ(f->value, median, mad);
      if (lower_better) z = -z;  // a slower latency is the bad direction
      const double drop =
          lower_better ? (f->value - median) / f->value : (median - f->value) / median;
      if (!(z <= -t.bench_z) || drop < t.bench_min_drop) continue;
      const Severity sev = drop >= t.bench_fail_drop ? Severity::kFail : Severity::kWarn;
      std::string subject = f->peer >= 0 ? fmt::format("gpu{} -> gpu{}", f->gpu, f->peer)
                                         : fmt::format("gpu{}", f->gpu);
      out[n->name].push_back(MakeFleetFinding(
          "fleet.bench_regression", subject, sev,
          fmt::format("{} {} {} is {}% below the pool median {} {}", f->id,
                      FormatNumber(f->value, 2), f->unit, FormatNumber(drop * 100, 1),
                      FormatNumber(median, 2), f->unit),
          {{f->id, FormatNumber(f->value, 2) + " " + f->unit, ""},
           {"pool_median", FormatNumber(median, 2) + " " + f->unit, ""},
           {"pool_mad", FormatNumber(mad, 3) + " " + f->unit, ""},
           {"pool_values", std::to_string(values.size()), ""},
           {"modified_z", FormatZ(z), fmt::format("> -{}", FormatNumber(t.bench_z, 1))},
           {"drop", FormatNumber(drop * 100, 1) + "%",
            fmt::format("< {}% (warn), < {}% (fail)", FormatNumber(t.bench_min_drop * 100, 0),
                        FormatNumber(t.bench_fail_drop * 100, 0))}}));
    }
  }
  return out;
}

}  // namespace gpuvet
