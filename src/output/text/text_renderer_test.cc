#include "output/text/text_renderer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

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

Finding GpuFinding(std::string id, int index, std::string pci, std::string serial,
                   std::string summary, std::vector<Evidence> ev) {
  Finding f{std::move(id),
            fmt::format("gpu{} ({})", index, pci),
            Severity::kWarn,
            std::move(summary),
            std::move(ev),
            "",
            ""};
  f.gpu = FindingGpu{index, pci, std::move(serial), fmt::format("GPU-{}", index)};
  return f;
}

// Every GPU finding names index, address, serial and UUID; a group keeps each member's own.
TEST(TextRendererTest, GpuFindingsNameTheBoardAndGroupsKeepEachSubject) {
  CheckReport r = Sample();
  Finding unnamed = GpuFinding("throttle.sw_power_cap", 2, "0000:d1:00.0", "",
                               "power cap lowering clocks under load", {{"power_w", "350.0", ""}});
  unnamed.gpu->uuid.clear();  // NVML never answered for it: nothing beyond the subject to say
  r.findings = {GpuFinding("throttle.sw_power_cap", 0, "0000:41:00.0", "1650521001111",
                           "power cap lowering clocks under load", {{"power_w", "347.1", ""}}),
                GpuFinding("throttle.sw_power_cap", 1, "0000:c1:00.0", "",
                           "power cap lowering clocks under load", {{"power_w", "349.8", ""}}),
                unnamed,
                GpuFinding("settings.persistence_mode", 1, "0000:c1:00.0", "1650521002222",
                           "persistence mode disabled", {})};
  r.verdict = Severity::kWarn;
  std::string out = RenderText(r, {});
  EXPECT_NE(out.find("WARN    throttle.sw_power_cap  gpu0, gpu1, gpu2 (3 subjects)\n"
                     "          power cap lowering clocks under load\n"
                     "          gpu0      pci 0000:41:00.0; serial 1650521001111; uuid GPU-0\n"
                     "          evidence  power_w=347.1\n"
                     "          gpu1      pci 0000:c1:00.0; serial unknown; uuid GPU-1\n"
                     "          evidence  power_w=349.8\n"
                     "          evidence  gpu2: power_w=350.0\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("WARN    settings.persistence_mode  gpu1 (0000:c1:00.0)\n"
                     "          persistence mode disabled\n"
                     "          gpu1      pci 0000:c1:00.0; serial 1650521002222; uuid GPU-1\n"),
            std::string::npos)
      << out;
  // A bridge finding names the GPU behind it and says the finding is about the bridge.
  Finding bridge = GpuFinding("pcie.link_width_reduced", 7, "0000:db:00.0", "1652323000007",
                              "PCIe x8 on a x16 link", {});
  bridge.subject = "gpu7 upstream bridge 0000:da:01.0";
  std::string b = RenderFindings({bridge}, {});
  EXPECT_NE(b.find("gpu7      pci 0000:db:00.0; serial 1652323000007; uuid GPU-7; the finding is "
                   "about its upstream bridge 0000:da:01.0\n"),
            std::string::npos)
      << b;
  // Non-GPU members of a group keep theirs too, named by subject.
  Finding p1{
      "numa.process_affinity", "pid 1", Severity::kWarn, "pinned", {{"cpus", "0", ""}}, "", ""};
  Finding p2{
      "numa.process_affinity", "pid 2", Severity::kWarn, "pinned", {{"cpus", "1", ""}}, "", ""};
  std::string procs = RenderFindings({p1, p2}, {});
  EXPECT_NE(procs.find("evidence  pid 1: cpus=0\n          evidence  pid 2: cpus=1\n"),
            std::string::npos)
      << procs;
}

// Unknowns that only say "not in the capture" fold into one block listing the fields.
TEST(TextRendererTest, CaptureGapsFoldIntoOneBlock) {
  CheckReport r = Sample();
  r.gpus.from_capture = true;
  r.gpus.captured_at = Reading<std::string>::Of("Mon Mar  3 09:15:42 2025");
  auto gap = [](std::string id, int index, std::string summary, std::vector<Evidence> ev = {}) {
    Finding f = GpuFinding(std::move(id), index, fmt::format("0000:0{}:00.0", index + 1), "",
                           std::move(summary), std::move(ev));
    f.severity = Severity::kUnknown;
    f.not_in_capture = true;
    f.meaning = "The capture does not contain the values.";
    f.decision = "Ask for a full capture.";
    return f;
  };
  r.findings = {
      gap("pcie.link_width_reduced", 0,
          "PCIe link width unknown: gpu pcie_width_max: field not in the capture"),
      gap("power.limit", 0,
          "power limit unknown: power_limit_w: field not in the capture; default_power_limit_w: "
          "field not in the capture"),
      gap("ecc.mode", 1, "ECC mode not in the capture: cannot tell whether ECC is on",
          {{"ecc_mode/current_ecc", "absent from the capture", ""}}),
      gap("ecc.volatile_dbe", 1, "ECC is enabled but its error counts are not in the capture"),
  };
  r.verdict = Severity::kUnknown;
  std::string out = RenderText(r, {});
  EXPECT_NE(out.find("  taken:  Mon Mar  3 09:15:42 2025 (the capture's timestamp)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("pcie        1 unknown\npower       1 unknown\necc         2 unknown\n"
                     "capture     the 4 unknowns above: their fields are not in the capture\n"
                     "  UNKNOWN not in the capture  gpu0, gpu1 (2 subjects)\n"
                     "          4 checks not judged, the capture lacks their fields: "
                     "pcie_width_max, power_limit_w, default_power_limit_w, ecc_mode/current_ecc, "
                     "ecc.volatile_dbe\n"
                     "          gpu0      pci 0000:01:00.0; serial unknown; uuid GPU-0\n"
                     "          gpu1      pci 0000:02:00.0; serial unknown; uuid GPU-1\n"
                     "          checks    pcie.link_width_reduced, power.limit, ecc.mode, "
                     "ecc.volatile_dbe\n"
                     "          meaning   The capture does not contain the values.\n"
                     "          decision  Ask for a full capture.\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("Ask for a full capture."), out.rfind("Ask for a full capture."))
      << "the shared meaning and decision are printed once";

  // One gap alone stays where it belongs; a capture without a timestamp says so.
  r.findings.resize(1);
  r.gpus.captured_at = Reading<std::string>::Unsupported(std::string(kNotInCapture));
  out = RenderText(r, {});
  EXPECT_EQ(out.find("capture     the"), std::string::npos) << out;
  EXPECT_NE(out.find("UNKNOWN pcie.link_width_reduced  gpu0 (0000:01:00.0)"), std::string::npos);
  EXPECT_NE(out.find("  taken:  not in the capture\n"), std::string::npos) << out;
}

// The fields are read back from summary text: every cut and fixed-seed mutations of the real
// summaries still render one block (falling back to the check id), never crash.
TEST(TextRendererTest, CaptureGapFieldsFromCutAndMutatedSummaries) {
  const std::string summaries[] = {
      "power limit unknown: power_limit_w: field not in the capture; default_power_limit_w: "
      "field not in the capture",
      "PCIe link width unknown: gpu pcie_width_max: field not in the capture"};
  std::mt19937 rng(9);
  auto render = [](const std::string& summary) {
    Finding a{"power.limit", "gpu0", Severity::kUnknown, summary, {}, "m", "d"};
    a.not_in_capture = true;
    Finding b = a;
    b.id = "thermal.margin";
    std::string out = RenderFindings({a, b}, {});
    EXPECT_NE(out.find("UNKNOWN not in the capture  gpu0\n"), std::string::npos) << out;
  };
  for (const std::string& s : summaries) {
    for (size_t cut = 0; cut <= s.size(); ++cut) render(s.substr(0, cut));
    for (int i = 0; i < 300; ++i) {
      std::string m = s;
      for (int k = 0; k < 4; ++k) m[rng() % m.size()] = static_cast<char>(rng() % 256);
      render(m);
    }
  }
}

}  // namespace
}  // namespace gpuvet
