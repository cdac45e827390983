// Tests for CheckNetwork over hand-built InfiniBand states: each finding id (ib.port_state,
// ib.port_rate, ib.port_errors, ib.gpu_nic_affinity) through its ok, fail, warn, info and unknown
// branches, and the policy budgets.
#include <gtest/gtest.h>

#include "rules/rules.h"
#include "testing/findings.h"
#include "testing/rule_check.h"

namespace gpuvet {
namespace {

using test::FindingsWithId;
using test::OnlyFinding;

IbPort Port(int n, const std::string& state, const std::string& phys, double rate, int width,
            const std::string& layer = "InfiniBand") {
  IbPort p;
  p.port = n;
  p.link_layer = Reading<std::string>::Of(layer);
  p.state = Reading<std::string>::Of(state);
  p.phys_state = Reading<std::string>::Of(phys);
  p.rate_gbps = Reading<double>::Of(rate);
  p.width = Reading<int>::Of(width);
  p.speed_name = "HDR";
  for (const char* c : {"symbol_error", "link_downed", "link_error_recovery", "port_rcv_errors",
                        "port_xmit_discards", "port_rcv_remote_physical_errors"}) {
    p.counters[c] = 0;
  }
  return p;
}

IbDevice Hca(const std::string& name, std::vector<IbPort> ports) {
  IbDevice d;
  d.name = name;
  d.hca_type = "MT4123";
  d.ports = std::move(ports);
  return d;
}

// Four HDR HCAs, every port up at 4X 200 Gb/s.
HostState FourHdr() {
  HostState h;
  h.uptime_s = Reading<double>::Of(864000);
  InfinibandState ib;
  for (int i = 0; i < 4; ++i) {
    ib.devices.push_back(Hca("mlx5_" + std::to_string(i), {Port(1, "ACTIVE", "LinkUp", 200, 4)}));
  }
  h.infiniband = Reading<InfinibandState>::Of(ib);
  return h;
}

std::vector<Finding> RunNet(const HostState& h, const Policy& policy = Policy{}) {
  return test::RunCheck(CheckNetwork, h, GpuInventory{}, policy);
}

TEST(NetworkRulesTest, NoRdmaDevicesSaysNothing) {
  HostState h;
  h.infiniband = Reading<InfinibandState>::Unsupported("/sys/class/infiniband absent");
  EXPECT_TRUE(RunNet(h).empty());
  h.infiniband = Reading<InfinibandState>::Error("cannot list /sys/class/infiniband: EACCES");
  EXPECT_EQ(OnlyFinding(RunNet(h), "ib.port_state").severity, Severity::kUnknown);
}

TEST(NetworkRulesTest, HealthyPortsAreOk) {
  auto f = RunNet(FourHdr());
  for (const char* id : {"ib.port_state", "ib.port_rate", "ib.port_errors"}) {
    auto fs = FindingsWithId(f, id);
    ASSERT_EQ(fs.size(), 4u) << id;
    for (const Finding& x : fs) EXPECT_EQ(x.severity, Severity::kOk) << id << ": " << x.summary;
  }
}

TEST(NetworkRulesTest, PortDownWhilePeersUpFails) {
  HostState h = FourHdr();
  auto& ib = h.infiniband.value;
  ib.devices[2].ports[0] = Port(1, "DOWN", "Polling", 10, 4);
  Finding f = OnlyFinding(RunNet(h), "ib.port_state", "mlx5_2 port 1");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_NE(f.summary.find("peers are up"), std::string::npos) << f.summary;
  // A down port is judged by its state alone, not for rate.
  EXPECT_EQ(test::CountFindings(RunNet(h), "ib.port_rate"), 3);
}

TEST(NetworkRulesTest, UncabledSecondPortsAreInfoAndNoPortUpWarns) {
  HostState h = FourHdr();
  auto& ib = h.infiniband.value;
  for (IbDevice& d : ib.devices) d.ports.push_back(Port(2, "DOWN", "Disabled", 10, 4));
  Finding f = OnlyFinding(RunNet(h), "ib.port_state", "mlx5_0 port 2");
  EXPECT_EQ(f.severity, Severity::kInfo);
  for (IbDevice& d : ib.devices) d.ports.erase(d.ports.begin());
  f = OnlyFinding(RunNet(h), "ib.port_state", "mlx5_0 port 2");
  EXPECT_EQ(f.severity, Severity::kWarn) << f.summary;
}

TEST(NetworkRulesTest, InitWithLinkUpFailsNamingTheSubnetManager) {
  HostState h = FourHdr();
  h.infiniband.value.devices[0].ports[0] = Port(1, "INIT", "LinkUp", 200, 4);
  Finding f = OnlyFinding(RunNet(h), "ib.port_state", "mlx5_0 port 1");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_NE(f.summary.find("subnet manager"), std::string::npos);
}

TEST(NetworkRulesTest, HalfWidthFailsSlowerSpeedWarnsPolicyFloorFails) {
  HostState h = FourHdr();
  auto& ib = h.infiniband.value;
  ib.devices[1].ports[0] = Port(1, "ACTIVE", "LinkUp", 100, 2);
  ib.devices[3].ports[0] = Port(1, "ACTIVE", "LinkUp", 100, 4);  // EDR speed at 4X
  auto f = RunNet(h);
  Finding half = OnlyFinding(f, "ib.port_rate", "mlx5_1 port 1");
  EXPECT_EQ(half.severity, Severity::kFail);
  EXPECT_NE(half.summary.find("2X of the 4X"), std::string::npos) << half.summary;
  EXPECT_NE(half.summary.find("50 %"), std::string::npos) << half.summary;
  EXPECT_EQ(OnlyFinding(f, "ib.port_rate", "mlx5_3 port 1").severity, Severity::kWarn);
  EXPECT_EQ(OnlyFinding(f, "ib.port_rate", "mlx5_0 port 1").severity, Severity::kOk);
  // One port alone has no peers; the policy's floor judges it.
  HostState one;
  InfinibandState solo;
  solo.devices.push_back(Hca("mlx5_0", {Port(1, "ACTIVE", "LinkUp", 100, 4)}));
  one.infiniband = Reading<InfinibandState>::Of(solo);
  EXPECT_EQ(OnlyFinding(RunNet(one), "ib.port_rate").severity, Severity::kOk);
  Policy p;
  p.thresholds.ib_min_rate_gbps = 200;
  EXPECT_EQ(OnlyFinding(RunNet(one, p), "ib.port_rate").severity, Severity::kFail);
  // RoCE ports are not peers of InfiniBand ports.
  solo.devices.push_back(Hca("mlx5_1", {Port(1, "ACTIVE", "LinkUp", 400, 4, "Ethernet")}));
  one.infiniband = Reading<InfinibandState>::Of(solo);
  EXPECT_EQ(OnlyFinding(RunNet(one), "ib.port_rate", "mlx5_0 port 1").severity, Severity::kOk);
}

TEST(NetworkRulesTest, ErrorCountersOverBudgetWarn) {
  HostState h = FourHdr();
  auto& ib = h.infiniband.value;
  ib.devices[0].ports[0].counters["symbol_error"] = 11;
  ib.devices[1].ports[0].counters["symbol_error"] = 10;  // at the budget: fine
  ib.devices[2].ports[0].counter_errors.push_back("counters/link_downed: 'x' is not a count");
  auto f = RunNet(h);
  Finding over = OnlyFinding(f, "ib.port_errors", "mlx5_0 port 1");
  EXPECT_EQ(over.severity, Severity::kWarn);
  EXPECT_NE(over.summary.find("11 symbol errors"), std::string::npos) << over.summary;
  EXPECT_NE(over.summary.find("10.0 days"), std::string::npos) << over.summary;
  EXPECT_EQ(test::EvidenceValue(over, "symbol_error"), "11");
  EXPECT_EQ(OnlyFinding(f, "ib.port_errors", "mlx5_1 port 1").severity, Severity::kOk);
  EXPECT_EQ(OnlyFinding(f, "ib.port_errors", "mlx5_2 port 1").severity, Severity::kUnknown);
  Policy p;
  p.thresholds.ib_symbol_error_max = 100;
  EXPECT_EQ(OnlyFinding(RunNet(h, p), "ib.port_errors", "mlx5_0 port 1").severity, Severity::kOk);
}

TEST(NetworkRulesTest, GpuWhoseNearestNicIsOnTheOtherSocketWarns) {
  HostState h = FourHdr();
  auto& ib = h.infiniband.value;
  GpuNicPath local{"0000:18:00.0",      "mlx5_0",  "PHB", Reading<int>::Of(0),
                   Reading<int>::Of(0), {"mlx5_0"}};
  GpuNicPath far{"0000:9a:00.0", "mlx5_0", "SYS", Reading<int>::Of(1), Reading<int>::Of(0), {}};
  GpuNicPath unknown{"0000:ab:00.0",      "mlx5_0", "?", Reading<int>::Unsupported("-1"),
                     Reading<int>::Of(0), {}};
  ib.gpu_paths = {local, far, unknown};
  auto f = FindingsWithId(RunNet(h), "ib.gpu_nic_affinity");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].severity, Severity::kOk);
  EXPECT_EQ(f[1].severity, Severity::kWarn);
  EXPECT_NE(f[1].summary.find("inter-socket"), std::string::npos);
  EXPECT_EQ(f[2].severity, Severity::kUnknown);
}

}  // namespace
}  // namespace gpuvet
