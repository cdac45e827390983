// Tests for the fleet report reader: schema recognition and precise skip reasons, ISO times,
// several reports per node over time (newest state, series from all), bench reports joined to
// their node through the directory, and a directory of garbage that never aborts the read.
#include "sources/fleet/fleet_reports.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "core/bench_document.h"
#include "testing/temp_tree.h"
#include "util/file.h"

namespace gpuvet {
namespace {

using nlohmann::json;

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

// The fast reader and the DOM reader agree on `text`: the same report, or the same message.
void ExpectSameAsDom(std::string_view text, const std::string& what) {
  Result<FleetReportFile> fast = ParseFleetReport(text, "f");
  Result<FleetReportFile> dom = ParseFleetReportWithDom(text, "f");
  ASSERT_EQ(fast.ok(), dom.ok()) << what << ": " << (fast.ok() ? dom : fast).status().message();
  if (fast.ok()) {
    ASSERT_EQ(DescribeFleetReportFile(*fast), DescribeFleetReportFile(*dom)) << what;
  } else {
    ASSERT_EQ(fast.status().message(), dom.status().message()) << what;
  }
}

std::string Fixture(const std::string& path) {
  std::ifstream in(std::string(GPUVET_SOURCE_DIR) + "/tests/fixtures/fleet/day/reports/" + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The fixture reports the fleet goldens are made of: a check with findings of every kind the
// reader extracts (ECC, throttle, non-ok), and a bench report.
const char* const kFixtureReports[] = {"gpu-node-05/check-2026-01-01T230000Z.json",
                                       "gpu-node-06/check-2026-01-01T230000Z.json",
                                       "gpu-node-01/bench-2026-01-01T210000Z.json"};

TEST(FleetReportsTest, FastReaderMatchesTheDomOnTheFixtures) {
  for (const char* path : kFixtureReports) {
    const std::string text = Fixture(path);
    ASSERT_GT(text.size(), 1000u) << path;
    ASSERT_TRUE(ParseFleetReport(text, "f").ok()) << path;
    ExpectSameAsDom(text, path);
  }
  ExpectSameAsDom(CheckReport("n1", "2026-01-01T00:00:00Z", 5), "CheckReport");
  ExpectSameAsDom(kBench, "kBench");
}

// A real check report cut down (two GPUs, the findings of gpu0 and the host: ECC, throttle, PCIe,
// pretty-printed as gpuvet writes it), so cutting it at every byte stays quick under ASan.
std::string SmallCheckReport() {
  json doc = json::parse(Fixture("gpu-node-05/check-2026-01-01T230000Z.json"));
  doc["gpus"].erase(doc["gpus"].begin() + 2, doc["gpus"].end());
  json kept = json::array();
  for (const json& f : doc["findings"]) {
    const std::string subject = f["subject"];
    if (subject.rfind("gpu0 ", 0) == 0 || subject == "host") kept.push_back(f);
  }
  doc["findings"] = kept;
  return doc.dump(1);
}

TEST(FleetReportsTest, FastReaderMatchesTheDomAtEveryCut) {
  const std::string small = SmallCheckReport();
  ASSERT_GT(small.size(), 2000u);
  for (const std::string& text : {small, std::string(kBench)}) {
    for (size_t cut = 0; cut < text.size(); ++cut) {
      ExpectSameAsDom(std::string_view(text).substr(0, cut), "cut at " + std::to_string(cut));
      if (HasFatalFailure()) return;
    }
  }
  // The whole fixtures at every 211th byte.
  for (const char* path : kFixtureReports) {
    const std::string text = Fixture(path);
    for (size_t cut = 0; cut < text.size(); cut += 211) {
      ExpectSameAsDom(std::string_view(text).substr(0, cut),
                      std::string(path) + " cut at " + std::to_string(cut));
      if (HasFatalFailure()) return;
    }
  }
}

// Fixed-seed mutations: bytes replaced, deleted and inserted (structure, digits, quotes, escapes,
// invalid UTF-8), and whole values swapped for hostile ones, so both the refused texts (same
// message) and the accepted ones (same report) are covered.
TEST(FleetReportsTest, FastReaderMatchesTheDomUnderMutation) {
  std::mt19937 rng(1515);
  const std::string alphabet = "{}[]:,\"\\ 0123456789.eE+-x\x80\xc3\xff\t/u";
  const std::vector<std::string> values = {"1e999999",
                                           "123456789012345678901234567890",
                                           "-1e300",
                                           "1.5",
                                           "-1",
                                           "null",
                                           "true",
                                           "{}",
                                           "[]",
                                           "\"gpu0 (x)\"",
                                           "\"\\u00e9\"",
                                           "\"0x40\"",
                                           "\"1e40\"",
                                           "\"ecc.volatile_sbe\"",
                                           "65",
                                           "\"gpuvet.bench/v1\"",
                                           "\"gpuvet.check/v1\"",
                                           "\"\xc3\x28\""};
  int ok = 0, refused = 0;
  const std::vector<std::string> docs = {SmallCheckReport(), Fixture(kFixtureReports[2]),
                                         CheckReport("n1", "2026-01-01T00:00:00Z", 5)};
  for (const std::string& doc : docs) {
    for (int i = 0; i < 600; ++i) {
      std::string text = doc;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        const size_t at = rng() % text.size();
        switch (rng() % 4) {
          case 0:
            text[at] = alphabet[rng() % alphabet.size()];
            break;
          case 1:
            text.erase(at, 1 + rng() % 3);
            break;
          case 2:
            text.insert(at, 1, alphabet[rng() % alphabet.size()]);
            break;
          default: {
            // A value after a ": " replaced whole.
            const size_t colon = text.find(": ", at);
            if (colon == std::string::npos) break;
            size_t end = colon + 2;
            while (end < text.size() && text[end] != ',' && text[end] != '\n') ++end;
            text.replace(colon + 2, end - colon - 2, values[rng() % values.size()]);
          }
        }
        if (text.empty()) text.assign(1, '{');
      }
      ExpectSameAsDom(text, "mutation " + std::to_string(i));
      if (HasFatalFailure()) return;
      (ParseFleetReport(text, "f").ok() ? ok : refused)++;
    }
  }
  EXPECT_GT(ok, 200);
  EXPECT_GT(refused, 200);
}

// nlohmann's rules the fast reader follows: a key given twice takes its last value, a field of
// the wrong type reads as absent, escapes are decoded, invalid UTF-8 is "not JSON" (not thrown).
TEST(FleetReportsTest, FastReaderFollowsTheDomRules) {
  const std::string base = CheckReport("n1", "2026-01-01T00:00:00Z", 5);
  const std::vector<std::string> variants = {
      // duplicate keys at each level
      R"({"schema": "x", "schema": "gpuvet.check/v1", "generated_at": "2026-01-01T00:00:00Z",
          "host": {"hostname": "a"}, "host": {"other": 1}})",
      R"({"schema": "gpuvet.check/v1", "generated_at": "2026-01-01T00:00:00Z",
          "host": {"hostname": "a", "hostname": "b"},
          "gpus": [{"index": 0, "pcie": {"gen": 99}, "pcie": {"gen": 4}, "name": "A", "name": 5}],
          "gpus": [{"index": 1, "uuid": "U"}],
          "findings": [{"id": "ecc.volatile_sbe", "subject": "gpu1", "severity": "warn",
                        "evidence": [{"name": "corrected_volatile", "value": "9"}],
                        "evidence": [{"name": "corrected_volatile", "value": 3, "value": "4"},
                                     {"name": "corrected_volatile", "value": "5"}]}]})",
      // wrong types everywhere
      R"({"schema": "gpuvet.check/v1", "generated_at": "2026-01-01T00:00:00Z",
          "host": {"hostname": "a"}, "gpu_source": [1], "gpus": [7, {"index": "0",
          "pcie": "x", "gpu_util_pct": true}], "findings": {"id": 1}})",
      R"({"schema": "gpuvet.check/v1", "generated_at": "2026-01-01T00:00:00Z",
          "host": {"hostname": "a"}, "gpus": [{"index": 0}], "findings": [3, null,
          {"id": "throttle.x", "subject": "gpu0", "severity": "fail", "summary": {},
           "evidence": [1, {"name": "clock_event_reasons", "value": "0x44"}]}]})",
      // escapes in extracted fields
      R"({"schema": "gpuvet.check\/v1", "generated_at": "2026-01-01T00:00:00Z",
          "host": {"hostname": "n\u00e9\ud83d\ude00\n"}, "gpus": [{"index": 0.0,
          "name": "H\"100\""}], "findings": [{"id": "x", "subject": "gpu0", "severity":
          "w\u0061rn", "summary": "tab\there"}]})",
      // range errors name the field (dump of the number as nlohmann writes it)
      R"({"schema": "gpuvet.check/v1", "generated_at": "2026-01-01T00:00:00Z",
          "host": {"hostname": "a"}, "gpus": [{"pcie": {"width": 65.0}}, {"gpu_util_pct":
          18446744073709551615}]})",
      // bench: duplicate measurements, non-object entries, index kinds
      R"({"schema": "gpuvet.bench/v1", "generated_at": "2026-01-01T00:00:00Z",
          "gpus": [{"index": 1.0, "pcie": {"gen_max": 5, "width_max": 16.0}}, "x",
                   {"index": 4294967296}],
          "measurements": [1, {"id": "a", "median": 2, "median": "x"},
                           {"id": "b", "gpu": 0, "peer": 1, "median": 3.5, "unit": "GB/s",
                            "skipped": null, "extra": [1, 2]}],
          "measurements": [{"id": "c", "median": 1e-400, "gpu": 2.0, "skipped": false}]})",
      R"({"schema": "gpuvet.bench/v1", "generated_at": "2026-01-01T00:00:00Z",
          "measurements": {"id": "x"}})",
      // not an object, invalid UTF-8 in a skipped and in an extracted string, a BOM
      "[1, 2]", "\"gpuvet.check/v1\"",
      "{\"schema\": \"gpuvet.check/v1\", \"junk\": \"\xff\", \"generated_at\": 1}",
      "{\"schema\": \"gpuvet.check/v1\xc3\"}", "\xef\xbb\xbf" + base, base + " ", " \n" + base,
      base + "x"};
  for (size_t i = 0; i < variants.size(); ++i) {
    ExpectSameAsDom(variants[i], "variant " + std::to_string(i));
  }
  // The duplicate-key variant reads the last of each.
  auto dup = ParseFleetReport(variants[1], "f");
  ASSERT_TRUE(dup.ok()) << dup.status().message();
  EXPECT_EQ(dup->host, "b");
  ASSERT_EQ(dup->gpus.size(), 1u);
  EXPECT_EQ(dup->gpus[0].index, 1);
  ASSERT_EQ(dup->gpus[0].ecc_corrected.size(), 1u);
  EXPECT_EQ(dup->gpus[0].ecc_corrected[0].v, 4);
  EXPECT_EQ(ParseFleetReport("{\"schema\": \"gpuvet.check/v1\xc3\"}", "f").status().message(),
            "not JSON (byte 29)");
}

// Many files are read on several threads; the nodes, sources and skip list are in path order
// whatever the threads did.
TEST(FleetReportsTest, ManyFilesReadInPathOrder) {
  test::TempTree tree("fleet_reports");
  for (int i = 0; i < 300; ++i) {
    std::string host = std::to_string(1000 + i);
    host.insert(0, 1, 'n');
    tree.Write(host + "/a.json", CheckReport(host, "2026-01-01T00:00:00Z", i));
    tree.Write(host + "/b.json", CheckReport(host, "2026-01-01T01:00:00Z", i + 1));
    if (i % 7 == 0) tree.Write(host + "/c.json", "{\"truncated\": ");
  }
  auto in = ReadFleetReports(tree.root(), 1767268800, 86400);
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(in->nodes.size(), 300u);
  ASSERT_EQ(in->skipped.size(), 43u);
  for (size_t i = 0; i + 1 < in->skipped.size(); ++i) {
    EXPECT_LT(in->skipped[i].source, in->skipped[i + 1].source);
    EXPECT_EQ(in->skipped[i].reason, "not JSON (byte 15)");
  }
  for (int i = 0; i < 300; ++i) {
    const FleetNode& n = in->nodes[static_cast<size_t>(i)];
    EXPECT_EQ(n.name, std::string(1, 'n').append(std::to_string(1000 + i)));
    ASSERT_EQ(n.gpus.size(), 1u);
    ASSERT_EQ(n.gpus[0].ecc_corrected.size(), 2u);
    EXPECT_EQ(n.gpus[0].ecc_corrected[1].v, i + 1);
  }
}

// One worker's buffer across files of very different sizes: it grows for a report padded past
// the first buffer sizes and still reads the small ones after it exactly; an empty file and one
// cut short are skipped with the messages the DOM reader gives for the same bytes.
TEST(FleetReportsTest, FilesOfEverySizeReadWhole) {
  test::TempTree tree("fleet_reports");
  std::string big = CheckReport("b", "2026-01-01T00:00:00Z", 2);
  big.insert(1, std::string(300000, ' '));
  tree.Write("a/1.json", CheckReport("a", "2026-01-01T00:00:00Z", 1));
  tree.Write("b/1.json", big);
  tree.Write("c/1.json", CheckReport("c", "2026-01-01T00:00:00Z", 3));
  tree.Write("c/2.json", big.substr(0, 16385));
  tree.Write("d/empty.json", "");
  tree.Write("e/1.json", CheckReport("e", "2026-01-01T00:00:00Z", 5));
  auto in = ReadFleetReports(tree.root(), 1767268800, 86400);
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(in->nodes.size(), 4u);
  const int sbe[] = {1, 2, 3, 5};
  for (size_t i = 0; i < 4; ++i) {
    ASSERT_EQ(in->nodes[i].gpus.size(), 1u) << i;
    ASSERT_EQ(in->nodes[i].gpus[0].ecc_corrected.size(), 1u) << i;
    EXPECT_EQ(in->nodes[i].gpus[0].ecc_corrected[0].v, sbe[i]) << i;
  }
  ASSERT_EQ(in->skipped.size(), 2u);
  EXPECT_EQ(in->skipped[0].source, tree.Path("c/2.json"));
  EXPECT_EQ(in->skipped[0].reason,
            ParseFleetReportWithDom(big.substr(0, 16385), "x").status().message());
  EXPECT_EQ(in->skipped[1].source, tree.Path("d/empty.json"));
  EXPECT_EQ(in->skipped[1].reason, ParseFleetReportWithDom("", "x").status().message());
}

// A file that cannot be opened is skipped with util/file's words, as every other reader says it.
TEST(FleetReportsTest, UnreadableFileSkippedWithTheReason) {
  test::TempTree tree("fleet_reports");
  tree.Write("a/1.json", CheckReport("a", "2026-01-01T00:00:00Z", 1));
  tree.Write("a/secret.json", CheckReport("a", "2026-01-01T01:00:00Z", 1));
  ASSERT_EQ(::chmod(tree.Path("a/secret.json").c_str(), 0), 0);
  std::string expected;
  if (::access(tree.Path("a/secret.json").c_str(), R_OK) != 0) {
    std::string ignored;
    expected = ReadFileInto(tree.Path("a/secret.json"), 1 << 20, ignored).message();
  }
  auto in = ReadFleetReports(tree.root(), 1767268800, 86400);
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(in->nodes.size(), 1u);
  if (expected.empty()) {
    // Root reads the file whatever its mode: it is a second report of the node.
    EXPECT_TRUE(in->skipped.empty());
    EXPECT_EQ(in->nodes[0].sources.size(), 2u);
  } else {
    ASSERT_EQ(in->skipped.size(), 1u);
    EXPECT_EQ(in->skipped[0].reason, expected);
    EXPECT_NE(expected.find("Permission denied"), std::string::npos) << expected;
  }
}

// A check report read after a newer one of its node is kept as its samples only, but is judged
// as any other: one with a field out of range is still skipped with the reason, and the node's
// state and series are those of reading every report whole.
TEST(FleetReportsTest, OlderReportsReadAsSamplesStillChecked) {
  test::TempTree tree("fleet_reports");
  tree.Write("h/a.json", CheckReport("h", "2026-01-01T03:00:00Z", 9, "550.90.07", 8));
  tree.Write("h/b.json", CheckReport("h", "2026-01-01T01:00:00Z", 4, "535.00.00", 99));
  tree.Write("h/c.json", CheckReport("h", "2026-01-01T02:00:00Z", 6, "535.00.00", 16));
  tree.Write("h/d.json", CheckReport("h", "2026-01-01T00:00:00Z", 2, "535.00.00", 16));
  auto in = ReadFleetReports(tree.root(), 1767268800, 86400);
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(in->skipped.size(), 1u);
  EXPECT_EQ(in->skipped[0].source, tree.Path("h/b.json"));
  EXPECT_EQ(in->skipped[0].reason, "gpus[0].pcie.width: 99 does not fit (expected 0 to 64)");
  ASSERT_EQ(in->nodes.size(), 1u);
  const FleetNode& n = in->nodes[0];
  EXPECT_EQ(n.driver_version, "550.90.07");  // the newest report's, though its path sorts first
  ASSERT_EQ(n.gpus.size(), 1u);
  EXPECT_EQ(n.gpus[0].pcie_width, 8);
  EXPECT_EQ(n.gpus[0].uuid, "GPU-1");
  ASSERT_EQ(n.gpus[0].ecc_corrected.size(), 3u);
  EXPECT_EQ(n.gpus[0].ecc_corrected[0].v, 2);
  EXPECT_EQ(n.gpus[0].ecc_corrected[1].v, 6);
  EXPECT_EQ(n.gpus[0].ecc_corrected[2].v, 9);
  ASSERT_EQ(n.checks.size(), 1u);
  EXPECT_EQ(n.checks[0].check, "cpu.governor");
  EXPECT_EQ(n.sources.size(), 3u);
}

// The walk: regular files at any depth and symlinks to files are read; a symlink to a directory
// is not followed, nor are a FIFO or a dangling link read; a trailing slash on the root spells the
// paths as std::filesystem joins them.
TEST(FleetReportsTest, WalkTakesRegularFilesAndFileLinksOnly) {
  test::TempTree tree("fleet_reports");
  tree.Write("a/deep/er/1.json", CheckReport("a", "2026-01-01T00:00:00Z", 1));
  tree.Write("elsewhere/1.json", CheckReport("b", "2026-01-01T00:00:00Z", 2));
  tree.Write("elsewhere/2.json", CheckReport("c", "2026-01-01T00:00:00Z", 3));
  tree.Link("t/dir", "../elsewhere");
  tree.Link("t/file.json", "../elsewhere/1.json");
  tree.Link("t/dangling.json", "nowhere.json");
  tree.Write("t/a/1.json", CheckReport("a", "2026-01-01T01:00:00Z", 4));
  tree.Write("t/x/deep/er/1.json", CheckReport("x", "2026-01-01T00:00:00Z", 5));
  ASSERT_EQ(::mkfifo(tree.Path("t/fifo.json").c_str(), 0600), 0);
  for (const std::string& root : {tree.Path("t"), tree.Path("t") + "/"}) {
    auto in = ReadFleetReports(root, 1767268800, 86400);
    ASSERT_TRUE(in.ok()) << in.status().message();
    EXPECT_TRUE(in->skipped.empty());
    ASSERT_EQ(in->nodes.size(), 3u);
    EXPECT_EQ(in->nodes[0].name, "a");
    EXPECT_EQ(in->nodes[0].sources, std::vector<std::string>{tree.Path("t/a/1.json")});
    EXPECT_EQ(in->nodes[1].name, "b");
    EXPECT_EQ(in->nodes[1].sources, std::vector<std::string>{tree.Path("t/file.json")});
    EXPECT_EQ(in->nodes[2].name, "x");
    EXPECT_EQ(in->nodes[2].sources, std::vector<std::string>{tree.Path("t/x/deep/er/1.json")});
  }
}

TEST(FleetReportsTest, MissingDirectory) {
  auto in = ReadFleetReports("/nonexistent/fleet", 0, 1);
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().message(), "--reports /nonexistent/fleet: not a directory");
}

}  // namespace
}  // namespace gpuvet
