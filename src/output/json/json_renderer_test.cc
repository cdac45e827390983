#include "output/json/json_renderer.h"

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
  EXPECT_FALSE(f.contains("gpu")) << "set by RunRules, not by the renderer";
  EXPECT_FALSE(j["gpu_source"].contains("captured_at")) << "live NVML has no capture time";
}

// Additive fields: the GPU a finding is about, capture gaps, and the capture's own timestamp.
TEST(JsonRendererTest, GpuIdentityAndCaptureTime) {
  CheckReport r;
  r.gpus.state = GpuSourceState::kOk;
  r.gpus.from_capture = true;
  r.gpus.captured_at = Reading<std::string>::Of("Tue Nov 24 14:02:11 2026");
  Finding f{"ecc.row_remap", "gpu1 (0000:c1:00.0)", Severity::kFail, "remap pending", {}, "", ""};
  f.gpu = FindingGpu{1, "0000:c1:00.0", "1321021035911", "GPU-8f6d"};
  Finding unlisted{"pcie.aer_corrected", "pci 0000:86:00.0", Severity::kUnknown, "x", {}, "", ""};
  unlisted.gpu = FindingGpu{-1, "0000:86:00.0", "", ""};
  unlisted.not_in_capture = true;
  Finding host{"cpu.governor", "host", Severity::kOk, "performance", {}, "", ""};
  r.findings = {f, unlisted, host};
  auto j = nlohmann::json::parse(RenderJson(r));
  EXPECT_EQ(j["gpu_source"]["captured_at"], "Tue Nov 24 14:02:11 2026");
  const auto& g = j["findings"][0]["gpu"];
  EXPECT_EQ(g["index"], 1);
  EXPECT_EQ(g["pci_bus_id"], "0000:c1:00.0");
  EXPECT_EQ(g["serial"], "1321021035911");
  EXPECT_EQ(g["uuid"], "GPU-8f6d");
  EXPECT_FALSE(j["findings"][0].contains("not_in_capture"));
  const auto& u = j["findings"][1]["gpu"];
  EXPECT_TRUE(u["index"].is_null());
  EXPECT_TRUE(u["serial"].is_null());
  EXPECT_TRUE(u["uuid"].is_null());
  EXPECT_EQ(j["findings"][1]["not_in_capture"], true);
  EXPECT_FALSE(j["findings"][2].contains("gpu"));
}

}  // namespace
}  // namespace gpuvet
