// End-to-end tests of `gpuvet fleet` through the real binary: the audit of the fleet fixture
// (tests/fixtures/fleet/day) against its goldens and the policy's allowed set, and
// `fleet quarantine` against the fake scontrol and kubectl of tests/fleet (put first on PATH),
// which log their argv: the exact commands, nothing interpreted by a shell, admin drains left
// alone, undo limited to gpuvet's drains, and the circuit breaker. GPUVET_UPDATE_GOLDEN=1
// rewrites the goldens.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/fleet_catalogue.h"
#include "run_binary.h"
#include "testing/temp_tree.h"

namespace fs = std::filesystem;
using gpuvet::e2e::RunBinary;
using gpuvet::e2e::RunResult;

namespace {

constexpr const char* kNow = "2026-01-02T00:00:00Z";

fs::path FleetDir() { return fs::path(GPUVET_FIXTURES_DIR) / "fleet" / "day"; }

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

bool Updating() {
  const char* v = std::getenv("GPUVET_UPDATE_GOLDEN");
  return v && *v && std::string(v) != "0";
}

// What Slurm receives for a long reason: cut to 128 characters with "..." (quarantine_plan.h).
std::string Cut(std::string reason) {
  if (reason.size() <= 128) return reason;
  reason.resize(125);
  while (reason.back() == ' ') reason.pop_back();
  return reason + "...";
}

RunResult Gpuvet(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), GPUVET_BINARY);
  return RunBinary(args, env, 60);
}

// --- audit -------------------------------------------------------------------------------

TEST(FleetAuditE2eTest, MatchesGoldens) {
  const fs::path dir = FleetDir();
  std::string outputs[2];
  const char* formats[2] = {"json", "text"};
  for (int i = 0; i < 2; ++i) {
    RunResult r = Gpuvet({"fleet", "audit", "--reports", (dir / "reports").string(), "--now", kNow,
                          "--format", formats[i]});
    EXPECT_EQ(r.exit_code, 1) << r.err;  // nodes to quarantine
    EXPECT_EQ(r.err, "");
    outputs[i] = ReplaceAll(r.out, dir.string(), "<fixture>");
  }
  if (Updating()) {
    std::ofstream(dir / "expected.json", std::ios::binary) << outputs[0];
    std::ofstream(dir / "expected.txt", std::ios::binary) << outputs[1];
    return;
  }
  EXPECT_EQ(outputs[0], ReadText(dir / "expected.json"))
      << "JSON differs from expected.json (GPUVET_UPDATE_GOLDEN=1 to accept)";
  EXPECT_EQ(outputs[1], ReadText(dir / "expected.txt"))
      << "text differs from expected.txt (GPUVET_UPDATE_GOLDEN=1 to accept)";

  auto j = nlohmann::json::parse(outputs[0]);
  EXPECT_EQ(j["schema"], "gpuvet.fleet/v1");
  EXPECT_EQ(j["verdict"]["exit_code"], 1);
  std::set<std::string> quarantined;
  for (const auto& q : j["quarantine"]) quarantined.insert(q["node"].get<std::string>());
  EXPECT_EQ(quarantined, (std::set<std::string>{"gpu-node-02", "gpu-node-04", "gpu-node-05",
                                                "gpu-node-06", "gpu-node-08"}));
  EXPECT_EQ(j["skipped"].size(), 3u);
  // Every fleet finding id fires (not ok) somewhere in the fixture.
  std::set<std::string> fired;
  for (const auto& n : j["nodes"]) {
    for (const auto& f : n["findings"]) {
      if (f["severity"] != "ok") fired.insert(f["id"].get<std::string>());
    }
  }
  for (const gpuvet::FleetFindingInfo& info : gpuvet::FleetFindings()) {
    EXPECT_TRUE(fired.count(std::string(info.id))) << info.id << " fires in no fixture";
  }
}

TEST(FleetAuditE2eTest, PolicyAllowedSetTurnsDriftIntoFail) {
  const fs::path dir = FleetDir();
  RunResult r = Gpuvet({"fleet", "audit", "--reports", (dir / "reports").string(), "--now", kNow,
                        "--format", "json", "--policy", (dir / "policy.toml").string()});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& n : j["nodes"]) {
    if (n["node"] != "gpu-node-03") continue;
    EXPECT_TRUE(n["quarantine"].get<bool>());
    for (const auto& f : n["findings"]) {
      if (f["id"] == "fleet.driver_drift") {
        found = true;
        EXPECT_EQ(f["severity"], "fail");
        EXPECT_EQ(f["summary"], "driver 535.183.01 is not in the allowed set");
      }
    }
  }
  EXPECT_TRUE(found);
}

TEST(FleetAuditE2eTest, VerboseAddsMeaningAndDecision) {
  RunResult r = Gpuvet(
      {"fleet", "audit", "--reports", (FleetDir() / "reports").string(), "--now", kNow, "-v"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("            meaning: The GPU's PCIe link runs narrower than it can"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("            decision: Drain the node, reseat the GPU or riser"),
            std::string::npos);
}

TEST(FleetAuditE2eTest, InputErrors) {
  RunResult none = Gpuvet({"fleet", "audit"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("exactly one of --reports DIR or --prometheus URL"), std::string::npos);
  RunResult missing = Gpuvet({"fleet", "audit", "--reports", "/nonexistent/gpuvet"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("not a directory"), std::string::npos);
  gpuvet::test::TempTree empty("fleet_empty");
  empty.Write("notes.txt", "not a report\n");
  RunResult nothing = Gpuvet({"fleet", "audit", "--reports", empty.root()});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_NE(nothing.err.find("no gpuvet check or bench report found (1 files skipped, e.g. "),
            std::string::npos)
      << nothing.err;
  RunResult window = Gpuvet({"fleet", "audit", "--reports", ".", "--window", "soon"});
  EXPECT_EQ(window.exit_code, 2);
  EXPECT_NE(window.err.find("--window"), std::string::npos);
  // A --now that does not parse is a usage error naming the flag and the form, not the clock.
  for (const char* bad : {"yesterday", "2026-13-01T00:00:00Z", "2026-01-02"}) {
    RunResult now =
        Gpuvet({"fleet", "audit", "--reports", (FleetDir() / "reports").string(), "--now", bad});
    EXPECT_EQ(now.exit_code, 2) << bad << ": " << now.out;
    EXPECT_NE(now.err.find(std::string("gpuvet fleet audit: --now: '") + bad +
                           "' is not an ISO 8601 time"),
              std::string::npos)
        << now.err;
    EXPECT_NE(now.err.find("expected the form 2026-01-01T00:00:00Z"), std::string::npos) << now.err;
    EXPECT_EQ(now.out, "");
  }
  // Nothing listens on port 1: a precise message, exit 2, no hang.
  RunResult refused = Gpuvet({"fleet", "audit", "--prometheus", "http://127.0.0.1:1"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("cannot connect"), std::string::npos) << refused.err;
}

// --- quarantine against fake scontrol / kubectl ----------------------------------------------

class FleetQuarantineTest : public ::testing::Test {
 protected:
  FleetQuarantineTest() : tree_("fleet_quarantine") {
    // Copies of the fake tools with their execute bit set, first on PATH.
    for (const char* tool : {"scontrol", "kubectl"}) {
      tree_.Write(std::string("bin/") + tool, ReadText(fs::path(GPUVET_FLEET_TOOLS_DIR) / tool));
      chmod(tree_.Path(std::string("bin/") + tool).c_str(), 0755);
    }
    tree_.Write("log", "");
    SlurmNode("gpu-node-02", "IDLE", "");
    SlurmNode("gpu-node-04", "IDLE+DRAIN", "bad DIMM, ticket 4711 [admin@2026-01-01T10:00:00]");
    SlurmNode("gpu-node-05", "IDLE", "");
    SlurmNode("gpu-node-06", "MIXED", "");
    SlurmNode("gpu-node-08", "IDLE", "");
  }

  void SlurmNode(const std::string& name, const std::string& state, const std::string& reason) {
    std::string text = "NodeName=" + name + " Arch=x86_64 CoresPerSocket=32\n   State=" + state +
                       " ThreadsPerCore=2\n";
    if (!reason.empty()) text += "   Reason=" + reason + "\n";
    tree_.Write("slurm/" + name, text);
  }

  RunResult Run(std::vector<std::string> args, std::vector<std::string> extra_env = {}) {
    std::vector<std::string> env = {
        "PATH=" + tree_.Path("bin") + ":" + std::getenv("PATH"),
        "GPUVET_FAKE_LOG=" + tree_.Path("log"),
        "GPUVET_FAKE_SLURM_NODES=" + tree_.Path("slurm"),
        "GPUVET_FAKE_K8S_QUARANTINED=" + tree_.Path("k8s-quarantined"),
    };
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    args.insert(args.begin(), {"fleet", "quarantine"});
    return Gpuvet(args, env);
  }

  std::vector<std::string> FleetArgs() {
    return {"--reports", (FleetDir() / "reports").string(), "--now", kNow};
  }

  // The logged calls, each as its argv.
  std::vector<std::vector<std::string>> Calls() {
    std::vector<std::vector<std::string>> calls(1);
    std::istringstream in(ReadText(tree_.Path("log")));
    for (std::string line; std::getline(in, line);) {
      if (line == "--") {
        calls.emplace_back();
      } else {
        calls.back().push_back(line);
      }
    }
    calls.pop_back();
    return calls;
  }

  gpuvet::test::TempTree tree_;
};

using Argv = std::vector<std::string>;

TEST_F(FleetQuarantineTest, BreakerRefusesAndRunsNothing) {
  std::vector<std::string> args = FleetArgs();
  args.insert(args.end(), {"--apply", "slurm"});  // 5 of 8 nodes, default --max-fraction 0.10
  RunResult r = Run(args);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("circuit breaker: refusing to quarantine 5 of 8 nodes (62.5%); "
                       "--max-fraction 0.1 allows at most 1 at once. Nothing was changed."),
            std::string::npos)
      << r.err;
  // Only the read-only listing the breaker counts held nodes from ran.
  EXPECT_EQ(Calls(), (std::vector<Argv>{{"scontrol", "show", "node"}}));
}

TEST_F(FleetQuarantineTest, PrintModeRunsNothing) {
  std::vector<std::string> args = FleetArgs();
  args.insert(args.end(), {"--max-fraction", "1"});
  RunResult r = Run(args);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("  slurm: scontrol update NodeName=gpu-node-04 State=DRAIN "
                       "'Reason=gpuvet: gpu3: pcie.link_width_reduced: PCIe link x8, slot "
                       "supports x16, gpu3: PCIe x8 on a x16 link'"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  k8s:   kubectl taint nodes gpu-node-04 "
                       "gpuvet.io/quarantine=check_failed.pcie_downgrade:NoSchedule --overwrite"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(Calls().empty());
}

TEST_F(FleetQuarantineTest, SlurmDrainsExactlyAndLeavesAdminDrains) {
  std::vector<std::string> args = FleetArgs();
  args.insert(args.end(), {"--apply", "slurm", "--max-fraction", "0.7"});
  RunResult r = Run(args, {"GPUVET_FAKE_FAIL_NODE=gpu-node-06"});
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;  // gpu-node-06's update fails
  EXPECT_NE(r.out.find("SKIPPED gpu-node-04: already drained by someone else"), std::string::npos);
  EXPECT_NE(r.out.find("FAILED  gpu-node-06"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Invalid node name specified"), std::string::npos) << r.out;
  auto calls = Calls();
  // The breaker's listing, then in ranked order 08, 04, 06, 02, 05; each node is read before it
  // is drained.
  std::vector<Argv> expected = {
      {"scontrol", "show", "node"},
      {"scontrol", "show", "node", "gpu-node-08"},
      {"scontrol", "update", "NodeName=gpu-node-08", "State=DRAIN",
       "Reason=" +
           Cut("gpuvet: gpu0: ecc.volatile_dbe: 1 uncorrectable ECC errors since last reset, "
               "gpu0: 1 uncorrectable ECC errors since the last reset")},
      {"scontrol", "show", "node", "gpu-node-04"},
      {"scontrol", "show", "node", "gpu-node-06"},
      {"scontrol", "update", "NodeName=gpu-node-06", "State=DRAIN",
       "Reason=" +
           Cut("gpuvet: gpu2: throttle.thermal: HW thermal slowdown: GPU too hot, clocks cut "
               "hard, gpu2: throttled: thermal 68.6% of the window")},
      {"scontrol", "show", "node", "gpu-node-02"},
      {"scontrol", "update", "NodeName=gpu-node-02", "State=DRAIN",
       "Reason=gpuvet: gpu0: h2d_pinned 37.00 GB/s is 30.1% below the pool median 52.90 GB/s"},
      {"scontrol", "show", "node", "gpu-node-05"},
      {"scontrol", "update", "NodeName=gpu-node-05", "State=DRAIN",
       "Reason=gpuvet: gpu5: 109.1 corrected ECC errors per hour, rising"},
  };
  EXPECT_EQ(calls, expected);
}

TEST_F(FleetQuarantineTest, NoShellSeesTheReasonOrTheNodeName) {
  gpuvet::test::TempTree reports("fleet_evil");
  const std::string marker = tree_.Path("pwned");
  nlohmann::json check = {{"schema", "gpuvet.check/v1"},
                          {"generated_at", "2026-01-01T23:00:00Z"},
                          {"host", {{"hostname", "gpu-node-02"}}},
                          {"gpu_source", {{"driver_version", "550.90.07"}}},
                          {"gpus", nlohmann::json::array()},
                          {"findings",
                           {{{"id", "xid.critical"},
                             {"subject", "host"},
                             {"severity", "fail"},
                             {"summary", "$(touch " + marker + "); touch " + marker + " `touch " +
                                             marker + "` \"quoted\" 'single' | cat && x=y"},
                             {"evidence", nlohmann::json::array()}}}}};
  reports.Write("a.json", check.dump());
  check["host"]["hostname"] = "n1;touch " + marker;
  reports.Write("b.json", check.dump());
  RunResult r =
      Run({"--reports", reports.root(), "--now", kNow, "--apply", "slurm", "--max-fraction", "1"});
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;  // the second node name is refused
  EXPECT_NE(r.out.find("REFUSED n1;touch"), std::string::npos) << r.out;
  auto calls = Calls();
  ASSERT_EQ(calls.size(), 3u);  // the breaker's listing, show, update
  EXPECT_EQ(calls[2],
            (Argv{"scontrol", "update", "NodeName=gpu-node-02", "State=DRAIN",
                  "Reason=" + Cut("gpuvet: host: xid.critical: touch " + marker + ", touch " +
                                  marker + " touch " + marker + " quoted single cat x y")}));
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "something ran the reason through a shell";
}

TEST_F(FleetQuarantineTest, SlurmUndoOnlyGpuvetDrains) {
  SlurmNode("gpu-node-05", "IDLE+DRAIN", "gpuvet: gpu5: ECC [root@2026-01-01T10:00:00]");
  RunResult r = Run({"--undo", "gpu-node-05", "gpu-node-04", "gpu-node-02", "--apply", "slurm"});
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
  EXPECT_NE(r.out.find("REFUSED gpu-node-04: not drained by gpuvet (State=IDLE+DRAIN Reason=bad "
                       "DIMM, ticket 4711)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("REFUSED gpu-node-02: not drained by gpuvet"), std::string::npos);
  std::vector<Argv> expected = {{"scontrol", "show", "node", "gpu-node-05"},
                                {"scontrol", "update", "NodeName=gpu-node-05", "State=RESUME"},
                                {"scontrol", "show", "node", "gpu-node-04"},
                                {"scontrol", "show", "node", "gpu-node-02"}};
  EXPECT_EQ(Calls(), expected);
}

TEST_F(FleetQuarantineTest, SlurmUndoAllFindsGpuvetDrains) {
  SlurmNode("gpu-node-05", "DRAINED", "gpuvet: gpu5: ECC [root@2026-01-01T10:00:00]");
  RunResult r = Run({"--undo-all", "--apply", "slurm"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::vector<Argv> expected = {{"scontrol", "show", "node"},
                                {"scontrol", "show", "node", "gpu-node-05"},
                                {"scontrol", "update", "NodeName=gpu-node-05", "State=RESUME"}};
  EXPECT_EQ(Calls(), expected);
}

TEST_F(FleetQuarantineTest, KubernetesTaintLabelAndRelease) {
  std::vector<std::string> args = FleetArgs();
  args.insert(args.end(), {"--apply", "k8s", "--max-fraction", "0.7"});
  RunResult r = Run(args);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto calls = Calls();
  ASSERT_EQ(calls.size(), 11u);  // the breaker's listing, then taint and label per node
  EXPECT_EQ(calls[0],
            (Argv{"kubectl", "get", "nodes", "-l", "gpuvet.io/quarantined=true", "-o", "name"}));
  EXPECT_EQ(calls[1],
            (Argv{"kubectl", "taint", "nodes", "gpu-node-08",
                  "gpuvet.io/quarantine=check_failed.ecc_uncorrected:NoSchedule", "--overwrite"}));
  EXPECT_EQ(calls[2], (Argv{"kubectl", "label", "nodes", "gpu-node-08",
                            "gpuvet.io/quarantined=true", "--overwrite"}));

  tree_.Write("log", "");
  tree_.Write("k8s-quarantined", "node/gpu-node-08\nnode/gpu-node-04\n");
  RunResult undo = Run({"--undo-all", "--apply", "k8s"}, {"GPUVET_FAKE_FAIL_NODE=gpu-node-04"});
  EXPECT_EQ(undo.exit_code, 5) << undo.out << undo.err;
  std::vector<Argv> expected = {
      {"kubectl", "get", "nodes", "-l", "gpuvet.io/quarantined=true", "-o", "name"},
      {"kubectl", "taint", "nodes", "gpu-node-08", "gpuvet.io/quarantine:NoSchedule-"},
      {"kubectl", "label", "nodes", "gpu-node-08", "gpuvet.io/quarantined-"},
      {"kubectl", "taint", "nodes", "gpu-node-04", "gpuvet.io/quarantine:NoSchedule-"}};
  EXPECT_EQ(Calls(), expected);
  EXPECT_NE(undo.out.find("FAILED  gpu-node-04"), std::string::npos) << undo.out;
}

// Twenty nodes, a 10 % breaker (2 nodes), and ten runs each finding one new sick node: earlier
// runs' drains count, so only the first two runs drain and the other eight are refused. Before,
// each run saw "1 of 20" and ten runs drained ten nodes.
class FleetRepeatedRunsTest : public FleetQuarantineTest {
 protected:
  static std::string NodeName(int i) { return fmt::format("node-{:02d}", i); }

  // The reports of one run: every node healthy but `sick` (and `also_sick`).
  void WriteReports(gpuvet::test::TempTree& reports, int sick, int also_sick = 0) {
    for (int i = 1; i <= 20; ++i) {
      nlohmann::json check = {
          {"schema", "gpuvet.check/v1"},         {"generated_at", "2026-01-01T23:00:00Z"},
          {"host", {{"hostname", NodeName(i)}}}, {"gpu_source", {{"driver_version", "550.90.07"}}},
          {"gpus", nlohmann::json::array()},     {"findings", nlohmann::json::array()}};
      if (i == sick || i == also_sick) {
        check["findings"].push_back({{"id", "xid.critical"},
                                     {"subject", "gpu0"},
                                     {"severity", "fail"},
                                     {"summary", "Xid 79: GPU has fallen off the bus"},
                                     {"evidence", nlohmann::json::array()}});
      }
      reports.Write(NodeName(i) + ".json", check.dump());
    }
  }

  int Held(const std::string& apply) {
    int held = 0;
    if (apply == "k8s") {
      std::istringstream in(ReadText(tree_.Path("k8s-quarantined")));
      for (std::string line; std::getline(in, line);) held += !line.empty();
      return held;
    }
    for (int i = 1; i <= 20; ++i) {
      held +=
          ReadText(tree_.Path("slurm/" + NodeName(i))).find("Reason=gpuvet:") != std::string::npos;
    }
    return held;
  }

  void TenRuns(const std::string& apply) {
    for (int i = 1; i <= 20; ++i) SlurmNode(NodeName(i), "IDLE", "");
    tree_.Write("k8s-quarantined", "");
    for (int run = 1; run <= 10; ++run) {
      gpuvet::test::TempTree reports("fleet_runs");
      WriteReports(reports, run);
      RunResult r = Run({"--reports", reports.root(), "--now", kNow, "--apply", apply},
                        {"GPUVET_FAKE_SLURM_STATEFUL=1", "GPUVET_FAKE_K8S_STATEFUL=1"});
      if (run <= 2) {
        EXPECT_EQ(r.exit_code, 1) << "run " << run << ": " << r.out << r.err;
      } else {
        EXPECT_EQ(r.exit_code, 4) << "run " << run << ": " << r.out << r.err;
        EXPECT_NE(r.err.find("refusing to quarantine 1 more of 20 nodes: gpuvet already holds 2 "
                             "out of service from earlier runs, 3 in all would be 15.0%; "
                             "--max-fraction 0.1 allows at most 2 at once."),
                  std::string::npos)
            << r.err;
        EXPECT_NE(r.err.find("Held by gpuvet: node-01, node-02."), std::string::npos) << r.err;
      }
      EXPECT_EQ(Held(apply), std::min(run, 2)) << "after run " << run;
    }
  }
};

TEST_F(FleetRepeatedRunsTest, SlurmDrainsFromEarlierRunsCountAgainstTheBreaker) {
  TenRuns("slurm");
  EXPECT_NE(ReadText(tree_.Path("slurm/node-01")).find("State=IDLE+DRAIN"), std::string::npos);
  EXPECT_EQ(ReadText(tree_.Path("slurm/node-03")).find("DRAIN"), std::string::npos);
  // Releasing a repaired node makes room for the next one.
  RunResult undo = Run({"--undo", "node-01", "--apply", "slurm"}, {"GPUVET_FAKE_SLURM_STATEFUL=1"});
  EXPECT_EQ(undo.exit_code, 0) << undo.out << undo.err;
  gpuvet::test::TempTree reports("fleet_runs");
  WriteReports(reports, 3);
  RunResult r = Run({"--reports", reports.root(), "--now", kNow, "--apply", "slurm"},
                    {"GPUVET_FAKE_SLURM_STATEFUL=1"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(ReadText(tree_.Path("slurm/node-03")).find("Reason=gpuvet:"), std::string::npos);
}

TEST_F(FleetRepeatedRunsTest, KubernetesTaintsFromEarlierRunsCountAgainstTheBreaker) {
  TenRuns("k8s");
}

TEST_F(FleetRepeatedRunsTest, AnAdminDrainIsNotGpuvetsAndANodeAlreadyHeldCountsOnce) {
  for (int i = 1; i <= 20; ++i) SlurmNode(NodeName(i), "IDLE", "");
  // Two admin drains do not count; node-05 is held by gpuvet and sick again, node-06 is new: 1 held
  // + 1 new = 2, the limit. Counting the admin drains (4) or node-05 twice (3) would refuse.
  SlurmNode("node-10", "DRAINED", "bad DIMM [admin@2026-01-01T10:00:00]");
  SlurmNode("node-11", "DRAINED", "bad PSU [admin@2026-01-01T10:00:00]");
  SlurmNode("node-05", "IDLE+DRAIN", "gpuvet: gpu0: Xid 79 [root@2026-01-01T10:00:00]");
  gpuvet::test::TempTree reports("fleet_runs");
  WriteReports(reports, 5, 6);
  RunResult r = Run({"--reports", reports.root(), "--now", kNow, "--apply", "slurm"},
                    {"GPUVET_FAKE_SLURM_STATEFUL=1"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("1 node(s) already held out of service by gpuvet (slurm)"),
            std::string::npos)
      << r.out;
}

TEST_F(FleetRepeatedRunsTest, UnreadableClusterStateRefusesNotGuesses) {
  gpuvet::test::TempTree reports("fleet_runs");
  WriteReports(reports, 1);
  // A controller that does not answer: the listing fails, so the held nodes are unknown.
  tree_.Write("bin/scontrol",
              "#!/bin/sh\necho 'slurm_load_node error: Unable to contact slurm "
              "controller' >&2\nexit 1\n");
  chmod(tree_.Path("bin/scontrol").c_str(), 0755);
  RunResult r = Run({"--reports", reports.root(), "--now", kNow, "--apply", "slurm"});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.err.find("cannot count the nodes gpuvet already holds out of service: scontrol "
                       "show node"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Unable to contact slurm controller"), std::string::npos) << r.err;
}

}  // namespace
