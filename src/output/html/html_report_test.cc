// Tests of the HTML report: golden structure of every report kind built from the fixtures' JSON
// goldens (stable ids per section and chart; the numbers on the page read back to the JSON's),
// escaping of hostile strings (a kernel name and a kernel-log line with <script>), the schema
// readers' errors (foreign, malformed, cut at every byte, fixed-seed mutations: an error or a
// page, never a crash), and the recording timeline's downsampling.
#include "output/html/html_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "output/html/html_page.h"
#include "output/html/html_timeline.h"

namespace gpuvet::html {
namespace {

std::string Fixture(const std::string& rel) {
  std::ifstream in(std::string(GPUVET_SOURCE_DIR) + "/tests/fixtures/" + rel);
  EXPECT_TRUE(in.good()) << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Page(const std::string& json, const Timeline* tl = nullptr) {
  Result<std::string> page = RenderHtmlFromJson(json, "t.json", tl, "2026-01-01T00:00:00Z");
  EXPECT_TRUE(page.ok()) << page.status().message();
  return page.ok() ? *page : "";
}

bool HasId(const std::string& page, const std::string& id) {
  return page.find("id=\"" + id + "\"") != std::string::npos;
}

// The numbers of a table cell or label as the page writes them.
bool HasNumber(const std::string& page, double v) {
  return page.find(">" + Num(v) + "<") != std::string::npos ||
         page.find(" " + Num(v) + " ") != std::string::npos ||
         page.find(">" + Num(v) + " ") != std::string::npos;
}

// Every <path d="…"> inside the element with `id` (a chart): true when one has drawing commands.
bool ChartHasPath(const std::string& page, const std::string& id) {
  size_t at = page.find("id=\"" + id + "\"");
  if (at == std::string::npos) return false;
  size_t end = page.find("</figure>", at);
  std::string chart = page.substr(at, end - at);
  std::smatch m;
  return std::regex_search(chart, m, std::regex("<path[^>]* d=\"M[0-9.]+,[0-9.]+[LhZ]"));
}

TEST(HtmlReportTest, CheckPageHasVerdictFindingsAndInventoryWithTheJsonNumbers) {
  std::string json = Fixture("pcie-x8/expected.json");
  std::string page = Page(json);
  for (const char* id : {"verdicts", "check", "check-verdict", "check-findings", "check-gpus"}) {
    EXPECT_TRUE(HasId(page, id)) << id;
  }
  nlohmann::json doc = nlohmann::json::parse(json);
  for (const nlohmann::json& g : doc["gpus"]) {
    EXPECT_NE(page.find(">" + g["serial"].get<std::string>() + "<"), std::string::npos);
    EXPECT_NE(page.find(">" + g["uuid"].get<std::string>() + "<"), std::string::npos);
    EXPECT_NE(page.find(">" + g["pci_bus_id"].get<std::string>() + "<"), std::string::npos);
  }
  // Every non-ok finding is on the page with its id, severity and evidence values.
  for (const nlohmann::json& f : doc["findings"]) {
    std::string marker = "data-id=\"" + f["id"].get<std::string>() + "\" data-severity=\"" +
                         f["severity"].get<std::string>() + "\"";
    EXPECT_NE(page.find(marker), std::string::npos) << marker;
    for (const nlohmann::json& e : f["evidence"]) {
      EXPECT_NE(page.find(">" + Esc(e["value"].get<std::string>()) + "<"), std::string::npos)
          << f["id"] << " " << e["name"];
    }
  }
  // The counts in the headline are the verdict's.
  const nlohmann::json& c = doc["verdict"]["counts"];
  EXPECT_NE(page.find(std::to_string(c["fail"].get<int>()) + " fail, "), std::string::npos);
  EXPECT_NE(page.find(std::to_string(c["ok"].get<int>()) + " ok)"), std::string::npos);
  EXPECT_NE(page.find("UNHEALTHY"), std::string::npos);
  // The verdict box comes before the first section: above the fold.
  EXPECT_LT(page.find("id=\"check-verdict\""), page.find("id=\"check-findings\""));
  EXPECT_NE(page.find("data-who=\"node\""), std::string::npos);
  EXPECT_NE(page.find("data-who=\"job\""), std::string::npos);
}

TEST(HtmlReportTest, HealthyCheckSaysSoAndFoldsPassedChecks) {
  std::string page = Page(Fixture("healthy-8gpu/expected.json"));
  EXPECT_NE(page.find("HEALTHY"), std::string::npos);
  EXPECT_EQ(page.find("UNHEALTHY"), std::string::npos);
  EXPECT_NE(page.find("class=\"ok-group\""), std::string::npos);
}

TEST(HtmlReportTest, BenchPageDrawsEachFigureAgainstItsExpectation) {
  std::string json = Fixture("bench/link-x8/expected.json");
  std::string page = Page(json);
  EXPECT_TRUE(HasId(page, "bench-verdict"));
  EXPECT_TRUE(HasId(page, "bench-figures"));
  EXPECT_TRUE(ChartHasPath(page, "bench-figures-chart"));
  nlohmann::json doc = nlohmann::json::parse(json);
  for (const nlohmann::json& e : doc["expectations"]) {
    EXPECT_TRUE(HasNumber(page, e["expected"].get<double>())) << e["id"];
    EXPECT_TRUE(HasNumber(page, e["ratio"].get<double>())) << e["id"];
  }
  for (const nlohmann::json& m : doc["measurements"]) {
    if (m["median"].is_number()) {
      EXPECT_TRUE(HasNumber(page, m["median"].get<double>()));
    }
  }
  // The copy the slot halves fails, with the 0.75 floor as its band.
  EXPECT_NE(page.find("expected band 39 – 52 GB/s"), std::string::npos);
  EXPECT_NE(page.find("&gt;= 0.75"), std::string::npos);
}

TEST(HtmlReportTest, TracePageHasBreakdownsStepsKernelsOverlapAndStragglers) {
  std::string json = Fixture("traces/comm-two-ranks/expected.json");
  std::string page = Page(json);
  for (const char* id : {"trace-temporal", "trace-idle", "trace-kernel-classes", "trace-steps-r0",
                         "trace-steps-r1", "trace-overlap"}) {
    EXPECT_TRUE(ChartHasPath(page, id)) << id;
  }
  EXPECT_TRUE(HasId(page, "trace-stragglers"));
  EXPECT_TRUE(HasId(page, "trace-top-kernels"));
  nlohmann::json doc = nlohmann::json::parse(json);
  for (const nlohmann::json& r : doc["ranks"]) {
    const nlohmann::json& tb = r["temporal_breakdown"];
    for (const char* k : {"compute_pct", "non_compute_pct", "idle_pct"}) {
      EXPECT_TRUE(HasNumber(page, tb[k].get<double>())) << k;
    }
    for (const nlohmann::json& k : r["kernel_breakdown"]["top"]) {
      EXPECT_TRUE(HasNumber(page, k["total_us"].get<double>()));
    }
  }
  EXPECT_NE(page.find("Rank 1 reaches the collectives late (mean 5000 µs)"), std::string::npos);
  // No forecast or comparison in this document: the reserved ids stay unused.
  EXPECT_FALSE(HasId(page, "trace-forecast"));
  EXPECT_FALSE(HasId(page, "trace-compare"));
}

// `trace --target`: the document's `forecasts` fill trace-forecast with a waterfall each (they
// used to be dropped: the page looked for a "forecast" object).
TEST(HtmlReportTest, TraceForecastsAreDrawnAndCompareFillsItsReservedId) {
  nlohmann::json doc = nlohmann::json::parse(Fixture("traces/forecast-gemm/expected.json"));
  ASSERT_EQ(doc["forecasts"].size(), 1u);
  const nlohmann::json& f = doc["forecasts"][0];
  std::string page = Page(doc.dump());
  EXPECT_TRUE(HasId(page, "trace-forecast"));
  EXPECT_TRUE(ChartHasPath(page, "trace-forecast-0"));
  EXPECT_TRUE(HasId(page, "trace-forecast-0-terms"));
  EXPECT_NE(page.find("speedup " + Num(f["speedup"].get<double>()) + "x"), std::string::npos);
  EXPECT_NE(page.find(Esc(f["summary"].get<std::string>())), std::string::npos);
  for (const nlohmann::json& t : f["terms"]) {
    EXPECT_NE(page.find(">" + Esc(t["part"].get<std::string>()) + "<"), std::string::npos);
  }
  // Two forecasts (two ranks): each under its subject.
  doc["forecasts"].push_back(f);
  doc["forecasts"][1]["subject"] = "rank 1";
  page = Page(doc.dump());
  EXPECT_TRUE(ChartHasPath(page, "trace-forecast-1"));
  EXPECT_NE(page.find("<h4>rank 1</h4>"), std::string::npos);
  // A malformed forecast is an error naming its path, not a partial page.
  doc["forecasts"][1].erase("summary");
  Result<std::string> bad = RenderHtmlFromJson(doc.dump(), "t.json", nullptr, "now");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("forecasts[1]: missing key \"summary\""), std::string::npos)
      << bad.status().message();
  // No gpuvet document has a "compare" object; one that does keeps the reserved id, escaped.
  nlohmann::json plain = nlohmann::json::parse(Fixture("traces/compute-bound/expected.json"));
  plain["compare"] = {{"baseline", "<b>a</b>"}};
  page = Page(plain.dump());
  EXPECT_TRUE(HasId(page, "trace-compare"));
  EXPECT_FALSE(HasId(page, "trace-forecast"));
  EXPECT_NE(page.find("&lt;b&gt;a&lt;/b&gt;"), std::string::npos);
}

TEST(HtmlReportTest, FleetPageHasHeatMapDriftAndQuarantine) {
  std::string json = Fixture("fleet/day/expected.json");
  std::string page = Page(json);
  EXPECT_TRUE(ChartHasPath(page, "fleet-heatmap"));
  EXPECT_TRUE(HasId(page, "fleet-drift"));
  EXPECT_TRUE(HasId(page, "fleet-quarantine"));
  nlohmann::json doc = nlohmann::json::parse(json);
  for (const nlohmann::json& n : doc["nodes"]) {
    EXPECT_NE(page.find(">" + n["node"].get<std::string>()), std::string::npos);
    EXPECT_TRUE(HasNumber(page, n["score"].get<double>()));
  }
  for (const nlohmann::json& q : doc["quarantine"]) {
    EXPECT_NE(page.find(">" + Esc(q["reason"].get<std::string>()) + "<"), std::string::npos);
  }
  EXPECT_NE(page.find(std::to_string(doc["verdict"]["quarantine"].get<int>()) + " of " +
                      std::to_string(doc["verdict"]["nodes"].get<int>()) + " nodes to quarantine"),
            std::string::npos);
  EXPECT_NE(page.find("fleet.driver_drift"), std::string::npos);
}

// GPU-Util only: the forecast is a range with `speedup` null (it used to make the page an error).
TEST(HtmlReportTest, AnalyzePageShowsARangeForecastAtItsSlowerEnd) {
  std::string json = Fixture("analyze/host-cpu-feeder/expected.json");
  nlohmann::json doc = nlohmann::json::parse(json);
  ASSERT_TRUE(doc["forecast"]["speedup"].is_null());
  std::string page = Page(json);
  const nlohmann::json& f = doc["forecast"];
  EXPECT_NE(page.find("speedup " + Num(f["speedup_low"].get<double>()) + "x–" +
                      Num(f["speedup_high"].get<double>()) + "x"),
            std::string::npos);
  EXPECT_NE(page.find(Esc(f["range_reason"].get<std::string>())), std::string::npos);
  EXPECT_TRUE(ChartHasPath(page, "analyze-forecast"));
  EXPECT_NE(page.find(Esc("(the range's slower end)")), std::string::npos);
  for (const nlohmann::json& t : f["terms"]) {
    EXPECT_TRUE(HasNumber(page, t["share_pct"].get<double>()));
    double lo = t["scale_low"].get<double>(), hi = t["scale_high"].get<double>();
    if (lo == hi) {
      EXPECT_TRUE(HasNumber(page, hi));
    } else {
      EXPECT_NE(page.find(">" + Num(lo) + "–" + Num(hi) + "<"), std::string::npos);
    }
  }
  // No figure at all when the source GPU is unknown: the summary alone.
  doc["forecast"]["speedup_low"] = nullptr;
  doc["forecast"]["speedup_high"] = nullptr;
  doc["forecast"]["max_speedup"] = nullptr;
  doc["forecast"]["terms"] = nlohmann::json::array();
  page = Page(doc.dump());
  EXPECT_NE(page.find(Esc(f["summary"].get<std::string>())), std::string::npos);
  EXPECT_EQ(page.find("speedup "), std::string::npos);
}

TEST(HtmlReportTest, AnalyzePageFromJsonHasPhasesLabelsAndForecastWaterfall) {
  std::string json = Fixture("analyze/checkpoint-stalls/expected.json");
  std::string page = Page(json);
  EXPECT_TRUE(ChartHasPath(page, "analyze-phases"));
  EXPECT_TRUE(ChartHasPath(page, "analyze-labels-chart"));
  EXPECT_TRUE(ChartHasPath(page, "analyze-forecast"));
  EXPECT_TRUE(HasId(page, "analyze-periodic"));
  nlohmann::json doc = nlohmann::json::parse(json);
  EXPECT_NE(page.find("speedup " + Num(doc["forecast"]["speedup"].get<double>()) + "x"),
            std::string::npos);
  for (const nlohmann::json& t : doc["forecast"]["terms"]) {
    EXPECT_TRUE(HasNumber(page, t["share_pct"].get<double>()));
    EXPECT_TRUE(HasNumber(page, t["scale"].get<double>()));
  }
  EXPECT_NE(page.find("job: " + doc["verdict"]["label"].get<std::string>() + "/" +
                      doc["verdict"]["detail"].get<std::string>() + " (" +
                      Num(doc["verdict"]["share_pct"].get<double>()) + " % of wall time"),
            std::string::npos);
  // Periodic stalls are marked, one per stall.
  size_t marks = 0;
  for (size_t at = page.find("class=\"mark\""); at != std::string::npos;
       at = page.find("class=\"mark\"", at + 1)) {
    ++marks;
  }
  EXPECT_EQ(marks, doc["periodic_stall"]["count"].get<size_t>());
}

TEST(HtmlReportTest, SeveralInputsShareOnePageWithDistinctIds) {
  std::map<std::string, int> ids;
  std::vector<Section> sections;
  for (const char* f :
       {"pcie-x8/expected.json", "healthy-8gpu/expected.json", "bench/link-x8/expected.json"}) {
    Result<Section> s = SectionFromJsonText(Fixture(f), f, nullptr, ids);
    ASSERT_TRUE(s.ok()) << s.status().message();
    sections.push_back(*s);
  }
  std::string page = RenderReportPage(sections, "now");
  EXPECT_TRUE(HasId(page, "check-verdict"));
  EXPECT_TRUE(HasId(page, "check2-verdict"));
  EXPECT_TRUE(HasId(page, "bench-verdict"));
  std::set<std::string> seen;
  std::regex id_re(" id=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), id_re);
       it != std::sregex_iterator(); ++it) {
    EXPECT_TRUE(seen.insert((*it)[1]).second) << "duplicate id " << (*it)[1];
  }
}

// `trace --compare` (gpuvet.trace_compare/v1): the answer is the verdict, the step of A and B is
// drawn, and the parts table reads back to the document's numbers, adding up to the difference.
TEST(HtmlReportTest, TraceComparePageHasTheAnswerTheStepAndTheChangedKernels) {
  for (const char* name :
       {"dataloader-in-b", "allreduce-and-new-kernel", "gemm-on-another-gpu", "different-models"}) {
    SCOPED_TRACE(name);
    std::string json = Fixture(std::string("trace-compare/") + name + "/expected.json");
    nlohmann::json doc = nlohmann::json::parse(json);
    std::string page = Page(json);
    ASSERT_FALSE(page.empty());
    EXPECT_TRUE(HasId(page, "trace-compare"));
    EXPECT_TRUE(HasId(page, "trace-compare-verdict"));
    EXPECT_NE(page.find(Esc(doc["answer"].get<std::string>())), std::string::npos);
    EXPECT_TRUE(HasId(page, "trace-compare-runs"));
    if (!doc["comparable"].get<bool>()) {
      EXPECT_NE(page.find("not comparable (" + Esc(doc["reason"].get<std::string>())),
                std::string::npos);
      EXPECT_NE(page.find("UNKNOWN"), std::string::npos);
      continue;
    }
    EXPECT_TRUE(ChartHasPath(page, "trace-compare-step"));
    EXPECT_TRUE(HasId(page, "trace-compare-parts"));
    EXPECT_NE(page.find(doc["delta_us"].get<double>() > 0 ? "slower per " : "faster per "),
              std::string::npos);
    for (const nlohmann::json& r : doc["temporal"]) {
      EXPECT_TRUE(HasNumber(page, r["a_us"].get<double>())) << r.dump();
      EXPECT_TRUE(HasNumber(page, r["b_us"].get<double>())) << r.dump();
    }
    for (const nlohmann::json& k : doc["kernels"]["changed"]) {
      EXPECT_TRUE(HasNumber(page, k["b_us"].get<double>())) << k.dump();
    }
    EXPECT_EQ(HasId(page, "trace-compare-kernels-added"), !doc["kernels"]["added"].empty());
    EXPECT_EQ(HasId(page, "trace-compare-kernels-removed"), !doc["kernels"]["removed"].empty());
    EXPECT_EQ(HasId(page, "trace-compare-causes"), !doc["causes"].empty());
    EXPECT_EQ(HasId(page, "trace-compare-communication"),
              doc["communication"]["all"]["a_us"].get<double>() > 0 ||
                  doc["communication"]["all"]["b_us"].get<double>() > 0);
  }
  // The parts of the step add up to the difference: the table shows the signed deltas.
  std::string page = Page(Fixture("trace-compare/dataloader-in-b/expected.json"));
  EXPECT_NE(page.find("trace compare: B is 64 % slower per step (+3.00 ms)"), std::string::npos);
  EXPECT_NE(page.find(">+2400<"), std::string::npos);
  EXPECT_NE(page.find(">-40<"), std::string::npos);
  EXPECT_NE(page.find(">idle: host wait<"), std::string::npos);
}

TEST(HtmlReportTest, TraceCompareDocumentErrorsNameTheirPath) {
  std::map<std::string, int> ids;
  nlohmann::json doc =
      nlohmann::json::parse(Fixture("trace-compare/allreduce-and-new-kernel/expected.json"));
  auto error = [&](const nlohmann::json& d) {
    Result<Section> s = SectionFromJsonText(d.dump(), "cmp.json", nullptr, ids);
    EXPECT_FALSE(s.ok());
    return s.ok() ? std::string() : s.status().message();
  };
  nlohmann::json bad = doc;
  bad["kernels"]["changed"][0]["b_us"] = "slow";
  EXPECT_EQ(error(bad),
            "cmp.json (gpuvet.trace_compare/v1): kernels.changed[0].b_us: expected a number, found "
            "string");
  bad = doc;
  bad["unit"] = "epoch";
  EXPECT_EQ(error(bad),
            "cmp.json (gpuvet.trace_compare/v1): unit: must be \"step\" or \"window\", not "
            "\"epoch\"");
  bad = doc;
  bad["a"].erase("sources");
  EXPECT_EQ(error(bad), "cmp.json (gpuvet.trace_compare/v1): a: missing key \"sources\"");
  // Cut every 53 bytes: an error every time, never a crash.
  const std::string text = doc.dump();
  for (size_t n = 0; n < text.size(); n += 53) {
    EXPECT_FALSE(SectionFromJsonText(text.substr(0, n), "cut.json", nullptr, ids).ok()) << n;
  }
}

TEST(HtmlReportTest, HostileStringsAreEscapedEverywhere) {
  const std::string evil = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>";
  // A check report whose kernel-log finding quotes a hostile log line, and a hostile hostname.
  nlohmann::json check = nlohmann::json::parse(Fixture("pcie-x8/expected.json"));
  check["host"]["hostname"] = evil;
  check["findings"][0]["summary"] = "kernel log: " + evil;
  check["findings"][0]["id"] = evil;
  check["findings"][0]["area"] = evil;
  check["findings"][0]["evidence"] = {{{"name", evil}, {"value", evil}, {"threshold", evil}}};
  check["gpus"][0]["name"] = evil;
  // A trace whose kernel name is hostile.
  nlohmann::json trace = nlohmann::json::parse(Fixture("traces/comm-two-ranks/expected.json"));
  trace["ranks"][0]["kernel_breakdown"]["top"][0]["name"] = evil;
  trace["ranks"][0]["kernel_breakdown"]["categories"][0]["category"] = evil;
  trace["ranks"][0]["steps"][0]["name"] = evil;
  trace["verdict"]["reason"] = evil;
  nlohmann::json fleet = nlohmann::json::parse(Fixture("fleet/day/expected.json"));
  fleet["nodes"][0]["node"] = evil;
  fleet["quarantine"][0]["reason"] = evil;
  fleet["nodes"][0]["findings"][0]["id"] = evil;
  // A comparison whose kernel names, causes and skipped files are hostile.
  nlohmann::json compare =
      nlohmann::json::parse(Fixture("trace-compare/allreduce-and-new-kernel/expected.json"));
  compare["kernels"]["changed"][0]["name_a"] = evil;
  compare["kernels"]["added"][0]["name_b"] = evil;
  compare["causes"].push_back(evil);
  compare["answer"] = evil;
  compare["a"]["problems"].push_back(evil);
  compare["b"]["gpu_name"] = evil;
  for (const nlohmann::json& doc : {check, trace, fleet, compare}) {
    std::string page = Page(doc.dump());
    ASSERT_FALSE(page.empty());
    EXPECT_EQ(page.find("<script>alert"), std::string::npos);
    EXPECT_EQ(page.find("<img"), std::string::npos);
    EXPECT_EQ(page.find("onerror=alert(2)>"), std::string::npos);
    EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img"),
              std::string::npos);
    // The one script on the page is ours.
    size_t scripts = 0;
    for (size_t at = page.find("<script"); at != std::string::npos;
         at = page.find("<script", at + 1)) {
      ++scripts;
    }
    EXPECT_EQ(scripts, 1u);
  }
}

TEST(HtmlReportTest, EscDropsControlCharactersAndKeepsUtf8) {
  EXPECT_EQ(Esc("a\x01\x1b[31mb\x7f"), "a[31mb");
  EXPECT_EQ(Esc("µs → 5 °C\ttab"), "µs → 5 °C\ttab");
  EXPECT_EQ(Esc("&<>\"'"), "&amp;&lt;&gt;&quot;&#39;");
}

TEST(HtmlReportTest, ForeignAndMalformedDocumentsAreClearErrors) {
  std::map<std::string, int> ids;
  auto error = [&](const std::string& text) {
    Result<Section> s = SectionFromJsonText(text, "in.json", nullptr, ids);
    EXPECT_FALSE(s.ok()) << text;
    return s.ok() ? std::string() : s.status().message();
  };
  EXPECT_EQ(error("not json"), "in.json: not JSON (byte 2)");
  EXPECT_EQ(error("[1,2]"),
            "in.json: not a gpuvet report (the document is a array, not an object)");
  EXPECT_NE(error("{\"a\":1}").find("no \"schema\" key"), std::string::npos);
  EXPECT_NE(error("{\"schema\":\"gpuvet.check/v2\"}").find("is not one gpuvet report reads"),
            std::string::npos);
  nlohmann::json doc = nlohmann::json::parse(Fixture("traces/comm-two-ranks/expected.json"));
  doc["ranks"][1]["temporal_breakdown"]["idle_us"] = "lots";
  EXPECT_EQ(error(doc.dump()),
            "in.json (gpuvet.trace/v1): ranks[1].temporal_breakdown.idle_us: expected a number, "
            "found string");
  doc = nlohmann::json::parse(Fixture("pcie-x8/expected.json"));
  doc["findings"][2]["severity"] = "critical";
  EXPECT_EQ(error(doc.dump()),
            "in.json (gpuvet.check/v1): findings[2].severity: unknown severity \"critical\"");
  doc.erase("verdict");
  doc["findings"][2]["severity"] = "fail";
  EXPECT_EQ(error(doc.dump()), "in.json (gpuvet.check/v1): (top level): missing key \"verdict\"");
}

// A small check document: one GPU, two findings.
const char kSmallCheck[] = R"js({"schema":"gpuvet.check/v1","generated_at":"2026-01-01T00:00:00Z",
"policy":"built-in defaults","host":{"hostname":"n1","kernel_release":"6.1"},
"gpu_source":{"origin":"nvml","state":"ok","detail":"","driver_version":"550.90.07",
"cuda_version":"12.4","device_count":1},
"gpus":[{"index":0,"name":"NVIDIA H100","uuid":"GPU-1","serial":"165","pci_bus_id":"0000:18:00.0",
"lost":false,"pcie":{"gen":5,"gen_max":5,"width":8,"width_max":16},"temperature_c":40,
"power_w":70.5,"power_limit_w":700.0}],
"findings":[{"id":"pcie.link_width_reduced","area":"pcie","subject":"gpu0 (0000:18:00.0)",
"gpu":{"index":0,"pci_bus_id":"0000:18:00.0","serial":"165","uuid":"GPU-1"},"severity":"fail",
"summary":"PCIe x8","evidence":[{"name":"current_width","value":"8","threshold":"== 16"}],
"meaning":"m","decision":"d"},{"id":"driver.version","area":"driver","subject":"node",
"severity":"ok","summary":"550","evidence":[],"meaning":"m","decision":"d"}],
"verdict":{"severity":"fail","healthy":false,"exit_code":1,
"counts":{"ok":1,"info":0,"warn":0,"unknown":0,"fail":1}}})js";

// Every prefix of a document is an error or a page; fixed-seed byte mutations likewise.
TEST(HtmlReportTest, CutAndMutatedDocumentsNeverCrash) {
  const std::string text = kSmallCheck;
  std::map<std::string, int> ids;
  ASSERT_TRUE(SectionFromJsonText(text, "whole.json", nullptr, ids).ok());
  size_t ok = 0;
  for (size_t n = 0; n < text.size(); ++n) {
    Result<Section> s = SectionFromJsonText(text.substr(0, n), "cut.json", nullptr, ids);
    if (s.ok()) ++ok;
  }
  EXPECT_EQ(ok, 0u);  // a prefix is never a document
  const std::string alphabet = "{}[]\":,0123456789.-eEtrufalsn \\u<>&";
  uint32_t state = 1313;  // fixed seed
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (const std::string& doc :
       {text, nlohmann::json::parse(Fixture("traces/comm-two-ranks/expected.json")).dump(),
        nlohmann::json::parse(Fixture("bench/link-x8/expected.json")).dump(),
        nlohmann::json::parse(Fixture("fleet/day/expected.json")).dump(),
        nlohmann::json::parse(Fixture("trace-compare/dataloader-in-b/expected.json")).dump(),
        nlohmann::json::parse(Fixture("analyze/checkpoint-stalls/expected.json")).dump()}) {
    for (int i = 0; i < 100; ++i) {
      std::string m = doc;
      for (int k = 0, edits = 1 + next() % 4; k < edits; ++k) {
        size_t at = next() % m.size();
        switch (next() % 3) {
          case 0:
            m[at] = alphabet[next() % alphabet.size()];
            break;
          case 1:
            m.erase(at, 1 + next() % 8);
            break;
          default:
            m.insert(at, 1, alphabet[next() % alphabet.size()]);
        }
        if (m.empty()) m = "x";
      }
      Result<Section> s = SectionFromJsonText(m, "mutated.json", nullptr, ids);
      if (s.ok()) {
        EXPECT_FALSE(RenderReportPage({*s}, "now").empty());
      } else {
        EXPECT_FALSE(s.status().message().empty());
      }
    }
  }
}

Recording TwoGpuRecording(int samples) {
  Recording rec;
  rec.meta.interval_s = 1;
  for (int g = 0; g < 2; ++g) {
    RecordedGpu rg;
    rg.index = g;
    rg.name = "NVIDIA H100 80GB HBM3";
    rg.power_limit_w = 700;
    rg.sm_clock_max_mhz = 1980;
    rg.memory_total_bytes = uint64_t{80} << 30;
    rec.meta.gpus.push_back(rg);
  }
  for (int i = 1; i <= samples; ++i) {
    Sample s;
    s.t = i;
    s.interval_s = 1;
    for (int g = 0; g < 2; ++g) {
      GpuSample x;
      x.gpu = g;
      x.util_pct = g == 0 ? 100.0 * (i % 2) : 50;  // gpu0 alternates 0/100
      x.power_w = 350;
      if (g == 1 && i > 10 && i <= 20) x.clock_event_reasons = 0x4;  // power cap for 10 s
      if (g == 1 && i > 20) x.clock_event_reasons = 0x1;
      if (!(g == 0 && i > 50 && i <= 60)) s.gpus.push_back(x);  // gpu0 silent 51–60
    }
    s.host.cpu_user_pct = 30;
    s.host.cpu_system_pct = 5;
    s.host.cpu_iowait_pct = 1;
    s.host.disks = {{"nvme0n1", 1e6, 3e6, 1}};
    ProcessSample p;
    p.pid = 100;
    p.top_threads = {{100, "python3", 99}, {101, "loader", 10}};
    s.processes.push_back(p);
    rec.samples.push_back(s);
  }
  return rec;
}

TEST(HtmlTimelineTest, BucketsAreMeansAndGapsStayEmpty) {
  Timeline tl = BuildTimeline(TwoGpuRecording(100), 10);
  ASSERT_EQ(tl.t.size(), 10u);
  EXPECT_EQ(tl.samples, 100u);
  ASSERT_EQ(tl.gpus.size(), 2u);
  const TimelineLine& util0 = tl.gpus[0].activity[0];
  EXPECT_EQ(util0.name, "GPU-Util");
  EXPECT_DOUBLE_EQ(util0.y[0], 50);     // 0/100 alternating: the mean
  EXPECT_TRUE(std::isnan(util0.y[5]));  // samples 51–60 had no gpu0 reading: empty, not 0
  EXPECT_FALSE(tl.gpus[0].gpm);
  EXPECT_EQ(tl.gpus[1].limits[0].name, "power (of 700 W)");
  EXPECT_DOUBLE_EQ(tl.gpus[1].limits[0].y[3], 50);  // 350 of 700 W
  ASSERT_EQ(tl.gpus[1].throttle.size(), 1u);
  EXPECT_EQ(tl.gpus[1].throttle[0].reason, "power cap");
  EXPECT_DOUBLE_EQ(tl.gpus[1].throttle[0].t0, 10);
  EXPECT_DOUBLE_EQ(tl.gpus[1].throttle[0].t1, 20);
  EXPECT_DOUBLE_EQ(tl.host_cpu[0].y[0], 35);
  ASSERT_EQ(tl.threads.size(), 2u);
  EXPECT_EQ(tl.threads[0].name, "python3 (tid 100)");
  ASSERT_EQ(tl.disk.size(), 2u);
  EXPECT_DOUBLE_EQ(tl.disk[1].y[0], 3);  // MB/s written
  EXPECT_TRUE(tl.net.empty());           // not recorded: no chart, not a zero line
}

TEST(HtmlTimelineTest, EmptyAndSingleSampleRecordingsDraw) {
  Recording empty = TwoGpuRecording(0);
  Timeline tl = BuildTimeline(empty, 1000);
  EXPECT_EQ(tl.t.size(), 1u);
  Timeline one = BuildTimeline(TwoGpuRecording(1), 1000);
  EXPECT_EQ(one.t.size(), 1u);
  LineChartSpec spec;
  spec.id = "c";
  spec.series.push_back({"s", one.t, one.gpus[0].activity[0].y, 0});
  EXPECT_NE(LineChart(spec).find("<path class=\"series\""), std::string::npos);
}

TEST(HtmlTimelineTest, EventsAreMarksCappedWithACount) {
  Recording rec = TwoGpuRecording(10);
  rec.events = {{2, RecordingEventKind::kNfsNotResponding, "fs1", "nfs: server fs1 not responding"},
                {5, RecordingEventKind::kNfsOk, "fs1", "nfs: server fs1 OK"},
                {7, RecordingEventKind::kNvmlHung, "", ""}};
  Timeline tl = BuildTimeline(rec, 10);
  ASSERT_EQ(tl.events.size(), 3u);
  EXPECT_DOUBLE_EQ(tl.events[0].t, 2);
  EXPECT_EQ(tl.events[0].label, "nfs: server fs1 not responding");
  EXPECT_EQ(tl.events[2].label, "nvml_hung");  // no message: the kind's id
  rec.events.assign(600, {3, RecordingEventKind::kXid, "gpu0", std::string(300, 'x')});
  tl = BuildTimeline(rec, 10);
  ASSERT_EQ(tl.events.size(), 500u);
  EXPECT_EQ(tl.events[0].label.size(), 120u);  // long lines are cut
  EXPECT_NE(tl.events.back().label.find("(and 100 more events after it)"), std::string::npos);
}

}  // namespace
}  // namespace gpuvet::html
