#include <gtest/gtest.h>

#include "rules/rules.h"
#include "testing/gpu_builders.h"
#include "testing/rule_check.h"

namespace gpuvet {
namespace {

GpuState Gpu(int index, std::string bus) {
  GpuState g = test::GpuAt(index, std::move(bus));
  g.name = "NVIDIA H100 80GB HBM3";
  return g;
}

GpuPciTopology Pci(std::string address, std::string driver = "nvidia") {
  GpuPciTopology t;
  t.gpu = test::NvidiaFunction(std::move(address));
  t.gpu.driver = std::move(driver);
  return t;
}

struct Fixture {
  HostState host;
  GpuInventory gpus;
  Policy policy;
  std::vector<Finding> Run() { return test::RunCheck(CheckDriver, host, gpus, policy); }
};

Fixture Healthy() {
  Fixture f;
  f.gpus.origin = "nvml (libnvidia-ml.so.1)";
  f.gpus.state = GpuSourceState::kOk;
  f.gpus.driver_version = Reading<std::string>::Of("550.90.07");
  f.gpus.cuda_driver_version = Reading<int>::Of(12040);
  f.gpus.device_count = Reading<int>::Of(2);
  f.gpus.gpus = {Gpu(0, "0000:3b:00.0"), Gpu(1, "0000:86:00.0")};
  f.host.nvidia_module_version = Reading<std::string>::Of("550.90.07");
  f.host.pci_gpus =
      Reading<std::vector<GpuPciTopology>>::Of({Pci("0000:3b:00.0"), Pci("0000:86:00.0")});
  return f;
}

const Finding* Find(const std::vector<Finding>& fs, std::string_view id, Severity sev) {
  for (const Finding& f : fs) {
    if (f.id == id && f.severity == sev) return &f;
  }
  return nullptr;
}

TEST(DriverRulesTest, HealthyNodeIsAllOk) {
  Fixture f = Healthy();
  auto out = f.Run();
  EXPECT_EQ(WorstSeverity(out), Severity::kOk);
  EXPECT_NE(Find(out, "driver.loaded", Severity::kOk), nullptr);
  EXPECT_NE(Find(out, "driver.gpus_visible", Severity::kOk), nullptr);
  EXPECT_NE(Find(out, "driver.version_mismatch", Severity::kOk), nullptr);
  EXPECT_NE(Find(out, "gpu.lost", Severity::kOk), nullptr);
}

TEST(DriverRulesTest, NoDriverNoGpuIsInfo) {
  Fixture f;
  f.gpus.state = GpuSourceState::kLibraryMissing;
  f.gpus.origin = "nvml";
  f.gpus.detail = "libnvidia-ml.so.1: cannot open shared object file";
  f.host.pci_gpus = Reading<std::vector<GpuPciTopology>>::Of({});
  f.host.nvidia_module_version = Reading<std::string>::Unsupported("not loaded");
  auto out = f.Run();
  const Finding* l = Find(out, "driver.loaded", Severity::kInfo);
  ASSERT_NE(l, nullptr);
  EXPECT_NE(l->summary.find("no NVIDIA GPU or driver found"), std::string::npos);
  EXPECT_EQ(WorstSeverity(out), Severity::kInfo);
}

TEST(DriverRulesTest, GpusOnBusButNoDriverFails) {
  Fixture f = Healthy();
  f.gpus = GpuInventory{};
  f.gpus.state = GpuSourceState::kDriverNotLoaded;
  f.gpus.detail = "nvmlInit_v2: DRIVER_NOT_LOADED";
  f.host.nvidia_module_version = Reading<std::string>::Unsupported("not loaded");
  auto out = f.Run();
  EXPECT_NE(Find(out, "driver.loaded", Severity::kFail), nullptr);
}

TEST(DriverRulesTest, InitUnknownErrorExplainsContainers) {
  Fixture f = Healthy();
  f.gpus.state = GpuSourceState::kInitFailed;
  f.gpus.detail = "nvmlInit_v2: UNKNOWN";
  auto out = f.Run();
  const Finding* l = Find(out, "driver.loaded", Severity::kFail);
  ASSERT_NE(l, nullptr);
  EXPECT_NE(l->decision.find("daemon-reload"), std::string::npos);
}

// Issue 17: a driver that does not answer used to be unknown, so a wedged node passed (exit 0).
TEST(DriverRulesTest, HungInitFails) {
  Fixture f = Healthy();
  f.gpus.state = GpuSourceState::kHung;
  f.gpus.detail = "nvmlInit_v2 did not return within 2000 ms";
  auto out = f.Run();
  EXPECT_EQ(Find(out, "driver.loaded", Severity::kUnknown), nullptr);
  const Finding* hung = Find(out, "gpu.unresponsive", Severity::kFail);
  ASSERT_NE(hung, nullptr);
  EXPECT_EQ(hung->subject, "host");
  EXPECT_EQ(hung->summary, "NVML did not answer: nvmlInit_v2 did not return within 2000 ms");
  // A wedged driver is loaded: the advice is drain, bug report, reset, not "install the driver".
  EXPECT_EQ(hung->decision.find("modprobe"), std::string::npos) << hung->decision;
  EXPECT_NE(hung->decision.find("nvidia-bug-report.sh"), std::string::npos) << hung->decision;
  EXPECT_NE(hung->decision.find("Drain"), std::string::npos) << hung->decision;
  EXPECT_NE(hung->meaning.find("/proc/driver/nvidia/version"), std::string::npos);
}

// Issue 26: a GPU the driver counts but NVML cannot open (no handle, so no name or address) used
// to be gpu.query_failed unknown and pass. Each code now fails with its own finding, naming the
// PCI address from sysfs (NVML numbers GPUs in bus order).
Fixture Unopened(GpuFault fault, const char* message) {
  Fixture f = Healthy();
  GpuState& g = f.gpus.gpus[1];
  g = GpuState{};
  g.index = 1;
  g.handle_fault = fault;
  if (fault == GpuFault::kLost) {
    g.lost = true;
    g.lost_call = "nvmlDeviceGetHandleByIndex_v2";
  } else if (fault == GpuFault::kResetRequired) {
    g.reset_required = true;
    g.reset_required_call = "nvmlDeviceGetHandleByIndex_v2";
  } else {
    g.failures.push_back({"nvmlDeviceGetHandleByIndex_v2", message, false});
  }
  return f;
}

TEST(DriverRulesTest, GpuNvmlCannotOpenFailsByItsCodeNamedBySysfs) {
  {
    auto out = Unopened(GpuFault::kUnknown, "Unknown Error (NVML_ERROR_UNKNOWN = 999)").Run();
    const Finding* u = Find(out, "gpu.unresponsive", Severity::kFail);
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(u->subject, "gpu1");
    EXPECT_EQ(u->summary,
              "NVML could not open GPU0000:86:00.0 (Unknown Error (NVML_ERROR_UNKNOWN = 999)): "
              "the driver counts it but cannot open it: it does not answer its driver");
    EXPECT_EQ(Find(out, "gpu.query_failed", Severity::kUnknown), nullptr);
    EXPECT_EQ(WorstSeverity(out), Severity::kFail);
  }
  {
    auto out = Unopened(GpuFault::kLost, "").Run();
    const Finding* l = Find(out, "gpu.lost", Severity::kFail);
    ASSERT_NE(l, nullptr);
    EXPECT_NE(l->summary.find("at 0000:86:00.0 (from sysfs)"), std::string::npos) << l->summary;
    EXPECT_NE(l->summary.find("GPU_IS_LOST"), std::string::npos) << l->summary;
  }
  {
    auto out = Unopened(GpuFault::kResetRequired, "").Run();
    const Finding* r = Find(out, "gpu.reset_required", Severity::kFail);
    ASSERT_NE(r, nullptr);
    EXPECT_NE(r->summary.find("nvidia-smi -r -i 0000:86:00.0"), std::string::npos) << r->summary;
    EXPECT_EQ(Find(out, "gpu.query_failed", Severity::kUnknown), nullptr);
  }
  {
    auto out = Unopened(GpuFault::kInsufficientPower, "Insufficient External Power").Run();
    const Finding* p = Find(out, "gpu.unresponsive", Severity::kFail);
    ASSERT_NE(p, nullptr);
    EXPECT_NE(p->decision.find("power cables"), std::string::npos) << p->decision;
  }
  {  // a permission problem is this process's, not the GPU's: unknown, never a drain
    auto out = Unopened(GpuFault::kNoPermission, "Insufficient Permissions").Run();
    EXPECT_NE(Find(out, "gpu.query_failed", Severity::kUnknown), nullptr);
    EXPECT_EQ(Find(out, "gpu.unresponsive", Severity::kFail), nullptr);
  }
}

TEST(DriverRulesTest, UnopenedGpuWithoutASysfsMatchIsNamedByIndex) {
  Fixture f = Unopened(GpuFault::kUnknown, "Unknown Error");
  f.host.pci_gpus = Reading<std::vector<GpuPciTopology>>::Error("cannot read /sys/bus/pci");
  auto out = f.Run();
  const Finding* u = Find(out, "gpu.unresponsive", Severity::kFail);
  ASSERT_NE(u, nullptr);
  EXPECT_NE(u->summary.find("NVML could not open gpu1 "), std::string::npos) << u->summary;
}

TEST(DriverRulesTest, ResetRequiredOnAnyCallFails) {
  Fixture f = Healthy();
  f.gpus.gpus[0].reset_required = true;
  f.gpus.gpus[0].reset_required_call = "nvmlDeviceGetMemoryInfo";
  auto out = f.Run();
  const Finding* r = Find(out, "gpu.reset_required", Severity::kFail);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->subject, "gpu0 (0000:3b:00.0)");
  EXPECT_NE(r->summary.find("nvmlDeviceGetMemoryInfo: RESET_REQUIRED"), std::string::npos);
}

TEST(DriverRulesTest, GpuWhoseCallHungFailsAndOthersAreNotClaimedToAnswer) {
  Fixture f = Healthy();
  f.gpus.gpus[1].abandoned = true;
  f.gpus.gpus[1].failures.push_back(
      {"nvmlDeviceGetTemperature", "nvmlDeviceGetTemperature did not return within 300 ms", true});
  auto out = f.Run();
  const Finding* hung = Find(out, "gpu.unresponsive", Severity::kFail);
  ASSERT_NE(hung, nullptr);
  EXPECT_EQ(hung->subject, "gpu1 (0000:86:00.0)");
  EXPECT_EQ(hung->summary,
            "nvmlDeviceGetTemperature did not return within 300 ms: this GPU does not answer its "
            "driver, its checks did not run");
  EXPECT_EQ(Find(out, "gpu.query_failed", Severity::kUnknown), nullptr);
  const Finding* lost = Find(out, "gpu.lost", Severity::kOk);
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->summary.find("all 2 GPU(s) answered"), std::string::npos) << lost->summary;
}

TEST(DriverRulesTest, GpuThatAnswersNothingFailsButOneFailedCallIsUnknown) {
  Fixture f = Healthy();
  f.gpus.gpus[0].failures.push_back({"nvmlDeviceGetPowerUsage", "Unknown Error (999)", false});
  f.gpus.gpus[1].failures = {{"nvmlDeviceGetName", "Unknown Error (999)", false},
                             {"nvmlDeviceGetTemperature", "Unknown Error (999)", false}};
  f.gpus.gpus[1].answered_nothing = true;
  auto out = f.Run();
  const Finding* silent = Find(out, "gpu.unresponsive", Severity::kFail);
  ASSERT_NE(silent, nullptr);
  EXPECT_EQ(silent->subject, "gpu1 (0000:86:00.0)");
  EXPECT_EQ(silent->summary,
            "every NVML call on this GPU failed (2 calls: Unknown Error (999)), none answered: it "
            "does not answer its driver");
  const Finding* one = Find(out, "gpu.query_failed", Severity::kUnknown);
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->subject, "gpu0 (0000:3b:00.0)");
}

TEST(DriverRulesTest, ExhaustedBudgetFailsNamingWhatWasNotRead) {
  Fixture f = Healthy();
  f.gpus.budget_exhausted = "16 s (--timeout)";
  f.gpus.gpus[1].abandoned = true;
  auto out = f.Run();
  const Finding* budget = Find(out, "gpu.unresponsive", Severity::kFail);
  ASSERT_NE(budget, nullptr);
  EXPECT_EQ(budget->subject, "host");
  EXPECT_EQ(budget->summary,
            "the time budget of 16 s (--timeout) ran out before NVML answered for gpu1 "
            "(0000:86:00.0)");
  const Finding* skipped = Find(out, "gpu.query_failed", Severity::kUnknown);
  ASSERT_NE(skipped, nullptr);
  EXPECT_NE(skipped->summary.find("the time budget ran out"), std::string::npos);
}

// A capture is not a live driver: unparseable fields never make a GPU "unresponsive".
TEST(DriverRulesTest, CaptureFailuresAreNeverUnresponsive) {
  Fixture f = Healthy();
  f.gpus.origin = "nvidia-smi-xml (capture.xml)";
  f.gpus.from_capture = true;
  f.gpus.gpus[0].failures = {{"temperature/gpu_temp", "cannot parse 'garbage'", false}};
  f.gpus.gpus[0].answered_nothing = true;
  auto out = f.Run();
  EXPECT_EQ(Find(out, "gpu.unresponsive", Severity::kFail), nullptr);
}

TEST(DriverRulesTest, GpuMissingFromDriverFails) {
  Fixture f = Healthy();
  f.gpus.gpus.pop_back();
  f.gpus.device_count = Reading<int>::Of(1);
  auto out = f.Run();
  const Finding* v = Find(out, "driver.gpus_visible", Severity::kFail);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->summary.find("0000:86:00.0"), std::string::npos);
}

TEST(DriverRulesTest, GpuBoundToVfioIsInfo) {
  Fixture f = Healthy();
  f.gpus.gpus.pop_back();
  f.gpus.device_count = Reading<int>::Of(1);
  f.host.pci_gpus.value[1].gpu.driver = "vfio-pci";
  EXPECT_NE(Find(f.Run(), "driver.gpus_visible", Severity::kInfo), nullptr);
}

TEST(DriverRulesTest, HandleFailureFails) {
  Fixture f = Healthy();
  f.gpus.device_count = Reading<int>::Of(3);
  EXPECT_NE(Find(f.Run(), "driver.gpus_visible", Severity::kFail), nullptr);
}

TEST(DriverRulesTest, ModuleLibraryMismatch) {
  Fixture f = Healthy();
  f.host.nvidia_module_version = Reading<std::string>::Of("535.154.05");
  EXPECT_NE(Find(f.Run(), "driver.version_mismatch", Severity::kFail), nullptr);

  Fixture g = Healthy();
  g.gpus.state = GpuSourceState::kInitFailed;
  g.gpus.detail = "nvmlInit_v2: LIB_RM_VERSION_MISMATCH";
  EXPECT_NE(Find(g.Run(), "driver.version_mismatch", Severity::kFail), nullptr);
}

TEST(DriverRulesTest, AllowedVersions) {
  Fixture f = Healthy();
  f.policy.allowed_driver_versions = {"535.*"};
  f.policy.allowed_cuda_versions = {"12.4"};
  auto out = f.Run();
  EXPECT_NE(Find(out, "driver.version_allowed", Severity::kFail), nullptr);
  EXPECT_NE(Find(out, "driver.cuda_version_allowed", Severity::kOk), nullptr);

  f.policy.allowed_driver_versions = {"550.90.*"};
  f.policy.allowed_cuda_versions = {"12.2", "12.3"};
  out = f.Run();
  EXPECT_NE(Find(out, "driver.version_allowed", Severity::kOk), nullptr);
  EXPECT_NE(Find(out, "driver.cuda_version_allowed", Severity::kFail), nullptr);

  f.gpus.cuda_driver_version =
      Reading<int>::Unsupported("nvmlSystemGetCudaDriverVersion_v2: not supported");
  EXPECT_NE(Find(f.Run(), "driver.cuda_version_allowed", Severity::kUnknown), nullptr);
}

TEST(DriverRulesTest, ExpectedCount) {
  Fixture f = Healthy();
  f.policy.expected_gpu_count = 8;
  EXPECT_NE(Find(f.Run(), "gpu.count_expected", Severity::kFail), nullptr);
  f.policy.expected_gpu_count = 2;
  EXPECT_NE(Find(f.Run(), "gpu.count_expected", Severity::kOk), nullptr);
  // Without a driver, the PCI bus counts.
  f.gpus.state = GpuSourceState::kDriverNotLoaded;
  EXPECT_NE(Find(f.Run(), "gpu.count_expected", Severity::kOk), nullptr);
  f.host.pci_gpus = Reading<std::vector<GpuPciTopology>>::Error("cannot read /sys/bus/pci/devices");
  EXPECT_NE(Find(f.Run(), "gpu.count_expected", Severity::kUnknown), nullptr);
}

TEST(DriverRulesTest, LostGpuAndHungCalls) {
  Fixture f = Healthy();
  f.gpus.gpus[0].lost = true;
  f.gpus.gpus[0].lost_call = "nvmlDeviceGetTemperature";
  f.gpus.gpus[1].failures.push_back(
      {"nvmlDeviceGetPowerUsage", "did not return within 2000 ms", true});
  f.gpus.failures.push_back({"nvmlSystemGetNVMLVersion", "UNKNOWN", false});
  auto out = f.Run();
  const Finding* lost = Find(out, "gpu.lost", Severity::kFail);
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->subject, "gpu0 (0000:3b:00.0)");
  const Finding* hung = Find(out, "gpu.query_failed", Severity::kUnknown);
  ASSERT_NE(hung, nullptr);
  EXPECT_NE(hung->summary.find("nvmlDeviceGetPowerUsage"), std::string::npos);
  EXPECT_EQ(Find(out, "gpu.lost", Severity::kOk), nullptr);
}

}  // namespace
}  // namespace gpuvet

namespace gpuvet {
namespace {

TEST(DriverRulesTest, AbandonedGpusAreUnknownNotMissing) {
  Fixture f = Healthy();
  // NVML hung on gpu1's handle: it has no address, so the PCI comparison cannot blame it.
  f.gpus.gpus[1].pci_bus_id.clear();
  f.gpus.gpus[1].abandoned = true;
  f.gpus.gpus[1].failures.push_back({"nvmlDeviceGetHandleByIndex_v2",
                                     "nvmlDeviceGetHandleByIndex_v2: skipped: nvmlX hung earlier",
                                     true});
  auto out = f.Run();
  const Finding* visible = Find(out, "driver.gpus_visible", Severity::kUnknown);
  ASSERT_NE(visible, nullptr);
  // gpu1 was never asked for its address: say so, not that it "could not report" it.
  EXPECT_EQ(visible->summary,
            "NVML stopped answering before 1 GPU(s) were asked for their PCI address, so it is "
            "unknown whether 0000:86:00.0 is visible to the driver");
  EXPECT_EQ(visible->decision.find("Xid 79"), std::string::npos);
  const Finding* q = Find(out, "gpu.query_failed", Severity::kUnknown);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(q->summary.find("NVML stopped answering"), std::string::npos);
}

}  // namespace
}  // namespace gpuvet
