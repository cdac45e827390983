#include "output/json/bench_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/bench_document.h"
#include "output/text/bench_text.h"

namespace gpuvet {
namespace {

BenchReport Sample() {
  BenchReport r;
  r.gpuvet_version = "test";
  r.generated_at = "2026-01-01T00:00:00Z";
  r.policy_source = "built-in defaults";
  r.run.mode = "quick";
  r.run.library = "libcuda.so.1";
  r.run.driver_version = 12040;
  BenchGpu g;
  g.name = "NVIDIA H100 80GB HBM3";
  g.pci_bus_id = "0000:1b:00.0";
  g.cc_major = 9;
  g.pcie_gen_loaded = Reading<int>::Of(5);
  g.pcie_width = Reading<int>::Of(8);
  g.pcie_width_max = Reading<int>::Of(16);
  r.run.gpus = {g};
  BenchMeasurement m;
  m.id = "h2d_pinned";
  m.gpu = 0;
  m.unit = "GB/s";
  m.method = "cuMemcpyHtoDAsync";
  m.samples = {23.41234, 23.5, 23.6};
  m.median = 23.5;
  m.min = 23.41234;
  m.max = 23.6;
  BenchMeasurement bf16;
  bf16.id = "bf16_tensor";
  bf16.gpu = 0;
  bf16.unit = "TFLOP/s";
  bf16.outcome = BenchOutcome::kUnavailable;
  bf16.skipped = "libcublasLt.so.* not found";
  bf16.median = bf16.min = bf16.max = 0;
  BenchMeasurement lost;
  lost.id = "d2d_copy_engine";
  lost.gpu = 0;
  lost.unit = "GB/s";
  lost.outcome = BenchOutcome::kFailed;
  lost.skipped = "cuMemcpyDtoDAsync_v2: illegal address (CUDA_ERROR_ILLEGAL_ADDRESS = 700)";
  r.run.measurements = {m, bf16, lost};
  r.expectations = {{"h2d_pinned", 0, -1, -1, 52, "H100 SXM: 52 GB/s", 23.5 / 52}};
  r.findings = {{"bench.copy_bandwidth",
                 "gpu0 (0000:1b:00.0)",
                 Severity::kFail,
                 "H2D pinned 23.5 GB/s = 45 % of the 52.0 GB/s expected",
                 {},
                 "",
                 ""}};
  r.verdict = Severity::kFail;
  return r;
}

TEST(BenchJsonTest, SchemaAndRoundTrip) {
  std::string out = RenderBenchJson(Sample());
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "gpuvet.bench/v1");
  EXPECT_EQ(j["verdict"]["exit_code"], 1);
  EXPECT_EQ(j["gpus"][0]["pcie"]["gen_max"], nullptr) << "absent reading is null, never 0";
  EXPECT_EQ(j["measurements"][0]["samples"][0], 23.412);
  EXPECT_EQ(j["measurements"][1]["skipped"], "libcublasLt.so.* not found");
  // docs/bench.md: a figure that was not measured has null values, never 0, and says why.
  EXPECT_EQ(j["measurements"][0]["status"], "measured");
  EXPECT_EQ(j["measurements"][1]["status"], "unavailable");
  EXPECT_EQ(j["measurements"][1]["median"], nullptr);
  EXPECT_EQ(j["measurements"][1]["min"], nullptr);
  EXPECT_EQ(j["measurements"][1]["max"], nullptr);
  EXPECT_EQ(j["measurements"][2]["status"], "failed");
  EXPECT_EQ(j["gpus"][0]["failed"], nullptr);
  EXPECT_EQ(j["expectations"][0]["basis"], "H100 SXM: 52 GB/s");
  EXPECT_EQ(j["findings"][0]["id"], "bench.copy_bandwidth");
  auto back = ParseBenchBaseline(out, "b.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->measurements.size(), 3u);
  EXPECT_EQ(back->measurements[0].id, "h2d_pinned");
  EXPECT_DOUBLE_EQ(back->measurements[0].median, 23.5);
  EXPECT_EQ(back->measurements[1].skipped, "libcublasLt.so.* not found");
  EXPECT_EQ(back->measurements[1].outcome, BenchOutcome::kUnavailable);
  EXPECT_EQ(back->measurements[2].outcome, BenchOutcome::kFailed);
  EXPECT_EQ(back->mode, "quick");
  ASSERT_EQ(back->bus_ids.size(), 1u);
  EXPECT_EQ(back->bus_ids[0].second, "0000:1b:00.0");
}

TEST(BenchJsonTest, OlderBaselinesWithoutStatusStillRead) {
  auto old = ParseBenchBaseline(
      R"({"schema": "gpuvet.bench/v1", "measurements": [
          {"id": "h2d_pinned", "gpu": 0, "peer": -1, "median": 53.0},
          {"id": "bf16_tensor", "gpu": 0, "peer": -1, "median": 0.0, "skipped": "no cuBLASLt"}]})",
      "old.json");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->measurements[0].outcome, BenchOutcome::kMeasured);
  EXPECT_EQ(old->measurements[1].outcome, BenchOutcome::kUnavailable);
  EXPECT_TRUE(old->mode.empty());
  EXPECT_TRUE(old->bus_ids.empty());
}

TEST(BenchJsonTest, MalformedBaselines) {
  auto garbled = ParseBenchBaseline("{\"schema\": ", "b.json");
  ASSERT_FALSE(garbled.ok());
  EXPECT_NE(garbled.status().message().find("b.json: not JSON at byte"), std::string::npos)
      << garbled.status().message();
  auto other = ParseBenchBaseline(R"({"schema": "gpuvet.check/v1"})", "c.json");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("not a gpuvet bench report"), std::string::npos);
  auto entry = ParseBenchBaseline(
      R"({"schema": "gpuvet.bench/v1", "measurements": [{"id": "x", "gpu": 0, "peer": -1}]})",
      "d.json");
  ASSERT_FALSE(entry.ok());
  EXPECT_NE(entry.status().message().find("d.json: measurements[0]: \"median\""), std::string::npos)
      << entry.status().message();
  EXPECT_FALSE(ParseBenchBaseline("", "e.json").ok());
  EXPECT_FALSE(ParseBenchBaseline("[]", "e.json").ok());
}

TEST(BenchTextTest, TableFindingsVerdict) {
  std::string out = RenderBenchText(Sample(), {});
  EXPECT_NE(out.find("gpuvet bench (quick)"), std::string::npos) << out;
  EXPECT_NE(out.find("PCIe Gen5 x8 loaded (max Gen? x16)"), std::string::npos) << out;
  EXPECT_NE(out.find("h2d_pinned"), std::string::npos);
  EXPECT_NE(out.find("23.5 GB/s"), std::string::npos);
  EXPECT_NE(out.find("52.0 GB/s"), std::string::npos);
  EXPECT_NE(out.find("0.45"), std::string::npos);
  EXPECT_NE(out.find("not measured: libcublasLt.so.* not found"), std::string::npos);
  EXPECT_NE(out.find("FAILED: cuMemcpyDtoDAsync_v2"), std::string::npos) << out;
  EXPECT_NE(out.find("FAIL    bench.copy_bandwidth"), std::string::npos);
  EXPECT_NE(out.find("verdict: UNHEALTHY (1 fail)"), std::string::npos);
  EXPECT_EQ(out.find("\033["), std::string::npos);
}

}  // namespace
}  // namespace gpuvet
