// The streamed fleet JSON renderer against its nlohmann DOM reference: the same bytes for empty
// and full reports, every kind of string nlohmann escapes or replaces, doubles of every shape and
// ids the catalogue does not know.
#include "output/json/fleet_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

namespace gpuvet {
namespace {

Finding MakeFinding(std::string id, std::string subject, Severity sev, std::string summary,
                    std::vector<Evidence> ev) {
  Finding f;
  f.id = std::move(id);
  f.subject = std::move(subject);
  f.severity = sev;
  f.summary = std::move(summary);
  f.evidence = std::move(ev);
  return f;
}

FleetReport FullReport(const std::string& text) {
  FleetReport r;
  r.gpuvet_version = "1.2.3";
  r.generated_at = "2026-01-02T00:00:00Z";
  r.origin = "reports " + text;
  r.policy_source = text;
  r.window_s = 86400;
  r.verdict = Severity::kFail;
  FleetNodeResult bad;
  bad.node = "node-" + text;
  bad.pool = "NVIDIA H100 x8";
  bad.verdict = Severity::kFail;
  bad.score = 1010;
  bad.quarantine = true;
  bad.reason = "gpu3: " + text;
  bad.reason_ids = {"fleet.pcie_downgrade", "fleet.ecc_uncorrected"};
  bad.sources = {"a/" + text, "b.json"};
  bad.findings.push_back(MakeFinding("fleet.pcie_downgrade", "gpu3 (0000:5d:00.0)", Severity::kFail,
                                     text, {{"width", "8", "== width_max 16"}, {text, text, ""}}));
  bad.findings.push_back(
      MakeFinding("fleet.no_such_id", text, Severity::kUnknown, "", {}));  // no catalogue text
  FleetNodeResult good;
  good.node = "node-2";
  good.pool = "";
  good.sources = {};
  r.nodes = {bad, good, good};
  r.nodes[2].verdict = Severity::kInfo;
  r.nodes[2].findings.push_back(MakeFinding("fleet.stale", "node", Severity::kInfo, "old", {}));
  r.skipped = {{"x/" + text, "not JSON (byte 3)"}, {"y", text}};
  return r;
}

TEST(FleetJsonTest, StreamedAsTheDom) {
  FleetReport empty;
  EXPECT_EQ(RenderFleetJson(empty, 0), RenderFleetJsonWithDom(empty, 0));
  for (const std::string text :
       {"plain", "", "quote\" back\\slash /", "tab\tnew\nline\r\x01\x1f\x7f",
        "caf\xc3\xa9 \xe2\x80\x94", "\xf0\x9f\x98\x80", "bad \xc3 utf8 \xff\xfe",
        "\xed\xa0\x80 surrogate", "cut \xe2\x82"}) {
    for (int exit_code : {0, 1, 3}) {
      const FleetReport r = FullReport(text);
      ASSERT_EQ(RenderFleetJson(r, exit_code), RenderFleetJsonWithDom(r, exit_code))
          << ::testing::PrintToString(text);
    }
  }
}

TEST(FleetJsonTest, DoublesAndRandomStringsAsTheDom) {
  std::mt19937 rng(1515);
  for (double w : {0.0, 0.5, 1.0 / 3, 86400.0, 604800.0, 1e20, 1e-7, 123456789.125, -2.5,
                   1.7976931348623157e308}) {
    FleetReport r = FullReport("w");
    r.window_s = w;
    ASSERT_EQ(RenderFleetJson(r, 0), RenderFleetJsonWithDom(r, 0)) << w;
  }
  for (int i = 0; i < 500; ++i) {
    std::string text(rng() % 12, ' ');
    for (char& c : text) c = static_cast<char>(rng() % 256);
    const FleetReport r = FullReport(text);
    ASSERT_EQ(RenderFleetJson(r, 1), RenderFleetJsonWithDom(r, 1))
        << ::testing::PrintToString(text);
  }
}

TEST(FleetJsonTest, IsValidJsonWithTheFieldsNamed) {
  const auto doc = nlohmann::json::parse(RenderFleetJson(FullReport("n"), 1));
  EXPECT_EQ(doc["schema"], "gpuvet.fleet/v1");
  EXPECT_EQ(doc["nodes"].size(), 3u);
  EXPECT_EQ(doc["nodes"][0]["rank"], 1);
  EXPECT_EQ(doc["nodes"][0]["findings"][0]["evidence"][0]["threshold"], "== width_max 16");
  EXPECT_FALSE(doc["nodes"][0]["findings"][0]["evidence"][1].contains("threshold"));
  EXPECT_EQ(doc["verdict"]["node_counts"]["fail"], 1);
  EXPECT_EQ(doc["verdict"]["node_counts"]["ok"], 1);
  EXPECT_EQ(doc["verdict"]["quarantine"], 1);
  EXPECT_EQ(doc["verdict"]["exit_code"], 1);
}

}  // namespace
}  // namespace gpuvet
