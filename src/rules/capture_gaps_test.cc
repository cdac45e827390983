// Rules over a saved nvidia-smi capture: GPUs the capture does not hold are "not captured" (info),
// not missing from the driver; fields its elements lack are unknown with "not in the capture",
// apart from fields nvidia-smi marks N/A (not supported by the GPU).
#include <gtest/gtest.h>

#include <string>

#include "rules/rules.h"
#include "testing/findings.h"
#include "testing/gpu_builders.h"
#include "testing/rule_check.h"

namespace gpuvet {
namespace {

using test::FindingsWithId;
using test::OnlyFinding;

constexpr char kSubject[] = "gpu0 (0000:01:00.0)";

GpuInventory Capture(std::vector<GpuState> gpus, int attached) {
  GpuInventory inv = test::InventoryOf(std::move(gpus));
  inv.origin = "nvidia-smi-xml (capture.xml)";
  inv.from_capture = true;
  inv.driver_version = Reading<std::string>::Of("535.54.03");
  inv.device_count = Reading<int>::Of(attached);
  return inv;
}

std::vector<Finding> RunAll(const GpuInventory& inv) {
  std::vector<Finding> out;
  for (RuleFn rule : {CheckDriver, CheckPcie, CheckClocks, CheckEcc}) {
    for (Finding& f : test::RunCheck(rule, HostState{}, inv)) out.push_back(std::move(f));
  }
  return out;
}

template <typename T>
Reading<T> Absent() {
  return Reading<T>::Unsupported(std::string(kNotInCapture));
}

TEST(CaptureRules, SingleGpuCaptureOfAFourGpuHostIsInfoNotFail) {
  // `nvidia-smi -q -x -i 0`, saved with its command line: attached_gpus 4, one <gpu>.
  GpuInventory inv = Capture({test::HealthyGpu(0, "0000:01:00.0")}, 4);
  inv.capture_selected = true;
  Finding f = OnlyFinding(RunAll(inv), "driver.gpus_visible", "host");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.summary,
            "capture of selected GPUs (-i) holds 1 of 4 attached GPUs; the others were not "
            "captured");
  EXPECT_EQ(f.decision.find("Xid"), std::string::npos) << f.decision;
  EXPECT_EQ(f.meaning.find("fell off"), std::string::npos) << f.meaning;
}

// Issue 26: without a sign of -i, a GPU the driver counted but the capture lacks may be missing
// (warn); a capture cut short says it is truncated.
TEST(CaptureRules, FewerGpuSectionsThanAttachedWarnsOrSaysTruncated) {
  GpuInventory inv = Capture({test::HealthyGpu(0, "0000:01:00.0")}, 4);
  Finding f = OnlyFinding(RunAll(inv), "driver.gpus_visible", "host");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_NE(f.summary.find("has no section"), std::string::npos) << f.summary;
  inv.capture_truncated = true;
  f = OnlyFinding(RunAll(inv), "driver.gpus_visible", "host");
  EXPECT_NE(f.summary.find("truncated"), std::string::npos) << f.summary;
  EXPECT_EQ(f.summary.find("-i"), std::string::npos) << f.summary;
}

TEST(CaptureRules, LiveDriverListingMoreGpusThanOpenedStillFails) {
  GpuInventory inv = Capture({test::HealthyGpu(0, "0000:01:00.0")}, 4);
  inv.from_capture = false;
  inv.origin = "nvml (libnvidia-ml.so.1)";
  EXPECT_EQ(OnlyFinding(RunAll(inv), "driver.gpus_visible", "host").severity, Severity::kFail);
}

// What a sparse v10 capture (gtx-1070-ti.xml) leaves: current link gen/width, temperature and
// clocks, but no maximum link, slowdown threshold, power limit, clock reasons, replay counter or
// ECC mode.
GpuState SparseGpu() {
  GpuState g = test::HealthyGpu(0, "0000:01:00.0");
  g.pcie_gen_max = Absent<int>();
  g.pcie_width_max = Absent<int>();
  g.pcie_replay_counter = Absent<uint64_t>();
  g.slowdown_temperature_c = Absent<int>();
  g.power_limit_w = Absent<double>();
  g.default_power_limit_w = Absent<double>();
  g.clock_event_reasons = Absent<uint64_t>();
  g.sm_clock_max_mhz = Absent<int>();
  g.ecc_enabled = Absent<bool>();
  g.ecc_pending_enabled = Absent<bool>();
  return g;
}

TEST(CaptureRules, FieldsMissingFromACaptureAreUnknownNotSilent) {
  auto fs = RunAll(Capture({SparseGpu()}, 1));
  for (const char* id :
       {"pcie.link_gen_reduced", "pcie.link_width_reduced", "pcie.replay_counter", "thermal.margin",
        "power.limit", "throttle.sw_power_cap", "throttle.hw_slowdown", "throttle.thermal",
        "throttle.power_brake", "clocks.sm_below_max", "ecc.mode"}) {
    std::vector<Finding> found = FindingsWithId(fs, id);
    ASSERT_EQ(found.size(), 1u) << id;
    EXPECT_EQ(found[0].severity, Severity::kUnknown) << id << ": " << found[0].summary;
    EXPECT_EQ(found[0].subject, kSubject) << id;
    EXPECT_NE(found[0].summary.find("not in the capture"), std::string::npos)
        << id << ": " << found[0].summary;
  }
  EXPECT_EQ(OnlyFinding(fs, "ecc.mode", kSubject).summary,
            "ECC mode not in the capture: cannot tell whether ECC is on");
}

// RunRules gives every such unknown a meaning about the gap, not the catalogue's problem text.
TEST(CaptureRules, GapsExplainTheCaptureNotTheProblem) {
  GpuInventory inv = Capture({SparseGpu()}, 1);
  HostState host;
  std::vector<Finding> fs = RunRules(CheckInput{host, inv}, Policy{});
  Finding thermal = OnlyFinding(fs, "thermal.margin", kSubject);
  EXPECT_NE(thermal.meaning.find("The capture does not contain"), std::string::npos);
  EXPECT_NE(thermal.decision.find("nvidia-smi -q -x"), std::string::npos);
}

// A garbled field of a capture is a field that could not be parsed, not a failed NVML call.
TEST(CaptureRules, GarbledFieldIsNotAnNvmlCall) {
  GpuState g = test::HealthyGpu(0, "0000:01:00.0");
  g.failures.push_back(
      {"pci/pci_bus_id", "gpu[0]/pci/pci_bus_id: cannot parse 'x' as a PCI address", false});
  Finding f = OnlyFinding(RunAll(Capture({g}, 1)), "gpu.query_failed", kSubject);
  EXPECT_EQ(f.summary,
            "1 field(s) of the capture could not be parsed: pci/pci_bus_id; checks that need them "
            "are unknown");
  EXPECT_EQ(f.meaning.find("did not return"), std::string::npos) << f.meaning;
}

TEST(CaptureRules, NotSupportedInTheCaptureStaysNotSupported) {
  GpuState g = test::HealthyGpu(0, "0000:01:00.0");
  g.ecc_enabled = Reading<bool>::Unsupported("nvidia-smi reports N/A");
  g.power_limit_w = Reading<double>::Unsupported("nvidia-smi reports N/A");
  auto fs = RunAll(Capture({g}, 1));
  Finding ecc = OnlyFinding(fs, "ecc.mode", kSubject);
  EXPECT_EQ(ecc.severity, Severity::kOk);
  EXPECT_EQ(ecc.summary, "ECC not supported by this GPU: not applicable");
  EXPECT_TRUE(FindingsWithId(fs, "power.limit").empty());  // N/A: skipped, as with NVML
}

TEST(CaptureRules, EnabledEccWithoutCountsIsUnknown) {
  GpuState g = test::HealthyGpu(0, "0000:01:00.0");
  g.ecc_corrected_volatile = Absent<uint64_t>();
  g.ecc_uncorrected_volatile = Absent<uint64_t>();
  Finding f = OnlyFinding(RunAll(Capture({g}, 1)), "ecc.volatile_dbe", kSubject);
  EXPECT_EQ(f.severity, Severity::kUnknown);
  EXPECT_NE(f.summary.find("not in the capture"), std::string::npos);
}

}  // namespace
}  // namespace gpuvet
