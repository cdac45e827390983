// Per-GPU health over the audit window: corrected ECC rate and its trend, uncorrected errors,
// PCIe downgrades (width always, generation only under load: an idle link drops its generation to
// save power) and the share of the window spent throttled.
#include <fmt/format.h>

#include "core/fleet_catalogue.h"
#include "rules/fleet/fleet_audit.h"
#include "rules/fleet/fleet_stats.h"
#include "rules/rule_util.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

std::vector<TimedValue> InWindow(const std::vector<TimedValue>& s, double start, double end) {
  std::vector<TimedValue> out;
  for (const TimedValue& v : s) {
    if (v.t >= start && v.t <= end) out.push_back(v);
  }
  return out;
}

std::string Subject(const FleetGpu& g) {
  return g.pci_bus_id.empty() ? fmt::format("gpu{}", g.index)
                              : fmt::format("gpu{} ({})", g.index, g.pci_bus_id);
}

std::string Pct(double share) { return FormatNumber(share * 100, 1) + "%"; }

void Ecc(const FleetGpu& g, const FleetThresholds& t, double start, double end,
         std::vector<Finding>& out) {
  if (g.ecc_uncorrected && *g.ecc_uncorrected > 0) {
    out.push_back(
        MakeFleetFinding("fleet.ecc_uncorrected", Subject(g), Severity::kFail,
                         fmt::format("{} uncorrectable ECC errors since the last reset",
                                     FormatNumber(*g.ecc_uncorrected, 0)),
                         {{"uncorrected_volatile", FormatNumber(*g.ecc_uncorrected, 0), "== 0"}}));
  }
  std::optional<CounterTrend> trend = AnalyseCounter(InWindow(g.ecc_corrected, start, end));
  if (!trend || trend->increase <= 0) return;
  const double rate = trend->rate_per_h;
  Severity sev = Severity::kInfo;
  if (rate >= t.ecc_sbe_rate_fail_per_h) {
    sev = Severity::kFail;
  } else if (rate >= t.ecc_sbe_rate_warn_per_h || trend->accelerating) {
    sev = Severity::kWarn;
  }
  std::vector<Evidence> ev = {
      {"corrected_per_h", FormatNumber(rate, 1),
       fmt::format("< {} (warn), < {} (fail)", FormatNumber(t.ecc_sbe_rate_warn_per_h, 1),
                   FormatNumber(t.ecc_sbe_rate_fail_per_h, 1))},
      {"corrected_increase", FormatNumber(trend->increase, 0), ""},
      {"span_s", FormatNumber(trend->span_s, 0), ""},
      {"first_half_per_h", FormatNumber(trend->first_half_per_h, 1), ""},
      {"second_half_per_h", FormatNumber(trend->second_half_per_h, 1), "<= 1.5 × first_half_per_h"},
      {"samples", std::to_string(trend->samples), ""}};
  if (trend->resets) ev.push_back({"counter_resets", std::to_string(trend->resets), ""});
  out.push_back(
      MakeFleetFinding("fleet.ecc_sbe_rate", Subject(g), sev,
                       fmt::format("{} corrected ECC errors per hour{}", FormatNumber(rate, 1),
                                   trend->accelerating ? ", rising" : ""),
                       ev));
}

void Pcie(const FleetGpu& g, int busy_pct, std::vector<Finding>& out) {
  if (g.pcie_width && g.pcie_width_max && *g.pcie_width < *g.pcie_width_max) {
    out.push_back(
        MakeFleetFinding("fleet.pcie_downgrade", Subject(g), Severity::kFail,
                         fmt::format("PCIe x{} on a x{} link", *g.pcie_width, *g.pcie_width_max),
                         {{"width", FormatNumber(*g.pcie_width, 0),
                           fmt::format("== width_max {}", *g.pcie_width_max)}}));
  }
  if (g.pcie_gen && g.pcie_gen_max && *g.pcie_gen < *g.pcie_gen_max && g.utilization &&
      *g.utilization * 100 >= busy_pct) {
    out.push_back(MakeFleetFinding(
        "fleet.pcie_downgrade", Subject(g), Severity::kWarn,
        fmt::format("PCIe Gen{} under load on a Gen{} link", *g.pcie_gen, *g.pcie_gen_max),
        {{"gen", FormatNumber(*g.pcie_gen, 0),
          fmt::format("== gen_max {} while busy", *g.pcie_gen_max)},
         {"utilization", Pct(*g.utilization), fmt::format(">= {}% is busy", busy_pct)}}));
  }
}

void Throttling(const FleetGpu& g, const FleetThresholds& t, double start, double end,
                std::vector<Finding>& out) {
  std::optional<double> thermal = ActiveShare(InWindow(g.thermal_active, start, end));
  std::optional<double> power = ActiveShare(InWindow(g.power_active, start, end));
  if (!thermal && !power) return;
  Severity sev = Severity::kOk;
  if (thermal) {
    if (*thermal >= t.thermal_share_fail) {
      sev = Severity::kFail;
    } else if (*thermal >= t.thermal_share_warn) {
      sev = Severity::kWarn;
    }
  }
  if (power && *power >= t.power_share_warn && sev < Severity::kWarn) sev = Severity::kWarn;
  // A healthy share says nothing worth a line per GPU (decided before any text is formatted:
  // nearly every GPU of a fleet is healthy).
  if (sev == Severity::kOk) return;
  std::vector<std::string> parts;
  std::vector<Evidence> ev;
  if (thermal) {
    ev.push_back({"thermal_share", Pct(*thermal),
                  fmt::format("< {} (warn), < {} (fail)", Pct(t.thermal_share_warn),
                              Pct(t.thermal_share_fail))});
    if (*thermal > 0) parts.push_back(fmt::format("thermal {} of the window", Pct(*thermal)));
  }
  if (power) {
    ev.push_back({"power_share", Pct(*power), fmt::format("< {} (warn)", Pct(t.power_share_warn))});
    if (*power > 0) parts.push_back(fmt::format("power cap {} of the window", Pct(*power)));
  }
  out.push_back(
      MakeFleetFinding("fleet.throttling", Subject(g), sev, "throttled: " + Join(parts, ", "), ev));
}

}  // namespace

std::vector<Finding> GpuHealthFindings(const FleetNode& node, const Policy& policy, double now,
                                       double window_s) {
  std::vector<Finding> out;
  const double start = now - window_s;
  for (const FleetGpu& g : node.gpus) {
    Ecc(g, policy.fleet, start, now, out);
    Pcie(g, policy.thresholds.busy_util_pct, out);
    Throttling(g, policy.fleet, start, now, out);
  }
  return out;
}

}  // namespace gpuvet
