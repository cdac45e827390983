// Tests of the container rule: runtime evidence, each GPU visibility variable case (unset, empty,
// void/none, -1, bad index, unknown UUID, valid), device cgroup denial (v1 and EPERM probe), and
// NVML "Unknown Error" inside a container versus on bare metal.
#include <errno.h>
#include <gtest/gtest.h>

#include "rules/rules.h"
#include "testing/findings.h"
#include "testing/gpu_builders.h"
#include "testing/rule_check.h"

namespace gpuvet {
namespace {

using test::EvidenceValue;
using test::FindingsWithId;
using test::OnlyFinding;
using Vars = std::map<std::string, std::string>;

struct Fixture {
  HostState host;
  GpuInventory gpus;
  Fixture() {
    GpuState g0 = test::GpuAt(0, "0000:18:00.0");
    g0.uuid = "GPU-6a1c2e4f-0000-4000-8000-000000000000";
    GpuState g1 = test::GpuAt(1, "0000:2a:00.0");
    g1.uuid = "GPU-6a1c2e4f-0000-4000-8000-000000000001";
    gpus = test::InventoryOf({g0, g1});
    host.container.env.source = "/proc/self/environ";
    host.container.env.vars = Reading<Vars>::Of({});
  }
  void InDocker() {
    host.container.in_container = true;
    host.container.runtime = "docker";
    host.container.evidence = {"/.dockerenv exists"};
  }
  void Env(Vars vars) { host.container.env.vars = Reading<Vars>::Of(std::move(vars)); }
  std::vector<Finding> Run() { return test::RunCheck(CheckContainer, host, gpus); }
  Finding Visible() { return OnlyFinding(Run(), "container.visible_devices"); }
};

TEST(ContainerRulesTest, BareMetalDefaults) {
  Fixture fx;
  std::vector<Finding> out = fx.Run();
  EXPECT_EQ(OnlyFinding(out, "container.runtime").severity, Severity::kOk);
  EXPECT_EQ(OnlyFinding(out, "container.visible_devices").severity, Severity::kOk);
  EXPECT_EQ(test::CountFindings(out, "container.device_cgroup"), 0);  // no nodes known
  EXPECT_EQ(test::CountFindings(out, "container.nvml_unknown_error"), 0);
}

TEST(ContainerRulesTest, RuntimeIsInfoWithEvidence) {
  Fixture fx;
  fx.InDocker();
  Finding f = OnlyFinding(fx.Run(), "container.runtime");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.summary, "running in a docker container (/.dockerenv exists)");
  EXPECT_EQ(EvidenceValue(f, "evidence"), "/.dockerenv exists");
}

TEST(ContainerRulesTest, CudaVisibleDevicesCases) {
  struct Case {
    std::string value;
    Severity severity;
  };
  for (const Case& c :
       std::initializer_list<Case>{{"0,1", Severity::kOk},
                                   {"GPU-6a1c2e4f-0000-4000-8000-000000000001", Severity::kOk},
                                   {"GPU-6a1c2e4f", Severity::kOk},  // prefix
                                   {"MIG-4b1c", Severity::kOk},
                                   {"", Severity::kWarn},
                                   {"-1", Severity::kWarn},
                                   {"none", Severity::kWarn},
                                   {"0,5", Severity::kFail},
                                   {"GPU-deadbeef", Severity::kFail},
                                   {"gpu0", Severity::kFail}}) {
    Fixture fx;
    fx.Env({{"CUDA_VISIBLE_DEVICES", c.value}});
    Finding f = fx.Visible();
    EXPECT_EQ(f.severity, c.severity) << "'" << c.value << "': " << f.summary;
    EXPECT_EQ(f.subject, "CUDA_VISIBLE_DEVICES");
  }
  Fixture fx;
  fx.Env({{"CUDA_VISIBLE_DEVICES", "1,7,0"}});
  Finding f = fx.Visible();
  EXPECT_EQ(f.summary,
            "CUDA_VISIBLE_DEVICES=1,7,0 names GPU(s) this node does not have (index 7 but only 2 "
            "GPU(s) here); CUDA stops at the first bad entry and will use 1 GPU(s)");
  EXPECT_EQ(EvidenceValue(f, "gpus_cuda_will_use"), "1");
  EXPECT_EQ(EvidenceValue(f, "gpus_here"), "2");
  EXPECT_EQ(EvidenceValue(f, "gpus_counted_by"), "NVML");  // a fact, not a threshold
}

TEST(ContainerRulesTest, IndicesCheckedAgainstPciWhenNvmlDidNotAnswer) {
  Fixture fx;
  fx.gpus = GpuInventory{};
  fx.gpus.state = GpuSourceState::kLibraryMissing;
  GpuPciTopology t;
  t.gpu = test::NvidiaFunction("0000:18:00.0");
  fx.host.pci_gpus = Reading<std::vector<GpuPciTopology>>::Of({t});
  fx.Env({{"CUDA_VISIBLE_DEVICES", "1"}});
  EXPECT_EQ(fx.Visible().severity, Severity::kFail);
  fx.Env({{"CUDA_VISIBLE_DEVICES", "GPU-anything"}});  // no UUIDs without NVML: not judged
  EXPECT_EQ(fx.Visible().severity, Severity::kOk);
}

TEST(ContainerRulesTest, NvidiaVisibleDevicesCases) {
  Fixture fx;
  fx.InDocker();
  fx.Env({{"NVIDIA_VISIBLE_DEVICES", "void"}});
  Finding f = fx.Visible();
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_NE(f.summary.find("no GPU and no driver libraries"), std::string::npos) << f.summary;
  fx.Env({{"NVIDIA_VISIBLE_DEVICES", "none"}});
  EXPECT_NE(fx.Visible().summary.find("driver libraries but no GPU device"), std::string::npos);
  fx.Env({{"NVIDIA_VISIBLE_DEVICES", ""}});
  EXPECT_EQ(fx.Visible().severity, Severity::kWarn);
  fx.Env({{"NVIDIA_VISIBLE_DEVICES", "all"}});
  EXPECT_EQ(fx.Visible().severity, Severity::kOk);
  // Host indices inside a container: only the count can be compared.
  fx.Env({{"NVIDIA_VISIBLE_DEVICES", "4,5"}});
  EXPECT_EQ(fx.Visible().severity, Severity::kOk);
  fx.Env({{"NVIDIA_VISIBLE_DEVICES", "4,5,6"}});
  f = fx.Visible();
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_EQ(EvidenceValue(f, "invalid"), "3 GPU(s) requested but the container sees 2");
  fx.Env({{"NVIDIA_VISIBLE_DEVICES", "GPU-0bad0bad"}});
  EXPECT_EQ(fx.Visible().severity, Severity::kFail);
  // On bare metal the variable does nothing by itself: void is informational.
  Fixture bare;
  bare.Env({{"NVIDIA_VISIBLE_DEVICES", "void"}});
  EXPECT_EQ(bare.Visible().severity, Severity::kInfo);
}

TEST(ContainerRulesTest, BothVariablesGiveTwoFindingsWithPidSubject) {
  Fixture fx;
  fx.host.process_is_target = true;
  fx.host.process.pid = 4242;
  fx.Env({{"NVIDIA_VISIBLE_DEVICES", "all"}, {"CUDA_VISIBLE_DEVICES", ""}});
  auto found = FindingsWithId(fx.Run(), "container.visible_devices");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].subject, "pid 4242 NVIDIA_VISIBLE_DEVICES");
  EXPECT_EQ(found[1].subject, "pid 4242 CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(found[1].severity, Severity::kWarn);
}

TEST(ContainerRulesTest, UnreadableEnvironment) {
  Fixture fx;
  fx.host.container.env.vars =
      Reading<Vars>::Error("cannot read /proc/77/environ: permission denied");
  EXPECT_EQ(fx.Visible().severity, Severity::kUnknown);
  fx.host.container.env.vars = Reading<Vars>::Unsupported("/proc/self/environ is not in this tree");
  EXPECT_EQ(fx.Visible().severity, Severity::kInfo);
}

DeviceCgroupAccess Node(std::string path, int minor, std::string v1, int probe) {
  DeviceCgroupAccess a;
  a.path = std::move(path);
  a.major = 195;
  a.minor = minor;
  a.v1_verdict = std::move(v1);
  a.probe_errno = probe;
  return a;
}

TEST(ContainerRulesTest, DeviceCgroupDenial) {
  Fixture fx;
  DeviceCgroupState& d = fx.host.container.device_cgroup;
  d.version = 1;
  d.path = "/sys/fs/cgroup/devices/docker/3f1c";
  d.v1_rules = Reading<std::vector<std::string>>::Of({"c 195:255 rwm"});
  d.nodes = {Node("/dev/nvidiactl", 255, "allowed", -1), Node("/dev/nvidia0", 0, "denied", -1)};
  Finding f = OnlyFinding(fx.Run(), "container.device_cgroup");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_EQ(f.summary,
            "1 of 2 GPU device node(s) exist but the device cgroup refuses them: /dev/nvidia0");
  EXPECT_EQ(EvidenceValue(f, "no_devices_list_rule"), "/dev/nvidia0 (195:0)");
  // v2: only the probe can tell. EACCES is file permissions (device.nodes), not the cgroup.
  d = DeviceCgroupState{};
  d.version = 2;
  d.note = "eBPF";
  d.nodes = {Node("/dev/nvidia0", 0, "", EACCES), Node("/dev/nvidia1", 1, "", EPERM)};
  f = OnlyFinding(fx.Run(), "container.device_cgroup");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_EQ(EvidenceValue(f, "open_eperm"), "/dev/nvidia1 (195:1)");  // not nvidia0's EACCES
  EXPECT_EQ(EvidenceValue(f, "no_devices_list_rule"), "<absent>");
  d.nodes = {Node("/dev/nvidia0", 0, "", 0)};
  f = OnlyFinding(fx.Run(), "container.device_cgroup");
  EXPECT_EQ(f.severity, Severity::kOk);
  EXPECT_EQ(f.summary, "1 GPU device node(s), 1 opened without EPERM");
}

TEST(ContainerRulesTest, NvmlUnknownErrorInsideAContainer) {
  Fixture fx;
  fx.InDocker();
  fx.gpus = GpuInventory{};
  fx.gpus.state = GpuSourceState::kInitFailed;
  fx.gpus.detail = "nvmlInit_v2: Unknown Error (NVML_ERROR_UNKNOWN = 999)";
  fx.host.container.device_cgroup.nodes = {Node("/dev/nvidia0", 0, "denied", -1)};
  Finding f = OnlyFinding(fx.Run(), "container.nvml_unknown_error");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_NE(f.summary.find("device cgroup refuses 1 GPU node(s)"), std::string::npos) << f.summary;
  EXPECT_EQ(EvidenceValue(f, "nvml_init"), fx.gpus.detail);
  // Another init failure is driver.loaded's business.
  fx.gpus.detail = "nvmlInit_v2: Insufficient Permissions (NVML_ERROR_NO_PERMISSION = 4)";
  EXPECT_EQ(test::CountFindings(fx.Run(), "container.nvml_unknown_error"), 0);
  // Outside a container the same error is not this finding.
  Fixture bare;
  bare.gpus.state = GpuSourceState::kInitFailed;
  bare.gpus.detail = "nvmlInit_v2: Unknown Error (NVML_ERROR_UNKNOWN = 999)";
  EXPECT_EQ(test::CountFindings(bare.Run(), "container.nvml_unknown_error"), 0);
  // In a container with NVML working: ok.
  Fixture good;
  good.InDocker();
  EXPECT_EQ(OnlyFinding(good.Run(), "container.nvml_unknown_error").severity, Severity::kOk);
}

TEST(ContainerRulesTest, DriverVisibleCountKnowsAContainerGetsASubset) {
  // /sys shows all 3 GPUs of the node; NVML in the container lists the one it was given.
  Fixture fx;
  fx.gpus.origin = "nvml (libnvidia-ml.so.1)";
  fx.gpus.gpus.resize(1);
  fx.gpus.device_count = Reading<int>::Of(1);
  std::vector<GpuPciTopology> pci(3);
  pci[0].gpu = test::NvidiaFunction("0000:18:00.0");
  pci[1].gpu = test::NvidiaFunction("0000:2a:00.0");
  pci[2].gpu = test::NvidiaFunction("0000:3a:00.0");
  for (auto& t : pci) t.gpu.driver = "nvidia";
  fx.host.pci_gpus = Reading<std::vector<GpuPciTopology>>::Of(pci);
  EXPECT_EQ(
      OnlyFinding(test::RunCheck(CheckDriver, fx.host, fx.gpus), "driver.gpus_visible").severity,
      Severity::kFail);  // on a host that is a missing GPU
  fx.InDocker();
  Finding f = OnlyFinding(test::RunCheck(CheckDriver, fx.host, fx.gpus), "driver.gpus_visible");
  EXPECT_EQ(f.severity, Severity::kOk);
  EXPECT_EQ(f.summary, "1 GPU(s) enumerated: the docker container was given 1 of the node's 3");
}

}  // namespace
}  // namespace gpuvet
