// The analyze renderers over reports from synthetic recordings: the JSON schema's keys and
// nulls for absent data, and the text sections a reader relies on.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/recording/recording_analyze.h"
#include "output/json/analyze_json.h"
#include "output/text/analyze_text.h"
#include "testing/recording_builder.h"

namespace gpuvet {
namespace {

using test::RecordingBuilder;
using test::SetGpus;

AnalyzeReport HostBoundThenCompute() {
  RecordingBuilder b(2, "NVIDIA A100-SXM4-80GB");
  b.meta().work_unit = "images";
  Recording rec = b.Add(300,
                        [](Sample& s, int i) {
                          SetGpus(s, 20);
                          s.processes[0].top_threads = {{100, "python3", 99}};
                          s.workload.work_total = 10.0 * i;
                        })
                      .Add(300, [](Sample& s, int i) { s.workload.work_total = 3000 + 40.0 * i; })
                      .Build();
  AnalyzeOptions o;
  o.target_gpu = "H200";
  o.price_per_gpu_hour = 2.5;
  AnalyzeReport r = AnalyzeRecording(rec, o);
  r.source = "job.gpuvet";
  r.generated_at = "2026-01-01T00:00:00Z";
  return r;
}

TEST(AnalyzeRenderTest, JsonCarriesSchemaAndEverySection) {
  nlohmann::json j = nlohmann::json::parse(RenderAnalyzeJson(HostBoundThenCompute()));
  EXPECT_EQ(j["schema"], "gpuvet.analyze/v1");
  EXPECT_EQ(j["generated_at"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(j["recording"]["samples"], 600);
  EXPECT_EQ(j["recording"]["workload_gpus"].size(), 2u);
  ASSERT_EQ(j["phases"].size(), 2u);
  EXPECT_EQ(j["phases"][0]["label"]["label"], "host_cpu_bound");
  EXPECT_EQ(j["verdict"]["label"], "host_cpu_bound");
  EXPECT_EQ(j["verdict"]["detail"], "single_thread_feeder");
  EXPECT_FALSE(j["verdict"]["evidence"].empty());
  EXPECT_EQ(j["verdict"]["evidence"][0]["threshold"], "< 50.0 %");
  EXPECT_TRUE(j["periodic_stall"].is_null());
  EXPECT_TRUE(j["memory_growth"].empty());
  EXPECT_EQ(j["energy"]["method"], "counter");
  EXPECT_EQ(j["energy"]["work_unit"], "images");
  EXPECT_NEAR(j["energy"]["work"].get<double>(), 3000 + 40 * 299.0, 0.01);  // 0 -> 14960
  EXPECT_FALSE(j["energy"]["work_per_dollar"].is_null());
  EXPECT_EQ(j["forecast"]["target"], "H200");
  EXPECT_EQ(j["forecast"]["schema"], "gpuvet.forecast/v1");
  // GPU-Util only: a range, and no single "speedup" a script could read as the answer.
  EXPECT_TRUE(j["forecast"]["range"].get<bool>());
  EXPECT_TRUE(j["forecast"]["speedup"].is_null());
  EXPECT_LT(j["forecast"]["speedup_high"].get<double>(), 1.6);
  EXPECT_LT(j["forecast"]["speedup_low"].get<double>(),
            j["forecast"]["speedup_high"].get<double>());
  EXPECT_FALSE(j["forecast"]["sources"].empty());
}

TEST(AnalyzeRenderTest, TextReadsLikeTheOtherCommands) {
  std::string t = RenderAnalyzeText(HostBoundThenCompute(), false);
  for (const char* want :
       {"gpuvet analyze: job.gpuvet", "phases\n", "labels\n",
        "host_cpu_bound/single_thread_feeder (50.0 % of wall time",
        "What to do:", "energy and work\n", "images/kJ", "upgrade forecast: A100 80GB -> H200",
        "source: NVIDIA H200", "\nverdict: host_cpu_bound/single_thread_feeder"}) {
    EXPECT_NE(t.find(want), std::string::npos) << want << "\n" << t;
  }
  EXPECT_EQ(t.find("\033["), std::string::npos);
  EXPECT_NE(RenderAnalyzeText(HostBoundThenCompute(), true).find("\033[33m"), std::string::npos);
}

TEST(AnalyzeRenderTest, EmptyRecordingRendersWithoutSections) {
  AnalyzeReport r = AnalyzeRecording(RecordingBuilder().Build(), AnalyzeOptions{});
  std::string t = RenderAnalyzeText(r, false);
  EXPECT_NE(t.find("warning: the recording holds no samples"), std::string::npos) << t;
  EXPECT_EQ(t.find("phases\n"), std::string::npos);
  nlohmann::json j = nlohmann::json::parse(RenderAnalyzeJson(r));
  EXPECT_EQ(j["verdict"]["label"], "none");
  EXPECT_TRUE(j["forecast"].is_null());
}

}  // namespace
}  // namespace gpuvet
