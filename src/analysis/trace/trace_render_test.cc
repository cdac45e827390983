// The trace renderers over a hand-built report: schema, sorted keys, finding shape shared with
// `gpuvet check`, determinism, and the text layout's main lines.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/trace/analyze.h"
#include "output/json/trace_json.h"
#include "output/text/trace_text.h"
#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

TraceReport Report() {
  TraceBuilder b;
  double t = 0;
  for (int i = 0; i < 150; ++i) {
    b.Launched("ampere_sgemm", t - 2, 5, t + 5, 100);
    t += 205;
  }
  b.Copy(CopyKind::kHtoD, 1 << 20, t + 10, 100, MemKind::kPageable, RuntimeKind::kMemcpy, t, 120);
  RankTrace r = b.Build();
  r.rank = 0;
  r.world_size = 2;
  r.source = "run/rank0.json";
  r.format = "kineto-json";
  r.warnings.push_back("run/rank0.json: byte 10: unknown category \"foo\"");
  r.names.push_back("bad \xff utf8");  // must not break the JSON renderer
  r.gpu_ops.back().name = static_cast<uint32_t>(r.names.size() - 1);
  return AnalyzeTraces({r}, TraceOptions{});
}

TEST(TraceJsonTest, SchemaShapeAndDeterminism) {
  TraceReport report = Report();
  std::string text = RenderTraceJson(report);
  EXPECT_EQ(text, RenderTraceJson(report));
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["schema"], "gpuvet.trace/v1");
  ASSERT_EQ(j["inputs"].size(), 1u);
  EXPECT_EQ(j["inputs"][0]["format"], "kineto-json");
  EXPECT_EQ(j["inputs"][0]["warnings"].size(), 1u);
  const auto& rank = j["ranks"][0];
  EXPECT_EQ(rank["subject"], "rank 0");
  EXPECT_TRUE(rank["temporal_breakdown"].contains("idle_pct"));
  EXPECT_TRUE(rank["idle_time_breakdown"][0].contains("host_wait_us"));
  EXPECT_EQ(rank["copies"]["pageable"]["count"], 1);
  EXPECT_EQ(rank["verdict"]["label"], "host_cpu_bound");
  EXPECT_EQ(j["cross_rank"]["missing_ranks"], nlohmann::json::array({1}));
  const auto& f = j["findings"][0];
  for (const char* key :
       {"id", "area", "subject", "severity", "summary", "evidence", "meaning", "decision"}) {
    EXPECT_TRUE(f.contains(key)) << key;
  }
  EXPECT_EQ(f["area"], "trace");
  EXPECT_EQ(j["verdict"]["label"], "host_cpu_bound");
  EXPECT_EQ(j["verdict"]["severity"], "warn");
  // Keys sorted: "cross_rank" < "findings" < "inputs" < "ranks" < "schema" < "verdict".
  EXPECT_LT(text.find("\"cross_rank\""), text.find("\"findings\""));
  EXPECT_LT(text.find("\"schema\""), text.rfind("\"verdict\""));
}

TEST(TraceTextTest, VerdictTablesAndFindings) {
  TraceReport report = Report();
  std::string text = RenderTraceText(report, false);
  EXPECT_NE(text.find("gpuvet trace: 1 rank(s)"), std::string::npos);
  EXPECT_NE(text.find("rank 0     host_cpu_bound"), std::string::npos);
  EXPECT_NE(text.find("idle/stream"), std::string::npos);
  EXPECT_NE(text.find("top kernels"), std::string::npos);
  EXPECT_NE(text.find("ampere_sgemm"), std::string::npos);
  EXPECT_NE(text.find("WARN    trace.host_cpu_bound  rank 0"), std::string::npos);
  EXPECT_NE(text.find("decision"), std::string::npos);
  EXPECT_EQ(text.find("gpuvet check"), std::string::npos);  // the check header is stripped
  EXPECT_EQ(text.find("HEALTHY"), std::string::npos);
  EXPECT_NE(text.rfind("verdict: host_cpu_bound ("), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
  std::string colored = RenderTraceText(report, true);
  EXPECT_NE(colored.find("\033["), std::string::npos);
}

}  // namespace
}  // namespace gpuvet
