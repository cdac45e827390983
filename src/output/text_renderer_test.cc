#include "output/text_renderer.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

CheckReport Sample() {
  CheckReport r;
  r.host.hostname = "node01";
  r.gpus.state = GpuSourceState::kOk;
  r.gpus.origin = "nvml (fake)";
  r.gpus.driver_version = Reading<std::string>::Of("550.90.07");
  r.gpus.cuda_driver_version = Reading<int>::Of(12040);
  GpuState g;
  g.name = "NVIDIA H100";
  r.gpus.gpus = {g, g};
  r.policy_source = "built-in defaults";
  Finding ok{"driver.loaded", "host", Severity::kOk, "2 GPUs", {}, "", ""};
  Finding bad{"pcie.link_width_reduced",
              "gpu1 (0000:3b:00.0)",
              Severity::kFail,
              "PCIe x8 on a x16 link",
              {{"current_width", "8", "== max_width 16"}},
              "",
              ""};
  r.findings = {ok, bad};
  r.verdict = Severity::kFail;
  return r;
}

TEST(TextRendererTest, ProblemsInFullOkCondensed) {
  std::string out = RenderText(Sample(), {});
  EXPECT_NE(out.find("gpuvet check on node01"), std::string::npos);
  EXPECT_NE(out.find("2 × NVIDIA H100"), std::string::npos);
  EXPECT_NE(out.find("driver: 550.90.07, CUDA 12.4"), std::string::npos);
  EXPECT_NE(out.find("driver      1 ok"), std::string::npos);
  EXPECT_EQ(out.find("2 GPUs"), std::string::npos) << "ok findings hidden unless verbose";
  EXPECT_NE(out.find("FAIL    pcie.link_width_reduced  gpu1 (0000:3b:00.0)"), std::string::npos);
  EXPECT_NE(out.find("current_width=8 (expected == max_width 16)"), std::string::npos);
  EXPECT_NE(out.find("decision"), std::string::npos);
  EXPECT_NE(out.find("verdict: UNHEALTHY (1 fail, 1 ok)"), std::string::npos);
  EXPECT_EQ(out.find("\033["), std::string::npos) << "no colour unless asked";
}

// Trace verdict criteria share RenderFindings but are not expectations: printed bare there.
TEST(TextRendererTest, ThresholdsReadAsExpectationsOnlyInCheckReports) {
  std::string findings = RenderFindings(Sample().findings, {});
  EXPECT_NE(findings.find("current_width=8 (== max_width 16)"), std::string::npos) << findings;
  EXPECT_EQ(findings.find("expected"), std::string::npos) << findings;
}

// Header lines say what happened: GPUs never asked (NVML hung first) and a partial capture.
TEST(TextRendererTest, HeaderNamesUnreadGpusAndPartialCaptures) {
  CheckReport r = Sample();
  r.gpus.gpus[1].name.clear();
  r.gpus.gpus[1].abandoned = true;
  std::string out = RenderText(r, {});
  EXPECT_NE(out.find("GPUs:   1 × NVIDIA H100, 1 × not read (NVML hung)"), std::string::npos)
      << out;
  r = Sample();
  r.gpus.from_capture = true;
  r.gpus.device_count = Reading<int>::Of(4);
  r.gpus.driver_version = Reading<std::string>::Unsupported(std::string(kNotInCapture));
  out = RenderText(r, {});
  EXPECT_NE(out.find("GPUs:   2 × NVIDIA H100 (captured 2 of 4 attached)"), std::string::npos)
      << out;
  EXPECT_NE(out.find("driver: not in the capture"), std::string::npos) << out;
}

TEST(TextRendererTest, VerboseAndColour) {
  std::string out = RenderText(Sample(), {.color = true, .verbose = true});
  EXPECT_NE(out.find("2 GPUs"), std::string::npos);
  EXPECT_NE(out.find("\033[1;31m"), std::string::npos);
}

TEST(TextRendererTest, VerdictWords) {
  CheckReport r;
  // No finding at all is not "healthy": nothing was examined (e.g. --only numa without GPUs).
  EXPECT_EQ(VerdictLine(r),
            "verdict: NOTHING CHECKED (the selected checks found nothing to examine here)");
  r.findings = {{"cpu.governor", "host", Severity::kWarn, "powersave", {}, "", ""}};
  r.verdict = Severity::kWarn;
  EXPECT_EQ(VerdictLine(r), "verdict: HEALTHY WITH WARNINGS (1 warn)");
}

}  // namespace
}  // namespace gpuvet
