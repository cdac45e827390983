#include "output/json_renderer.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

TEST(JsonRendererTest, SchemaVerdictAndFindings) {
  CheckReport r;
  r.gpuvet_version = "0.1.0";
  r.generated_at = "2026-01-01T00:00:00Z";
  r.gpus.state = GpuSourceState::kOk;
  GpuState g;
  g.index = 0;
  g.pci_bus_id = "0000:3b:00.0";
  g.power_w = Reading<double>::Of(312.5);
  g.temperature_c = Reading<int>::Unsupported("n/a");
  r.gpus.gpus = {g};
  GpuPciTopology t;
  t.gpu.address = "0000:3b:00.0";
  t.gpu.numa_node = Reading<int>::Of(1);
  r.host.pci_gpus = Reading<std::vector<GpuPciTopology>>::Of({t});
  r.findings = {{"ecc.volatile_dbe",
                 "gpu0 (0000:3b:00.0)",
                 Severity::kFail,
                 "1 DBE",
                 {{"uncorrected_volatile", "1", "== 0"}},
                 "",
                 ""}};
  r.verdict = Severity::kFail;
  auto j = nlohmann::json::parse(RenderJson(r));
  EXPECT_EQ(j["schema"], "gpuvet.check/v1");
  EXPECT_EQ(j["verdict"]["severity"], "fail");
  EXPECT_EQ(j["verdict"]["exit_code"], 1);
  EXPECT_EQ(j["verdict"]["counts"]["fail"], 1);
  EXPECT_EQ(j["gpus"][0]["power_w"], 312.5);
  EXPECT_TRUE(j["gpus"][0]["temperature_c"].is_null());
  EXPECT_EQ(j["gpus"][0]["numa_node"], 1);
  const auto& f = j["findings"][0];
  EXPECT_EQ(f["area"], "ecc");
  EXPECT_EQ(f["evidence"][0]["threshold"], "== 0");
  EXPECT_FALSE(f["decision"].get<std::string>().empty()) << "catalogue text fills the decision";
}

}  // namespace
}  // namespace gpuvet
