// The fleet model: what `gpuvet fleet` knows about many nodes, whichever way it learned it (a
// directory of check/bench JSON reports, or the Prometheus HTTP API scraping `gpuvet exporter`),
// and the audit result the renderers and the quarantine planner read. Plain data, no I/O.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"

namespace gpuvet {

inline constexpr const char* kFleetSchema = "gpuvet.fleet/v1";

// One observation of a time series: unix time in seconds and the value.
struct TimedValue {
  double t = 0;
  double v = 0;
};

// One GPU of a node: identity, the latest link state, and the series the trends are built from.
struct FleetGpu {
  int index = -1;
  std::string uuid, name, pci_bus_id, vbios_version;
  std::optional<double> pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
  std::optional<double>
      utilization;  // 0..1, read with the link state (gen below max is normal idle)
  std::vector<TimedValue> ecc_corrected;   // cumulative volatile corrected (SBE) count, time order
  std::optional<double> ecc_uncorrected;   // latest volatile uncorrected (DBE) count
  std::vector<TimedValue> thermal_active;  // 1 while a thermal / HW slowdown reason is active
  std::vector<TimedValue> power_active;    // 1 while the power cap or power brake is active
};

// A check result that was not ok in the node's latest check (report or gpuvet_check_status).
struct FleetCheck {
  std::string check;    // "pcie.link_width_reduced"
  std::string subject;  // "gpu3 (0000:5d:00.0)"
  Severity severity = Severity::kFail;
  std::string summary;  // empty when the source has none (Prometheus)
};

// One benchmark figure of the node's latest `gpuvet bench` report.
struct FleetBenchFigure {
  std::string id;  // measurement id ("h2d_pinned")
  int gpu = -1;
  int peer = -1;
  double value = 0;  // the measurement's median
  std::string unit;  // "GB/s", "us" (latencies: lower is better)
};

struct FleetNode {
  std::string name;                  // the host name (check report host.hostname, gpuvet_node_info)
  std::vector<std::string> sources;  // report files or Prometheus instances it came from
  double last_seen = 0;              // unix seconds of the newest observation
  std::string driver_version, cuda_version;  // empty when unknown
  std::vector<FleetGpu> gpus;
  std::vector<FleetCheck> checks;  // non-ok results of the latest check
  bool has_checks = false;         // a check result was seen at all
  std::vector<FleetBenchFigure> bench;
};

// An input the reader could not use, and why (never fatal).
struct FleetSkipped {
  std::string source;
  std::string reason;
};

struct FleetInput {
  std::string origin;  // "reports DIR" or "prometheus URL"
  double now = 0;      // unix seconds the window ends at
  double window_s = 0;
  // A node whose newest data is older than this is stale (fleet.stale); 0 = the window. The
  // Prometheus reader sets a few scrape steps: a node it has not seen for minutes is not current.
  double stale_after_s = 0;
  std::vector<FleetNode> nodes;  // sorted by name
  std::vector<FleetSkipped> skipped;
};

// The audit of one node: its findings (ids "fleet.*"), verdict and quarantine decision.
struct FleetNodeResult {
  std::string node;
  std::string pool;  // "<GPU model> x<count>"
  Severity verdict = Severity::kOk;
  int score = 0;  // ranking weight of the findings (higher is worse)
  bool quarantine = false;
  std::string reason;  // why quarantine (joined summaries of the fail findings), raw text
  std::vector<std::string> reason_ids;  // the fail finding ids, e.g. "fleet.pcie_downgrade"
  std::vector<std::string> sources;
  std::vector<Finding> findings;
};

struct FleetReport {
  std::string gpuvet_version;
  std::string generated_at;
  std::string origin;
  std::string policy_source;
  double window_s = 0;
  std::vector<FleetNodeResult> nodes;  // ranked, worst first
  std::vector<FleetSkipped> skipped;
  Severity verdict = Severity::kOk;  // worst node verdict
};

}  // namespace gpuvet
