// `gpuvet fleet audit` judgement: pure functions from a FleetInput and the policy to per-node
// findings (ids in core/fleet_catalogue.cc), a ranking (worst first) and the quarantine list.
// Each area is its own function so unit tests feed it hand-built nodes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/fleet.h"
#include "core/policy.h"

namespace gpuvet {

// The pool a node is compared within: "<GPU model> x<count>" ("NVIDIA H100 80GB HBM3 x8");
// "no GPUs" when none is known. Mixed models on one node are joined with '+'.
std::string PoolOf(const FleetNode& node);

// The bench pool: the pool plus the GPUs' maximum PCIe link ("… x8 / Gen5 x16"), the topology
// part of "same hardware" for benchmark figures.
std::string BenchPoolOf(const FleetNode& node);

// One version's spread over a pool: how many values, the strict majority (more than half share
// it; empty when none) and its count, and the distinct values in sorted order.
struct VersionSpread {
  int values = 0;
  std::string majority;
  int majority_count = 0;
  std::vector<std::string> distinct;
};

// What drift needs of a pool, computed once per pool (not per node: the audit stays linear in
// nodes). Driver and CUDA are per node, VBIOS per GPU over the pool's nodes.
struct FleetPoolStats {
  VersionSpread driver;
  VersionSpread cuda;
  VersionSpread vbios;
  int nodes_with_vbios = 0;  // nodes with at least one GPU that reported a VBIOS
};

// The stats of `pool` (every node of one pool).
FleetPoolStats PoolStatsOf(const std::vector<const FleetNode*>& pool);

// Driver, CUDA and VBIOS versions against the policy's allowed globs (fail) and the pool's
// strict majority (warn; info when the pool is split without a majority). `stats` are those of
// the node's pool, the node included.
std::vector<Finding> DriftFindings(const FleetNode& node, const FleetPoolStats& stats,
                                   const Policy& policy);

// The same for a pool given as its nodes (computes PoolStatsOf(pool) first).
std::vector<Finding> DriftFindings(const FleetNode& node, const std::vector<const FleetNode*>& pool,
                                   const Policy& policy);

// The node's non-ok latest checks as fleet.check_failed (fail checks only: warn-level checks
// stay in `gpuvet check`).
std::vector<Finding> CheckFindings(const FleetNode& node);

// Per GPU: corrected ECC rate and trend, uncorrected errors, PCIe downgrades and the throttling
// share, each over samples inside the window [now − window_s, now].
std::vector<Finding> GpuHealthFindings(const FleetNode& node, const Policy& policy, double now,
                                       double window_s);

// Benchmark regressions against the bench pool's median and MAD, per measurement id (and peer).
// Returns findings keyed by node name; nodes without regressions are absent.
std::map<std::string, std::vector<Finding>> BenchRegressions(
    const std::vector<const FleetNode*>& pool, const Policy& policy);

// The whole audit: every area for every node, a verdict per node, ranked worst first (verdict,
// then score, then name); a node is quarantined when any finding fails.
FleetReport AuditFleet(const FleetInput& input, const Policy& policy);

}  // namespace gpuvet
