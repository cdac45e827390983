// Tests for the fleet audit over hand-built nodes: robust statistics, counter trends with resets,
// throttle shares, drift against the allowed set and the pool majority, PCIe downgrades (idle
// generation drops are not faults), benchmark regressions (MAD and drop both required), ranking
// and the quarantine decision.
#include "rules/fleet/fleet_audit.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/fleet_catalogue.h"
#include "rules/fleet/fleet_stats.h"

namespace gpuvet {
namespace {

constexpr double kNow = 1'000'000;
constexpr double kDay = 86400;

FleetGpu Gpu(int index) {
  FleetGpu g;
  g.index = index;
  g.name = "NVIDIA H100 80GB HBM3";
  g.pci_bus_id = "0000:1" + std::to_string(index) + ":00.0";
  g.vbios_version = "96.00.89.00.01";
  g.pcie_gen = 5;
  g.pcie_gen_max = 5;
  g.pcie_width = 16;
  g.pcie_width_max = 16;
  g.utilization = 0.9;
  return g;
}

FleetNode Node(const std::string& name, int gpus = 2) {
  FleetNode n;
  n.name = name;
  n.driver_version = "550.90.07";
  n.cuda_version = "12.4";
  n.last_seen = kNow - 60;
  n.has_checks = true;
  for (int i = 0; i < gpus; ++i) n.gpus.push_back(Gpu(i));
  return n;
}

std::vector<const FleetNode*> Ptrs(const std::vector<FleetNode>& nodes) {
  std::vector<const FleetNode*> out;
  for (const FleetNode& n : nodes) out.push_back(&n);
  return out;
}

std::vector<Finding> WithId(const std::vector<Finding>& all, const std::string& id) {
  std::vector<Finding> out;
  for (const Finding& f : all) {
    if (f.id == id) out.push_back(f);
  }
  return out;
}

// --- statistics ---------------------------------------------------------------------------

TEST(FleetStatsTest, MedianAndMad) {
  EXPECT_FALSE(Median({}).has_value());
  EXPECT_DOUBLE_EQ(*Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(*Median({4, 1, 3, 2}), 2.5);
  // |x - 2| = 1, 1, 0, 1, 98 -> median 1.
  EXPECT_DOUBLE_EQ(*MedianAbsoluteDeviation({1, 3, 2, 1, 100}), 1);
}

TEST(FleetStatsTest, ModifiedZ) {
  EXPECT_NEAR(ModifiedZ(10, 20, 1), -6.745, 1e-9);
  EXPECT_EQ(ModifiedZ(20, 20, 0), 0);
  EXPECT_TRUE(std::isinf(ModifiedZ(19, 20, 0)) && ModifiedZ(19, 20, 0) < 0);
}

TEST(FleetStatsTest, CounterRateAndAcceleration) {
  // 0 -> 10 over the first 10 h, 10 -> 110 over the next 10 h.
  auto t = AnalyseCounter({{0, 0}, {36000, 10}, {72000, 110}});
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->increase, 110);
  EXPECT_NEAR(t->rate_per_h, 5.5, 1e-9);
  EXPECT_NEAR(t->first_half_per_h, 1, 1e-9);
  EXPECT_NEAR(t->second_half_per_h, 10, 1e-9);
  EXPECT_TRUE(t->accelerating);
  // A steady counter is not accelerating.
  EXPECT_FALSE(AnalyseCounter({{0, 0}, {3600, 10}, {7200, 20}})->accelerating);
}

TEST(FleetStatsTest, CounterResetCountsPostResetValue) {
  auto t = AnalyseCounter({{0, 100}, {3600, 150}, {7200, 20}});  // reset between 2 and 3
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->increase, 70);
  EXPECT_EQ(t->resets, 1);
}

TEST(FleetStatsTest, CounterNeedsTwoSamplesAndASpan) {
  EXPECT_FALSE(AnalyseCounter({{0, 1}}).has_value());
  EXPECT_FALSE(AnalyseCounter({{5, 1}, {5, 2}}).has_value());
}

TEST(FleetStatsTest, ActiveShareIsTimeWeighted) {
  // On for 1 h of 4 h (the last sample holds for the median gap, 1 h).
  EXPECT_NEAR(*ActiveShare({{0, 0}, {3600, 0}, {7200, 1}, {10800, 0}}), 0.25, 1e-9);
  EXPECT_DOUBLE_EQ(*ActiveShare({{0, 1}}), 1);
  EXPECT_FALSE(ActiveShare({}).has_value());
}

// --- drift ---------------------------------------------------------------------------------

TEST(FleetDriftTest, OffPoolMajorityWarns) {
  std::vector<FleetNode> pool = {Node("a"), Node("b"), Node("c"), Node("d")};
  pool[3].driver_version = "535.183.01";
  Policy policy;
  auto f = WithId(DriftFindings(pool[3], Ptrs(pool), policy), "fleet.driver_drift");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_EQ(f[0].summary, "driver 535.183.01 differs from its pool's 550.90.07 (3 of 4 nodes)");
  EXPECT_TRUE(DriftFindings(pool[0], Ptrs(pool), policy).empty());
}

TEST(FleetDriftTest, OutsideAllowedSetFailsEvenWhenMajority) {
  std::vector<FleetNode> pool = {Node("a"), Node("b"), Node("c")};
  Policy policy;
  policy.allowed_driver_versions = {"550.127.*"};
  auto f = WithId(DriftFindings(pool[0], Ptrs(pool), policy), "fleet.driver_drift");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kFail);
  EXPECT_EQ(f[0].evidence[0].threshold, "in driver.allowed_versions [550.127.*]");
}

TEST(FleetDriftTest, SplitPoolIsInfoAndSmallPoolSaysNothing) {
  std::vector<FleetNode> pool = {Node("a"), Node("b"), Node("c"), Node("d")};
  pool[2].cuda_version = pool[3].cuda_version = "12.2";
  Policy policy;
  auto f = WithId(DriftFindings(pool[0], Ptrs(pool), policy), "fleet.cuda_drift");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  std::vector<FleetNode> two = {Node("a"), Node("b")};
  two[1].driver_version = "535.183.01";
  EXPECT_TRUE(DriftFindings(two[1], Ptrs(two), policy).empty());
}

TEST(FleetDriftTest, VbiosPerGpu) {
  std::vector<FleetNode> pool = {Node("a"), Node("b"), Node("c")};
  pool[1].gpus[1].vbios_version = "96.00.61.00.01";
  Policy policy;
  auto f = WithId(DriftFindings(pool[1], Ptrs(pool), policy), "fleet.vbios_drift");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_EQ(f[0].subject, "gpu1 (0000:11:00.0)");
  policy.allowed_vbios_versions = {"96.00.89.*"};
  f = WithId(DriftFindings(pool[1], Ptrs(pool), policy), "fleet.vbios_drift");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kFail);
}

TEST(FleetPoolTest, ModelAndCount) {
  EXPECT_EQ(PoolOf(Node("a", 8)), "NVIDIA H100 80GB HBM3 x8");
  EXPECT_EQ(PoolOf(Node("a", 0)), "no GPUs");
  EXPECT_EQ(BenchPoolOf(Node("a", 8)), "NVIDIA H100 80GB HBM3 x8 / Gen5 x16");
}

// --- checks and GPU health -----------------------------------------------------------------

TEST(FleetChecksTest, OnlyFailingChecksCount) {
  FleetNode n = Node("a");
  n.checks = {{"pcie.link_width_reduced", "gpu1 (0000:11:00.0)", Severity::kFail, "PCIe x8"},
              {"thermal.margin", "gpu0", Severity::kWarn, "close"}};
  auto f = CheckFindings(n);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].summary, "pcie.link_width_reduced: PCIe x8");
}

TEST(FleetGpuHealthTest, EccRateSeverities) {
  Policy policy;  // warn 10/h, fail 100/h
  FleetNode n = Node("a", 3);
  n.gpus[0].ecc_corrected = {{kNow - 7200, 0}, {kNow - 3600, 5}, {kNow, 10}};     // 5/h steady
  n.gpus[1].ecc_corrected = {{kNow - 7200, 0}, {kNow - 3600, 20}, {kNow, 40}};    // 20/h
  n.gpus[2].ecc_corrected = {{kNow - 7200, 0}, {kNow - 3600, 200}, {kNow, 400}};  // 200/h
  auto f = WithId(GpuHealthFindings(n, policy, kNow, kDay), "fleet.ecc_sbe_rate");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_EQ(f[1].severity, Severity::kWarn);
  EXPECT_EQ(f[2].severity, Severity::kFail);
  EXPECT_EQ(f[2].summary, "200.0 corrected ECC errors per hour");
}

TEST(FleetGpuHealthTest, AcceleratingLowRateWarnsAndOldSamplesAreIgnored) {
  Policy policy;
  FleetNode n = Node("a", 1);
  n.gpus[0].ecc_corrected = {{kNow - 3 * kDay, 0},  // outside the window: ignored
                             {kNow - 20 * 3600, 1000},
                             {kNow - 10 * 3600, 1001},
                             {kNow, 1060}};
  auto f = WithId(GpuHealthFindings(n, policy, kNow, kDay), "fleet.ecc_sbe_rate");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_EQ(f[0].summary, "3.0 corrected ECC errors per hour, rising");
}

TEST(FleetGpuHealthTest, UncorrectedFails) {
  Policy policy;
  FleetNode n = Node("a", 1);
  n.gpus[0].ecc_uncorrected = 2;
  auto f = WithId(GpuHealthFindings(n, policy, kNow, kDay), "fleet.ecc_uncorrected");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kFail);
}

TEST(FleetGpuHealthTest, PcieWidthAlwaysGenOnlyUnderLoad) {
  Policy policy;
  FleetNode n = Node("a", 3);
  n.gpus[0].pcie_width = 8;
  n.gpus[1].pcie_gen = 1;  // busy (0.9): trained down
  n.gpus[2].pcie_gen = 1;
  n.gpus[2].utilization = 0;  // idle: power saving
  auto f = WithId(GpuHealthFindings(n, policy, kNow, kDay), "fleet.pcie_downgrade");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].severity, Severity::kFail);
  EXPECT_EQ(f[0].summary, "PCIe x8 on a x16 link");
  EXPECT_EQ(f[1].severity, Severity::kWarn);
  EXPECT_EQ(f[1].summary, "PCIe Gen1 under load on a Gen5 link");
}

TEST(FleetGpuHealthTest, ThrottlingShare) {
  Policy policy;  // thermal warn 5 %, fail 25 %; power warn 50 %
  FleetNode n = Node("a", 3);
  std::vector<TimedValue> tenth;  // on 1 of 10 samples
  std::vector<TimedValue> none, most;
  for (int i = 0; i < 10; ++i) {
    tenth.push_back({kNow - 600 + 60.0 * i, i == 3 ? 1.0 : 0.0});
    none.push_back({kNow - 600 + 60.0 * i, 0});
    most.push_back({kNow - 600 + 60.0 * i, i < 8 ? 1.0 : 0.0});
  }
  n.gpus[0].thermal_active = tenth;
  n.gpus[1].thermal_active = none;
  n.gpus[1].power_active = most;
  n.gpus[2].thermal_active = most;
  auto f = WithId(GpuHealthFindings(n, policy, kNow, kDay), "fleet.throttling");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].subject, "gpu0 (0000:10:00.0)");
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_EQ(f[0].summary, "throttled: thermal 10.0% of the window");
  EXPECT_EQ(f[1].severity, Severity::kWarn);
  EXPECT_EQ(f[1].summary, "throttled: power cap 80.0% of the window");
  EXPECT_EQ(f[2].severity, Severity::kFail);
}

// --- benchmarks ----------------------------------------------------------------------------

std::vector<FleetNode> BenchPool(const std::vector<double>& h2d) {
  std::vector<FleetNode> pool;
  for (size_t i = 0; i < h2d.size(); ++i) {
    pool.push_back(Node("n" + std::to_string(i)));
    pool.back().bench = {{"h2d_pinned", 0, -1, h2d[i], "GB/s"},
                         {"launch_latency", 0, -1, i == 0 ? 9.0 : 4.0, "us"}};
  }
  return pool;
}

TEST(FleetBenchTest, OutlierBelowMedianByMadAndDrop) {
  std::vector<FleetNode> pool = BenchPool({40, 53.0, 52.6, 53.3, 52.9});
  Policy policy;
  auto found = BenchRegressions(Ptrs(pool), policy);
  ASSERT_EQ(found.size(), 1u);
  const std::vector<Finding>& f = found["n0"];
  ASSERT_EQ(f.size(), 2u);  // h2d 24.4 % low (warn) and a latency twice the pool's (fail)
  std::map<std::string, Severity> by_figure;
  for (const Finding& x : f) by_figure[x.evidence[0].name] = x.severity;
  EXPECT_EQ(by_figure["h2d_pinned"], Severity::kWarn);
  EXPECT_EQ(by_figure["launch_latency"], Severity::kFail);
}

TEST(FleetBenchTest, SmallDropInATightPoolIsNotARegression) {
  // 52.0 is many MADs below 53 but only 1.9 % lower: noise, not a regression.
  std::vector<FleetNode> pool = BenchPool({52.0, 53.0, 53.0, 53.01, 52.99});
  for (FleetNode& n : pool) n.bench.pop_back();
  EXPECT_TRUE(BenchRegressions(Ptrs(pool), Policy{}).empty());
}

TEST(FleetBenchTest, SpreadPoolNeedsTheZScoreToo) {
  // 40 is 20 % below the median 50 but the pool spreads as much: no outlier.
  std::vector<FleetNode> pool = BenchPool({40, 50, 60, 45, 55});
  for (FleetNode& n : pool) n.bench.pop_back();
  EXPECT_TRUE(BenchRegressions(Ptrs(pool), Policy{}).empty());
}

TEST(FleetBenchTest, PoolTooSmall) {
  std::vector<FleetNode> pool = BenchPool({10, 53});
  EXPECT_TRUE(BenchRegressions(Ptrs(pool), Policy{}).empty());
}

// --- the whole audit ------------------------------------------------------------------------

TEST(FleetAuditTest, RanksWorstFirstAndQuarantinesFails) {
  FleetInput in;
  in.now = kNow;
  in.window_s = kDay;
  in.nodes = {Node("healthy"), Node("x8"), Node("drift"), Node("stale"), Node("ok2")};
  in.nodes[1].gpus[1].pcie_width = 8;
  in.nodes[2].driver_version = "535.183.01";
  in.nodes[3].last_seen = kNow - 2 * kDay;
  FleetReport r = AuditFleet(in, Policy{});
  ASSERT_EQ(r.nodes.size(), 5u);
  EXPECT_EQ(r.nodes[0].node, "x8");
  EXPECT_TRUE(r.nodes[0].quarantine);
  EXPECT_EQ(r.nodes[0].reason, "gpu1: PCIe x8 on a x16 link");
  EXPECT_EQ(r.nodes[0].reason_ids, std::vector<std::string>{"fleet.pcie_downgrade"});
  EXPECT_EQ(r.nodes[1].node, "drift");  // warn, score 10; stale warns too: name breaks the tie
  EXPECT_EQ(r.nodes[2].node, "stale");
  EXPECT_EQ(r.nodes[2].findings[0].id, "fleet.stale");
  EXPECT_FALSE(r.nodes[1].quarantine);
  EXPECT_EQ(r.nodes[3].node, "healthy");
  EXPECT_EQ(r.nodes[4].node, "ok2");
  EXPECT_EQ(r.verdict, Severity::kFail);
}

TEST(FleetAuditTest, StaleAfterItsOwnLimit) {
  // The Prometheus reader sets a short limit: not scraped for 10 minutes is not current.
  FleetInput in;
  in.now = kNow;
  in.window_s = kDay;
  in.stale_after_s = 300;
  in.nodes = {Node("gone"), Node("here")};
  in.nodes[0].last_seen = kNow - 600;
  FleetReport r = AuditFleet(in, Policy{});
  ASSERT_EQ(r.nodes[0].node, "gone");
  ASSERT_EQ(r.nodes[0].findings.size(), 1u);
  EXPECT_EQ(r.nodes[0].findings[0].summary,
            "newest data is 600 s old, older than the limit (300 s)");
  EXPECT_TRUE(r.nodes[1].findings.empty());
}

TEST(FleetPolicyTest, FleetTableAndVbiosAllowList) {
  auto p = ParsePolicy(
      "[driver]\nallowed_vbios_versions = [\"96.00.89.*\"]\n"
      "[fleet]\necc_sbe_rate_fail_per_h = 50\nbench_z = 5\nmin_pool_nodes = 4\n",
      "p.toml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->allowed_vbios_versions, std::vector<std::string>{"96.00.89.*"});
  EXPECT_DOUBLE_EQ(p->fleet.ecc_sbe_rate_fail_per_h, 50);
  EXPECT_DOUBLE_EQ(p->fleet.bench_z, 5);
  EXPECT_EQ(p->fleet.min_pool_nodes, 4);
  auto bad = ParsePolicy("[fleet]\nthermal_share = 0.1\n", "p.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "p.toml:2:1: unknown key 'fleet.thermal_share' (docs/policy.md lists them)");
  EXPECT_FALSE(ParsePolicy("[fleet]\nthermal_share_warn = 2\n", "p.toml").ok());
  EXPECT_FALSE(ParsePolicy("[fleet]\nmin_pool_nodes = 1\n", "p.toml").ok());
}

TEST(FleetCatalogueTest, SortedCompleteAndKnown) {
  auto all = FleetFindings();
  for (size_t i = 0; i < all.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(all[i - 1].id, all[i].id);
    }
    EXPECT_TRUE(all[i].id.starts_with("fleet."));
    EXPECT_FALSE(all[i].title.empty());
    EXPECT_FALSE(all[i].meaning.empty());
    EXPECT_FALSE(all[i].decision.empty());
  }
  EXPECT_EQ(FindFleetFinding("fleet.nope"), nullptr);
}

}  // namespace
}  // namespace gpuvet
