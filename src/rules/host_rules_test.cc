// Tests for CheckHost over hand-built host states: every finding id (numa, cpu, cgroup, memory,
// device, process) through its ok, warn/fail/info and unknown branches.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <numeric>

#include "rules/rules.h"
#include "testing/findings.h"
#include "testing/gpu_builders.h"
#include "testing/rule_check.h"

namespace gpuvet {
namespace {

using test::FindingsWithId;
using test::OnlyFinding;

constexpr uint64_t kGiB = uint64_t{1} << 30;

std::vector<int> Range(int lo, int hi) {  // [lo, hi]
  std::vector<int> v(static_cast<size_t>(hi - lo + 1));
  std::iota(v.begin(), v.end(), lo);
  return v;
}

PciFunction Gpu(const std::string& address, int node, std::vector<int> cpus) {
  PciFunction f = test::NvidiaFunction(address);
  f.class_code = 0x030200;
  f.numa_node = Reading<int>::Of(node);
  f.local_cpus = Reading<std::vector<int>>::Of(std::move(cpus));
  return f;
}

// A healthy two-socket host: gpu0 on node 0 (CPUs 0-31), gpu1 on node 1 (CPUs 32-63); the process
// is pinned to node 0; nothing limited or pressured; all device nodes fine.
HostState HealthyHost() {
  HostState h;
  h.online_cpus = Reading<int>::Of(64);
  h.nvidia_module_version = Reading<std::string>::Of("550.90.07");
  GpuPciTopology a, b;
  a.gpu = Gpu("0000:3b:00.0", 0, Range(0, 31));
  b.gpu = Gpu("0000:86:00.0", 1, Range(32, 63));
  h.pci_gpus = Reading<std::vector<GpuPciTopology>>::Of({a, b});
  h.cpufreq.governors["performance"] = Range(0, 63);
  h.cgroup.version = 2;
  h.cgroup.path = "/job";
  h.cgroup.cpu_unlimited = true;
  h.cgroup.cpu_quota_cores = Reading<double>::Unsupported("no CPU quota");
  h.cgroup.memory_unlimited = true;
  h.cgroup.memory_max_bytes = Reading<uint64_t>::Unsupported("no memory limit");
  h.meminfo.total_bytes = Reading<uint64_t>::Of(512 * kGiB);
  h.meminfo.available_bytes = Reading<uint64_t>::Of(400 * kGiB);
  PsiLine quiet;
  h.psi.cpu_some = h.psi.memory_some = h.psi.memory_full = h.psi.io_some = h.psi.io_full =
      Reading<PsiLine>::Of(quiet);
  for (const char* p : {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0", "/dev/nvidia1"}) {
    DeviceNode n;
    n.path = p;
    n.exists = n.is_char_device = n.readable = n.writable = true;
    n.mode = 0666;
    h.device_nodes.push_back(n);
  }
  h.process.pid = 4242;
  h.process.comm = "python3";
  h.process.cpus_allowed = Reading<std::vector<int>>::Of(Range(0, 31));
  h.process.maps_gpu = Reading<bool>::Of(false);
  return h;
}

GpuState NvmlGpu(int index, const std::string& address) {
  GpuState g = test::GpuAt(index, address);
  g.compute_processes = Reading<std::vector<GpuProcess>>::Of({});
  return g;
}

GpuInventory TwoGpus() {
  return test::InventoryOf({NvmlGpu(0, "0000:3b:00.0"), NvmlGpu(1, "0000:86:00.0")});
}

std::vector<Finding> Check(const HostState& host, const GpuInventory& gpus,
                           const Policy& policy = Policy{}) {
  return test::RunCheck(CheckHost, host, gpus, policy);
}

TEST(HostRulesTest, HealthyHostIsAllOk) {
  HostState h = HealthyHost();
  h.process.cpus_allowed = Reading<std::vector<int>>::Of(Range(0, 63));
  std::vector<Finding> all = Check(h, TwoGpus());
  for (const Finding& f : all) {
    EXPECT_EQ(f.severity, Severity::kOk) << f.id << " " << f.subject << ": " << f.summary;
  }
  for (const char* id : {"cpu.governor", "cgroup.cpu_quota", "cgroup.memory_limit",
                         "memory.available", "memory.pressure", "device.nodes"}) {
    EXPECT_EQ(FindingsWithId(all, id).size(), 1u) << id;
  }
  // Not the target process: no process.gpu_context finding.
  EXPECT_TRUE(FindingsWithId(all, "process.gpu_context").empty());
  std::vector<Finding> numa = FindingsWithId(all, "numa.process_affinity");
  ASSERT_EQ(numa.size(), 2u);
  EXPECT_NE(numa[0].summary.find("up to the scheduler"), std::string::npos) << numa[0].summary;
}

TEST(HostRulesTest, NumaAffinityPerGpu) {
  std::vector<Finding> numa =
      FindingsWithId(Check(HealthyHost(), TwoGpus()), "numa.process_affinity");
  ASSERT_EQ(numa.size(), 2u);
  EXPECT_EQ(numa[0].subject, "gpu0 (0000:3b:00.0)");
  EXPECT_EQ(numa[0].severity, Severity::kOk);
  EXPECT_EQ(numa[1].subject, "gpu1 (0000:86:00.0)");
  EXPECT_EQ(numa[1].severity, Severity::kWarn);
  EXPECT_EQ(numa[1].summary,
            "pid 4242 may run only on CPUs 0-31 (node 0); gpu1 is on node 1 (CPUs 32-63)");
  EXPECT_FALSE(numa[1].evidence.empty());

  // Part local: info.
  HostState h = HealthyHost();
  h.process.cpus_allowed = Reading<std::vector<int>>::Of(Range(16, 47));
  numa = FindingsWithId(Check(h, TwoGpus()), "numa.process_affinity");
  ASSERT_EQ(numa.size(), 2u);
  EXPECT_EQ(numa[0].severity, Severity::kInfo);
  EXPECT_NE(numa[0].summary.find("only 16 of the 32"), std::string::npos) << numa[0].summary;
}

TEST(HostRulesTest, NumaOnlyGpusTheTargetUses) {
  HostState h = HealthyHost();
  h.process_is_target = true;
  GpuInventory inv = TwoGpus();
  inv.gpus[0].compute_processes = Reading<std::vector<GpuProcess>>::Of({{4242, kGiB}});
  std::vector<Finding> numa = FindingsWithId(Check(h, inv), "numa.process_affinity");
  ASSERT_EQ(numa.size(), 1u);
  EXPECT_EQ(numa[0].severity, Severity::kOk);
}

TEST(HostRulesTest, NumaWithoutNvmlUsesPciList) {
  std::vector<Finding> numa =
      FindingsWithId(Check(HealthyHost(), GpuInventory{}), "numa.process_affinity");
  ASSERT_EQ(numa.size(), 2u);
  EXPECT_EQ(numa[1].subject, "gpu1 (0000:86:00.0)");
  EXPECT_EQ(numa[1].severity, Severity::kWarn);
}

TEST(HostRulesTest, NumaUnsupportedAndUnknown) {
  HostState h = HealthyHost();
  for (GpuPciTopology& t : h.pci_gpus.value) {
    t.gpu.numa_node = Reading<int>::Unsupported("firmware gives no NUMA node (numa_node -1)");
  }
  std::vector<Finding> numa = FindingsWithId(Check(h, TwoGpus()), "numa.process_affinity");
  ASSERT_EQ(numa.size(), 1u);  // once, not per GPU
  EXPECT_EQ(numa[0].severity, Severity::kInfo);
  EXPECT_EQ(numa[0].subject, "host");
  EXPECT_NE(numa[0].summary.find("no NUMA information"), std::string::npos);

  h = HealthyHost();
  h.process.cpus_allowed = Reading<std::vector<int>>::Error("/proc/self/status: garbled");
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus()), "numa.process_affinity").severity, Severity::kUnknown);
}

TEST(HostRulesTest, Governor) {
  HostState h = HealthyHost();
  h.cpufreq.governors.clear();
  h.cpufreq.governors["performance"] = Range(0, 31);
  h.cpufreq.governors["powersave"] = Range(32, 63);
  Finding f = OnlyFinding(Check(h, TwoGpus()), "cpu.governor");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(f.summary, "governor powersave on CPUs 32-63");

  h.cpufreq.governors.clear();
  h.cpufreq.note = "cpufreq not exposed (no /sys/devices/system/cpu/cpuN/cpufreq)";
  f = OnlyFinding(Check(h, TwoGpus()), "cpu.governor");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_NE(f.summary.find("cpufreq not exposed"), std::string::npos);
}

// Small quotas keep their digits: 2 cores for 8 GPUs is 0.25 per GPU, not 0.2 (or 0.0).
TEST(HostRulesTest, CpuQuotaPerGpuIsNotRoundedAway) {
  HostState h = HealthyHost();
  h.cgroup.cpu_unlimited = false;
  h.cgroup.cpu_quota_cores = Reading<double>::Of(2);
  std::vector<GpuState> gpus;
  for (int i = 0; i < 8; ++i)
    gpus.push_back(test::HealthyGpu(i, fmt::format("0000:{:02x}:00.0", i + 1)));
  Finding f = OnlyFinding(Check(h, test::InventoryOf(gpus)), "cgroup.cpu_quota");
  EXPECT_EQ(f.summary, "CPU quota 2 cores for 8 GPUs = 0.25 per GPU (minimum 4)");
  h.cgroup.cpu_quota_cores = Reading<double>::Of(0.3);
  f = OnlyFinding(Check(h, test::InventoryOf(gpus)), "cgroup.cpu_quota");
  EXPECT_EQ(f.summary, "CPU quota 0.3 cores for 8 GPUs = 0.0375 per GPU (minimum 4)");
}

TEST(HostRulesTest, FormatSignificant) {
  EXPECT_EQ(FormatSignificant(0.25), "0.25");
  EXPECT_EQ(FormatSignificant(2), "2");
  EXPECT_EQ(FormatSignificant(0.0625), "0.0625");
  EXPECT_EQ(FormatSignificant(12.345), "12.3");
  EXPECT_EQ(FormatSignificant(1234.6), "1235");  // no exponent form
  EXPECT_EQ(FormatSignificant(0), "0");
  EXPECT_EQ(FormatSignificant(-1.5), "-1.5");
}

TEST(HostRulesTest, CpuQuota) {
  HostState h = HealthyHost();
  h.cgroup.cpu_unlimited = false;
  h.cgroup.cpu_quota_cores = Reading<double>::Of(6);  // 3 per GPU < 4
  Finding f = OnlyFinding(Check(h, TwoGpus()), "cgroup.cpu_quota");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(f.subject, "cgroup /job");
  EXPECT_EQ(f.summary, "CPU quota 6 cores for 2 GPUs = 3 per GPU (minimum 4)");

  h.cgroup.cpu_quota_cores = Reading<double>::Of(8);
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus()), "cgroup.cpu_quota").severity, Severity::kOk);
  // Without NVML the PCI GPUs count: still 2.
  EXPECT_EQ(OnlyFinding(Check(h, GpuInventory{}), "cgroup.cpu_quota").severity, Severity::kOk);
  Policy strict;
  strict.thresholds.cpu_cores_per_gpu_min = 8;
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus(), strict), "cgroup.cpu_quota").severity, Severity::kWarn);

  h.cgroup.cpu_quota_cores = Reading<double>::Error("/sys/fs/cgroup/job/cpu.max: garbled");
  f = OnlyFinding(Check(h, TwoGpus()), "cgroup.cpu_quota");
  EXPECT_EQ(f.severity, Severity::kUnknown);
  EXPECT_NE(f.summary.find("cpu.max"), std::string::npos);
}

TEST(HostRulesTest, MemoryLimit) {
  HostState h = HealthyHost();
  h.cgroup.memory_unlimited = false;
  h.cgroup.memory_max_bytes = Reading<uint64_t>::Of(6 * kGiB);  // < 4 GiB × 2
  Finding f = OnlyFinding(Check(h, TwoGpus()), "cgroup.memory_limit");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(f.summary, "memory limit 6.0 GiB for 2 GPUs (minimum 4.0 GiB per GPU)");
  h.cgroup.memory_max_bytes = Reading<uint64_t>::Of(64 * kGiB);
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus()), "cgroup.memory_limit").severity, Severity::kOk);
  h.cgroup.memory_max_bytes = Reading<uint64_t>::Error("memory.max: garbled");
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus()), "cgroup.memory_limit").severity, Severity::kUnknown);
  h.cgroup.memory_max_bytes = Reading<uint64_t>::Unsupported("no cgroup fs");
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus()), "cgroup.memory_limit").severity, Severity::kInfo);
}

TEST(HostRulesTest, MemoryAvailable) {
  HostState h = HealthyHost();
  h.meminfo.available_bytes = Reading<uint64_t>::Of(10 * kGiB);  // ~2 % < 5 %
  Finding f = OnlyFinding(Check(h, TwoGpus()), "memory.available");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(f.summary, "10.0 GiB of 512.0 GiB available (2.0 %)");
  h.meminfo.available_bytes = Reading<uint64_t>::Of(1);  // even near zero: warn, never fail
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus()), "memory.available").severity, Severity::kWarn);
  h.meminfo.available_bytes = Reading<uint64_t>::Error("/proc/meminfo:3: garbled");
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus()), "memory.available").severity, Severity::kUnknown);
  h.meminfo.available_bytes = Reading<uint64_t>::Unsupported("MemAvailable not in /proc/meminfo");
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus()), "memory.available").severity, Severity::kInfo);
  h.meminfo.available_bytes = Reading<uint64_t>::Of(1);
  h.meminfo.total_bytes = Reading<uint64_t>::Of(0);
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus()), "memory.available").severity, Severity::kUnknown);
}

TEST(HostRulesTest, Pressure) {
  HostState h = HealthyHost();
  PsiLine io;
  io.avg60 = 12.5;
  h.psi.io_full = Reading<PsiLine>::Of(io);
  Finding f = OnlyFinding(Check(h, TwoGpus()), "memory.pressure");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_NE(f.summary.find("io full 12.50 %"), std::string::npos) << f.summary;
  EXPECT_EQ(f.summary.find("memory full"), std::string::npos);

  h = HealthyHost();
  h.psi.memory_full = Reading<PsiLine>::Error("/proc/pressure/memory: line 1: bad avg60");
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus()), "memory.pressure").severity, Severity::kUnknown);

  h = HealthyHost();
  h.psi = PsiState{};
  h.psi.cpu_some = h.psi.memory_full = h.psi.io_full =
      Reading<PsiLine>::Unsupported("PSI not available: /proc/pressure/cpu absent");
  f = OnlyFinding(Check(h, TwoGpus()), "memory.pressure");
  EXPECT_EQ(f.severity, Severity::kInfo);
}

TEST(HostRulesTest, DeviceNodes) {
  HostState h = HealthyHost();
  h.device_nodes[1].exists = false;  // nvidia-uvm
  h.device_nodes[2].exists = false;  // nvidia0
  h.device_nodes[3].writable = false;
  h.device_nodes[3].mode = 0644;
  std::vector<Finding> dev = FindingsWithId(Check(h, TwoGpus()), "device.nodes");
  ASSERT_EQ(dev.size(), 3u);  // missing (fail), not accessible (fail), uvm missing (warn)
  EXPECT_EQ(dev[0].severity, Severity::kFail);
  EXPECT_NE(dev[0].summary.find("/dev/nvidia0"), std::string::npos);
  EXPECT_EQ(dev[1].severity, Severity::kFail);
  EXPECT_NE(dev[1].summary.find("/dev/nvidia1"), std::string::npos);
  EXPECT_NE(dev[1].summary.find("CUDA cannot open the GPUs as this user"), std::string::npos);
  EXPECT_EQ(dev[2].severity, Severity::kWarn);
  EXPECT_NE(dev[2].summary.find("/dev/nvidia-uvm"), std::string::npos);
  for (const Finding& f : dev) EXPECT_EQ(f.subject, "host");

  h = HealthyHost();
  h.device_nodes[0].exists = false;
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus()), "device.nodes").severity, Severity::kFail);

  // No GPUs, no driver: nodes are not expected.
  h.pci_gpus = Reading<std::vector<GpuPciTopology>>::Of({});
  h.nvidia_module_version = Reading<std::string>::Unsupported("not loaded");
  EXPECT_TRUE(FindingsWithId(Check(h, GpuInventory{}), "device.nodes").empty());
}

TEST(HostRulesTest, GpuContext) {
  HostState h = HealthyHost();
  h.process_is_target = true;
  Finding f = OnlyFinding(Check(h, TwoGpus()), "process.gpu_context");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(f.subject, "pid 4242 (python3)");

  GpuInventory inv = TwoGpus();
  inv.gpus[1].compute_processes = Reading<std::vector<GpuProcess>>::Of({{4242, 2 * kGiB}});
  f = OnlyFinding(Check(h, inv), "process.gpu_context");
  EXPECT_EQ(f.severity, Severity::kOk);
  ASSERT_FALSE(f.evidence.empty());
  EXPECT_EQ(f.evidence[0].name, "nvml gpu1 (0000:86:00.0)");

  // Maps alone are enough (NVML absent).
  h.process.maps_gpu = Reading<bool>::Of(true);
  h.process.gpu_evidence = {"/dev/nvidia0", "/usr/lib/libcuda.so.1"};
  f = OnlyFinding(Check(h, GpuInventory{}), "process.gpu_context");
  EXPECT_EQ(f.severity, Severity::kOk);
  EXPECT_EQ(f.evidence.size(), 2u);

  // Neither source readable: unknown. A vanished pid: unknown.
  h.process.maps_gpu = Reading<bool>::Error("cannot open /proc/4242/maps: Permission denied");
  EXPECT_EQ(OnlyFinding(Check(h, GpuInventory{}), "process.gpu_context").severity,
            Severity::kUnknown);
  h.process.maps_gpu = Reading<bool>::Error("no such process 4242");
  EXPECT_EQ(OnlyFinding(Check(h, TwoGpus()), "process.gpu_context").severity, Severity::kUnknown);
}

}  // namespace
}  // namespace gpuvet
