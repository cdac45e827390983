// Tests for quarantine planning: node-name safety, the Slurm reason sanitiser (metacharacters,
// quotes, control bytes, length), taint values in label-value syntax, the exact argv of every
// command, the circuit breaker, and `scontrol show node` parsing that undo relies on.
#include "rules/fleet/quarantine_plan.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

TEST(QuarantinePlanTest, NodeNames) {
  EXPECT_TRUE(IsSafeNodeName("gpu-node-01"));
  EXPECT_TRUE(IsSafeNodeName("n1.cluster.local"));
  for (const char* bad : {"", "-rf", "n[1-9]", "a,b", "a b", "a;b", "$(id)", "node-", "ä"}) {
    EXPECT_FALSE(IsSafeNodeName(bad)) << bad;
  }
  EXPECT_FALSE(IsSafeNodeName(std::string(254, 'a')));
}

TEST(QuarantinePlanTest, ReasonSanitiser) {
  EXPECT_EQ(SanitizeSlurmReason("gpu3: PCIe x8 on a x16 link"),
            "gpuvet: gpu3: PCIe x8 on a x16 link");
  EXPECT_EQ(SanitizeSlurmReason("a; b"), "gpuvet: a, b");
  EXPECT_EQ(SanitizeSlurmReason("$(touch /tmp/x); \"q\" 'r' `id` | rm & <in >out \\ x=y\n\tz"),
            "gpuvet: touch /tmp/x, q r id rm in out x y z");
  EXPECT_EQ(SanitizeSlurmReason(""), "gpuvet: unhealthy");
  EXPECT_EQ(SanitizeSlurmReason("\"\"''"), "gpuvet: unhealthy");
  std::string long_reason = SanitizeSlurmReason(std::string(500, 'a'));
  EXPECT_EQ(long_reason.size(), kMaxReasonLength);
  EXPECT_TRUE(long_reason.ends_with("..."));
  for (unsigned char c : SanitizeSlurmReason("caf\xc3\xa9 \x01\x7f end")) {
    EXPECT_TRUE(c >= 0x20 && c < 0x7f);
  }
}

TEST(QuarantinePlanTest, TaintValues) {
  EXPECT_EQ(TaintValue({"fleet.pcie_downgrade", "fleet.check_failed"}),
            "pcie_downgrade.check_failed");
  EXPECT_EQ(TaintValue({}), "unhealthy");
  EXPECT_EQ(TaintValue({"fleet.$(x) y"}), "x__y");
  std::string many = TaintValue({"fleet.ecc_uncorrected", "fleet.pcie_downgrade",
                                 "fleet.bench_regression", "fleet.check_failed"});
  EXPECT_LE(many.size(), 63u);
  EXPECT_TRUE(IsLabelValue(many)) << many;
  EXPECT_FALSE(IsLabelValue("a b"));
  EXPECT_FALSE(IsLabelValue("-a"));
  EXPECT_FALSE(IsLabelValue(std::string(64, 'a')));
}

TEST(QuarantinePlanTest, ExactCommands) {
  EXPECT_EQ(SlurmDrain("n1", "gpuvet: x"),
            (Argv{"scontrol", "update", "NodeName=n1", "State=DRAIN", "Reason=gpuvet: x"}));
  EXPECT_EQ(SlurmResume("n1"), (Argv{"scontrol", "update", "NodeName=n1", "State=RESUME"}));
  EXPECT_EQ(SlurmShowNode("n1"), (Argv{"scontrol", "show", "node", "n1"}));
  auto q = K8sQuarantine("n1", "pcie_downgrade");
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0], (Argv{"kubectl", "taint", "nodes", "n1",
                        "gpuvet.io/quarantine=pcie_downgrade:NoSchedule", "--overwrite"}));
  EXPECT_EQ(q[1],
            (Argv{"kubectl", "label", "nodes", "n1", "gpuvet.io/quarantined=true", "--overwrite"}));
  auto r = K8sRelease("n1");
  EXPECT_EQ(r[0], (Argv{"kubectl", "taint", "nodes", "n1", "gpuvet.io/quarantine:NoSchedule-"}));
  EXPECT_EQ(r[1], (Argv{"kubectl", "label", "nodes", "n1", "gpuvet.io/quarantined-"}));
  EXPECT_EQ(FormatCommand(SlurmDrain("n1", "gpuvet: it's")),
            "scontrol update NodeName=n1 State=DRAIN 'Reason=gpuvet: it'\\''s'");
}

TEST(QuarantinePlanTest, Breaker) {
  EXPECT_TRUE(CheckBreaker(1, 100, 0.10).allowed);
  EXPECT_TRUE(CheckBreaker(10, 100, 0.10).allowed);
  BreakerDecision d = CheckBreaker(11, 100, 0.10);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.limit, 10);
  EXPECT_NE(d.message.find("refusing to quarantine 11 of 100 nodes (11.0%)"), std::string::npos);
  // One node is always allowed, even in a small fleet.
  EXPECT_TRUE(CheckBreaker(1, 4, 0.10).allowed);
  EXPECT_FALSE(CheckBreaker(2, 4, 0.10).allowed);
  EXPECT_TRUE(CheckBreaker(3, 4, 0.75).allowed);
}

TEST(QuarantinePlanTest, ParsesScontrolShowNode) {
  constexpr char kText[] =
      "NodeName=gpu01 Arch=x86_64 CoresPerSocket=32\n"
      "   CPUAlloc=0 CPUTot=64 CPULoad=0.01\n"
      "   State=IDLE+DRAIN ThreadsPerCore=2 TmpDisk=0 Weight=1\n"
      "   Reason=gpuvet: gpu3: PCIe x8 on a x16 link [root@2026-11-30T08:00:00]\n"
      "\n"
      "NodeName=gpu02 Arch=x86_64 CoresPerSocket=32\n"
      "   State=DRAINED ThreadsPerCore=2\n"
      "   Reason=bad DIMM, ticket 4711 [admin@2026-11-29T10:00:00]\n"
      "\n"
      "NodeName=gpu03 Arch=x86_64\n"
      "   State=MIXED ThreadsPerCore=2\n";
  auto nodes = ParseScontrolShowNode(kText);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0].name, "gpu01");
  EXPECT_EQ(nodes[0].reason, "gpuvet: gpu3: PCIe x8 on a x16 link");
  EXPECT_TRUE(nodes[0].drained());
  EXPECT_TRUE(nodes[0].set_by_gpuvet());
  EXPECT_EQ(nodes[1].reason, "bad DIMM, ticket 4711");
  EXPECT_TRUE(nodes[1].drained());
  EXPECT_FALSE(nodes[1].set_by_gpuvet());
  EXPECT_FALSE(nodes[2].drained());
  EXPECT_TRUE(nodes[2].reason.empty());
}

TEST(QuarantinePlanTest, BreakerCountsNodesAlreadyHeld) {
  std::vector<std::string> fleet;
  for (int i = 1; i <= 20; ++i) fleet.push_back("n" + std::to_string(i));
  // 10 % of 20 = 2: one new node on top of one held is allowed, on top of two it is not.
  EXPECT_TRUE(CheckBreaker({"n2"}, {"n1"}, fleet, 0.10).allowed);
  BreakerDecision d = CheckBreaker({"n3"}, {"n1", "n2"}, fleet, 0.10);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.requested, 1);
  EXPECT_EQ(d.already, 2);
  EXPECT_EQ(d.limit, 2);
  EXPECT_NE(d.message.find("refusing to quarantine 1 more of 20 nodes: gpuvet already holds 2"),
            std::string::npos)
      << d.message;
  EXPECT_NE(d.message.find("Held by gpuvet: n1, n2."), std::string::npos) << d.message;
  // A requested node gpuvet already holds counts once; nothing new is always allowed.
  EXPECT_TRUE(CheckBreaker({"n1", "n2"}, {"n1", "n2"}, fleet, 0.10).allowed);
  EXPECT_TRUE(CheckBreaker({"n2", "n3"}, {"n2"}, fleet, 0.10).allowed);
  // Held nodes outside the audit are part of the fleet: 2 of 10 audited + 2 held elsewhere = 12,
  // limit 1, so even one new node is refused.
  std::vector<std::string> small(fleet.begin(), fleet.begin() + 10);
  d = CheckBreaker({"n1"}, {"x1", "x2"}, small, 0.10);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.fleet_size, 12);
  // More than five held nodes are summarised.
  d = CheckBreaker({"n9"}, {"n1", "n2", "n3", "n4", "n5", "n6", "n7"}, fleet, 0.10);
  EXPECT_NE(d.message.find("Held by gpuvet: n1, n2, n3, n4, n5, and 2 more."), std::string::npos)
      << d.message;
}

TEST(QuarantinePlanTest, HeldNodesFromSlurmAndKubectl) {
  auto nodes = ParseScontrolShowNode(
      "NodeName=a\n State=IDLE+DRAIN\n Reason=gpuvet: x [root@t]\n"
      "NodeName=b\n State=DRAINED\n Reason=admin [root@t]\n"
      "NodeName=c\n State=IDLE\n Reason=gpuvet: resumed but reason kept\n");
  EXPECT_EQ(SlurmNodesHeldByGpuvet(nodes), (std::vector<std::string>{"a"}));
  EXPECT_EQ(ParseKubectlNodeNames("node/n1\n\n  node/n2  \nn3\n"),
            (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_TRUE(ParseKubectlNodeNames("").empty());
}

}  // namespace
}  // namespace gpuvet
