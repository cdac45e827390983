// Policy: what "healthy" means on this node. Built-in defaults (sources quoted beside each number)
// that a TOML file can override: expected GPU count, allowed driver/CUDA versions, thresholds,
// checks to skip and severity overrides. See docs/policy.md for the file format.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "util/status.h"

namespace gpuvet {

struct Thresholds {
  // thermal.margin: warn when the GPU is within this many °C of its slowdown temperature.
  int temperature_margin_warn_c = 10;
  // power.limit: warn when enforced limit / default limit falls below this ratio.
  double power_limit_min_ratio = 0.95;
  // A GPU counts as busy (for idle-aware checks) at or above this GPU-Util %.
  int busy_util_pct = 50;
  // clocks.sm_below_max: warn when busy and SM clock < ratio × max with no throttle reason.
  double sm_clock_min_ratio = 0.7;
  // ecc.volatile_sbe: warn at or above this many corrected errors since the last reset.
  uint64_t ecc_corrected_volatile_warn = 10000;
  // ecc.retired_pages: fail at or above this many retired pages (DCGM DcgmGPUHardwareLimits.h: 63).
  int retired_pages_fail = 63;
  // ecc.row_remap: fail at or above this many uncorrectable remapped rows (DCGM, AzNHC: 512).
  int remapped_rows_uncorrectable_fail = 512;
  // pcie.replay_counter: the bit error rate the replay budget is derived from; budget per minute
  // = BER × lane rate × 60 s × lanes (DCGM DcgmHealthWatch.cpp: 1e-12).
  double pcie_replay_ber = 1e-12;
  // pcie.aer_corrected: corrected AER errors per minute of uptime (DCGM Pcie.cpp: 16/min, 32/min
  // for Gen5 x16).
  double aer_corrected_per_min = 16;
  // nvlink.errors: CRC errors (flit + data) per link before warning (DCGM: 100).
  uint64_t nvlink_crc_max = 100;
  // nvlink.errors: replay + recovery events per link before warning (DCGM NVLink error limit: 1).
  uint64_t nvlink_recovery_max = 1;
  // cgroup.cpu_quota: minimum CPU cores of quota per visible GPU.
  double cpu_cores_per_gpu_min = 4;
  // cgroup.memory_limit: minimum memory limit per visible GPU, GiB.
  double memory_per_gpu_min_gib = 4;
  // memory.available: warn below this share of MemTotal available.
  double memory_available_min_pct = 5;
  // memory.pressure: warn when PSI avg60 of memory/io "full" or cpu "some" reaches these %.
  double psi_memory_full_warn_pct = 5;
  double psi_io_full_warn_pct = 10;
  double psi_cpu_some_warn_pct = 40;
  // ib.port_errors: budgets per InfiniBand/RoCE port counter since the driver loaded, the
  // infiniband-diags `ibcheckerrs` defaults: 10 for symbol errors, link recoveries, link downs,
  // receive errors (with local link integrity and buffer overrun errors), 100 for remote
  // physical receive errors and transmit discards.
  uint64_t ib_symbol_error_max = 10;
  uint64_t ib_link_downed_max = 10;
  uint64_t ib_link_error_recovery_max = 10;
  uint64_t ib_rcv_errors_max = 10;
  uint64_t ib_rcv_remote_physical_errors_max = 100;
  uint64_t ib_xmit_discards_max = 100;
  // ib.port_rate: an active port below this rate (Gb/s) fails; 0 = judge against the node's
  // other ports of the same HCA type only.
  double ib_min_rate_gbps = 0;
};

// [bench]: how `gpuvet bench` judges its figures (rules/bench_rules.cc, docs/policy.md).
struct BenchThresholds {
  // A figure below this share of its expectation fails (DCGM diag-skus.yaml: targets are
  // 0.75 × a known-good measurement).
  double min_fraction_of_expected = 0.75;
  // bench.pageable_copies: warn when pageable bandwidth < this share of pinned.
  double pageable_min_ratio = 0.5;
  // bench.numa_penalty: warn when copies from the remote node lose more than this share.
  double numa_max_penalty = 0.2;
  // bench.launch_overhead: warn when launch-to-completion latency exceeds this (µs).
  double launch_latency_max_us = 20;
  // bench.regression: warn when a median drops by more than this share of the baseline's.
  double regression_max_drop = 0.10;
  // Fleet-calibrated absolute minimums by measurement id (core/bench.h), in the figure's unit;
  // they replace the built-in expectation of that figure.
  std::map<std::string, double> minimums;
};

// [fleet]: how `gpuvet fleet audit` judges nodes against their pool (docs/fleet.md). The numbers
// are gpuvet's choices unless a source is named; every one can be tuned per fleet.
struct FleetThresholds {
  // fleet.ecc_sbe_rate: corrected ECC errors per hour over the window (warn, fail). At 100/h a
  // GPU reaches ecc_corrected_volatile_warn (10000) within about four days.
  double ecc_sbe_rate_warn_per_h = 10;
  double ecc_sbe_rate_fail_per_h = 100;
  // fleet.throttling: share of the window with a thermal / HW slowdown reason active.
  double thermal_share_warn = 0.05;
  double thermal_share_fail = 0.25;
  // fleet.throttling: share of the window with the power cap or power brake active.
  double power_share_warn = 0.5;
  // fleet.bench_regression: modified z-score (0.6745 × (x − median) / MAD) at or below −z is an
  // outlier (Iglewicz & Hoaglin 1993 recommend 3.5), and it must also lose this share of the
  // pool median (warn) or the fail share.
  double bench_z = 3.5;
  double bench_min_drop = 0.10;
  double bench_fail_drop = 0.25;
  // Pools smaller than this many nodes have no majority or median to compare against.
  int min_pool_nodes = 3;
};

struct Policy {
  std::string source = "built-in defaults";  // the file it came from
  std::optional<int> expected_gpu_count;
  std::vector<std::string> allowed_driver_versions;  // globs ("550.*"); empty = any
  std::vector<std::string> allowed_cuda_versions;    // "12.4", globs; empty = any
  std::vector<std::string> allowed_vbios_versions;   // globs; empty = any (gpuvet fleet)
  Thresholds thresholds;
  std::set<std::string> skip;                          // check ids or areas
  std::map<std::string, Severity> severity_overrides;  // by check id
  BenchThresholds bench;
  FleetThresholds fleet;
};

// Parses policy TOML. Errors are InvalidInput with "FILE:LINE:COLUMN: what was expected".
Result<Policy> ParsePolicy(std::string_view toml_text, std::string_view filename);

// Reads and parses a policy file.
Result<Policy> LoadPolicy(const std::string& path);

// True when `id` (or its area, the part before the first '.') is in policy.skip.
bool IsSkipped(const Policy& policy, std::string_view id);

}  // namespace gpuvet
