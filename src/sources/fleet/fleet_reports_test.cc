// Tests for the fleet report reader: schema recognition and precise skip reasons, ISO times,
// several reports per node over time (newest state, series from all), bench reports joined to
// their node through the directory, and a directory of garbage that never aborts the read.
#include "sources/fleet/fleet_reports.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/bench_document.h"
#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

std::string CheckReport(const std::string& host, const std::string& at, int sbe,
                        const std::string& driver = "550.90.07", int width = 16) {
  using nlohmann::json;
  const std::string subject = "gpu0 (0000:18:00.0)";
  auto finding = [&](const char* id, const char* sev, const char* name, std::string value) {
    return json{{"id", id},
                {"subject", subject},
                {"severity", sev},
                {"summary", ""},
                {"evidence", json::array({{{"name", name}, {"value", value}}})}};
  };
  json doc = {
      {"schema", "gpuvet.check/v1"},
      {"generated_at", at},
      {"host", {{"hostname", host}}},
      {"gpu_source", {{"driver_version", driver}, {"cuda_version", "12.4"}}},
      {"gpus",
       json::array(
           {{{"index", 0},
             {"name", "NVIDIA H100 80GB HBM3"},
             {"uuid", "GPU-1"},
             {"pci_bus_id", "0000:18:00.0"},
             {"vbios_version", "96.00.89.00.01"},
             {"gpu_util_pct", 97},
             {"pcie", {{"gen", 5}, {"gen_max", 5}, {"width", width}, {"width_max", 16}}}}})},
      {"findings",
       json::array({finding("ecc.volatile_sbe", "ok", "corrected_volatile", std::to_string(sbe)),
                    finding("ecc.volatile_dbe", "ok", "uncorrected_volatile", "0"),
                    finding("throttle.thermal", "ok", "clock_event_reasons", "0x40"),
                    json{{"id", "cpu.governor"},
                         {"subject", "host"},
                         {"severity", "warn"},
                         {"summary", "powersave"},
                         {"evidence", json::array()}}})}};
  return doc.dump();
}

constexpr char kBench[] = R"({"schema": "gpuvet.bench/v1", "generated_at": "2026-01-01T12:00:00Z",
  "measurements": [
    {"id": "h2d_pinned", "gpu": 0, "peer": -1, "median": 52.5, "unit": "GB/s", "skipped": null},
    {"id": "bf16_tensor", "gpu": 0, "peer": -1, "median": 0, "unit": "TFLOP/s", "skipped": "no lib"}]})";

TEST(FleetReportsTest, SkipReasonsArePrecise) {
  auto r = ParseFleetReport("{\"schema\": \"x/v1\"}", "f");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "schema \"x/v1\" is not gpuvet.check/v1 or gpuvet.bench/v1");
  EXPECT_EQ(ParseFleetReport("{\"a\":", "f").status().message(), "not JSON (byte 6)");
  EXPECT_EQ(ParseFleetReport("[]", "f").status().message(), "no \"schema\": not a gpuvet report");
  EXPECT_EQ(ParseFleetReport(
                R"({"schema": "gpuvet.check/v1", "generated_at": "2026-01-01T00:00:00Z"})", "f")
                .status()
                .message(),
            "check report without host.hostname");
  EXPECT_NE(ParseFleetReport(R"({"schema": "gpuvet.check/v1", "generated_at": 5})", "f")
                .status()
                .message()
                .find("generated_at"),
            std::string::npos);
}

TEST(FleetReportsTest, NewestStateAndSeriesOverTime) {
  test::TempTree tree("fleet_reports");
  tree.Write("n1/a.json", CheckReport("n1", "2026-01-01T00:00:00Z", 10, "535.183.01", 8));
  tree.Write("n1/b.json", CheckReport("n1", "2026-01-01T10:00:00Z", 110));
  tree.Write("n1/bench.json", kBench);
  tree.Write("n2/c.json", CheckReport("n2", "2026-01-01T05:00:00Z", 0));
  tree.Write("junk/notes.txt", "hello");
  tree.Write("junk/empty.json", "");
  auto in = ReadFleetReports(tree.root(), 1767268800 /* 2026-01-01T12:00Z */, 86400);
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(in->nodes.size(), 2u);
  EXPECT_EQ(in->skipped.size(), 2u);
  const FleetNode& n1 = in->nodes[0];
  EXPECT_EQ(n1.name, "n1");
  EXPECT_EQ(n1.driver_version, "550.90.07");  // the newest report wins
  ASSERT_EQ(n1.gpus.size(), 1u);
  EXPECT_EQ(*n1.gpus[0].pcie_width, 16);
  EXPECT_DOUBLE_EQ(*n1.gpus[0].utilization, 0.97);
  ASSERT_EQ(n1.gpus[0].ecc_corrected.size(), 2u);
  EXPECT_DOUBLE_EQ(n1.gpus[0].ecc_corrected[1].v, 110);
  ASSERT_EQ(n1.gpus[0].thermal_active.size(), 2u);
  EXPECT_DOUBLE_EQ(n1.gpus[0].thermal_active[0].v, 1);
  EXPECT_DOUBLE_EQ(*n1.gpus[0].ecc_uncorrected, 0);
  ASSERT_EQ(n1.checks.size(), 1u);
  EXPECT_EQ(n1.checks[0].check, "cpu.governor");
  ASSERT_EQ(n1.bench.size(), 1u);  // the skipped figure is left out
  EXPECT_EQ(n1.bench[0].id, "h2d_pinned");
  EXPECT_EQ(n1.sources.size(), 3u);
  EXPECT_DOUBLE_EQ(n1.last_seen, 1767268800);  // the bench report is the newest
}

TEST(FleetReportsTest, BenchWithoutCheckTakesTheDirectoryName) {
  test::TempTree tree("fleet_reports");
  tree.Write("gpu-node-09/bench.json", kBench);
  auto in = ReadFleetReports(tree.root(), 1767268800, 86400);
  ASSERT_TRUE(in.ok());
  ASSERT_EQ(in->nodes.size(), 1u);
  EXPECT_EQ(in->nodes[0].name, "gpu-node-09");
}

TEST(FleetReportsTest, HostileNumbersAreIgnored) {
  auto r = ParseFleetReport(
      R"({"schema": "gpuvet.bench/v1", "generated_at": "2026-01-01T00:00:00Z",
          "gpus": [{"index": 1e300, "pcie": {"gen_max": "five"}}],
          "measurements": [{"id": "h2d_pinned", "gpu": -1e300, "peer": 0.5, "median": 1}]})",
      "f");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->gpus.size(), 1u);
  EXPECT_EQ(r->gpus[0].index, -1);
  EXPECT_FALSE(r->gpus[0].pcie_gen_max.has_value());
  ASSERT_EQ(r->bench.size(), 1u);
  EXPECT_EQ(r->bench[0].gpu, -1);
  EXPECT_EQ(r->bench[0].peer, -1);
}

// Issue 16: a number that does not fit made the whole audit an internal error; now only that
// report is skipped, with a message naming the field.
TEST(FleetReportsTest, NumbersThatDoNotFitMakeTheReportInvalid) {
  const std::string good = CheckReport("n1", "2026-01-01T00:00:00Z", 5);
  ASSERT_TRUE(ParseFleetReport(good, "f").ok());
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  auto overflow = ParseFleetReport(replace("\"width\":16", "\"width\":1e999999"), "f");
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().message(),
            "a number does not fit: number overflow parsing '1e999999'");
  auto digits =
      ParseFleetReport(replace("\"width\":16", "\"width\":123456789012345678901234567890"), "f");
  ASSERT_FALSE(digits.ok());
  EXPECT_EQ(digits.status().message(),
            "gpus[0].pcie.width: 1.2345678901234568e+29 does not fit (expected 0 to 64)");
  auto util = ParseFleetReport(replace("\"gpu_util_pct\":97", "\"gpu_util_pct\":-1e300"), "f");
  ASSERT_FALSE(util.ok());
  EXPECT_NE(util.status().message().find("gpus[0].gpu_util_pct: -1e+300 does not fit"),
            std::string::npos)
      << util.status().message();
  auto sbe = ParseFleetReport(replace("\"value\":\"5\"", "\"value\":\"1e40\""), "f");
  ASSERT_FALSE(sbe.ok());
  EXPECT_EQ(sbe.status().message(), "ecc.volatile_sbe: corrected_volatile 1e40 does not fit");
  auto doc = ReadBenchDocument(std::string_view("{\"schema\": 1e999999}"));
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.status().message().find("does not fit"), std::string::npos);
}

TEST(FleetReportsTest, MissingDirectory) {
  auto in = ReadFleetReports("/nonexistent/fleet", 0, 1);
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().message(), "--reports /nonexistent/fleet: not a directory");
}

}  // namespace
}  // namespace gpuvet
