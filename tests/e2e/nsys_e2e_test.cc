// `gpuvet trace` end to end over synthetic Nsight Systems exports: the real binary reaches a real
// verdict on a realistic window, splits a multi-process (torchrun) export into ranks, and counts
// whole-graph executions as busy time. The .sqlite files are built at test time from
// tests/data/nsys/make_synthetic.sql with the sqlite3 C API (no binary is checked in).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_binary.h"
#include "testing/nsys_export_for_test.h"

namespace gpuvet::e2e {
namespace {

namespace fs = std::filesystem;

// The export builder the reader tests use (testing/nsys_export_for_test.h).
using nsys_test::BuildExport;

nlohmann::json TraceJson(const std::string& path) {
  RunResult r = RunBinary({GPUVET_BINARY, "trace", path, "--format", "json"}, {}, 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

TEST(NsysE2eTest, HostBoundLoopGetsARealVerdict) {
  // 20 steps of 4 ms; the GPU works 0.8 ms of each and waits on the host the rest.
  nlohmann::json j = TraceJson(BuildExport("steps"));
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["verdict"]["label"], "host_cpu_bound") << j["verdict"].dump();
  EXPECT_EQ(j["verdict"]["confidence"], "high");
  ASSERT_EQ(j["ranks"].size(), 1u);
  const nlohmann::json& rank = j["ranks"][0];
  EXPECT_EQ(rank["verdict"]["label"], "host_cpu_bound");
  // HTA excludes the last step: span 1.0 .. 74.2 ms, busy 19 x 0.8 ms.
  double idle = rank["temporal_breakdown"]["idle_pct"].get<double>();
  EXPECT_NEAR(idle, 100.0 * (73.2 - 19 * 0.8) / 73.2, 0.1) << rank["temporal_breakdown"].dump();
  EXPECT_EQ(rank["steps"].size(), 20u) << rank["steps"].dump();

  // Text output names the verdict as well.
  RunResult text =
      RunBinary({GPUVET_BINARY, "trace", BuildExport("steps"), "--color", "never"}, {}, 60);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("verdict: host_cpu_bound"), std::string::npos) << text.out;
}

TEST(NsysE2eTest, TorchrunExportIsAnalysedPerRank) {
  // Before the split, device 1's kernels filled device 0's gaps and the verdict was
  // compute_bound; each rank's GPU is in fact idle half of the time, waiting on its host.
  nlohmann::json j = TraceJson(BuildExport("multigpu"));
  ASSERT_FALSE(j.is_discarded());
  ASSERT_EQ(j["ranks"].size(), 2u);
  for (int rank = 0; rank < 2; ++rank) {
    const nlohmann::json& r = j["ranks"][rank];
    EXPECT_EQ(r["rank"], rank);
    EXPECT_EQ(r["subject"], "rank " + std::to_string(rank));
    EXPECT_NEAR(r["temporal_breakdown"]["idle_pct"].get<double>(), 49.95, 0.1);
    EXPECT_EQ(r["verdict"]["label"], "host_cpu_bound") << r["verdict"].dump();
  }
  EXPECT_EQ(j["verdict"]["label"], "host_cpu_bound") << j["verdict"].dump();
}

TEST(NsysE2eTest, CudaGraphExecutionsAreBusyTime) {
  // --cuda-graph-trace=graph: 20 ms of graph execution in a 20.95 ms span. Unread, the
  // trace had no GPU op at all.
  nlohmann::json j = TraceJson(BuildExport("graphs"));
  ASSERT_FALSE(j.is_discarded());
  ASSERT_EQ(j["ranks"].size(), 1u);
  const nlohmann::json& r = j["ranks"][0];
  EXPECT_EQ(r["has_gpu_ops"], true);
  EXPECT_NEAR(r["temporal_breakdown"]["idle_pct"].get<double>(), 100.0 * 0.95 / 20.95, 0.1);
  EXPECT_NE(r["verdict"]["label"], "host_cpu_bound");
  EXPECT_NE(r["verdict"]["label"], "no_gpu_activity");
}

}  // namespace
}  // namespace gpuvet::e2e
