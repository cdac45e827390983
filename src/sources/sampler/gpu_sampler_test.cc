// Tests of the GPU sampler against the fake libnvidia-ml.so.1: static facts, per-sample arrays
// showing up in successive samples (the step file pins the step), GPM metrics and their units,
// unsupported calls as absent fields, a lost GPU, a missing library, and a hung call that costs
// one timeout and is recovered from once NVML answers again; NVML's list protocols (size query,
// a list that grows before the read, the bounded buffer, utilisation above 100 % dropped) and
// GPM samples kept at least 100 ms apart.
#include "sources/sampler/gpu_sampler.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "sources/nvml/bounded_call.h"
#include "sources/sampler/gpu_sample_batch.h"
#include "sources/sampler/sampler.h"
#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

std::string TestFile(const std::string& suffix) {
  return test::TestTempDir() + "/gpu_sampler_" + std::to_string(getpid()) + "_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + suffix;
}

// Writes the scenario, points the fake at it and pins the per-sample step to 0.
class GpuSamplerTest : public ::testing::Test {
 protected:
  void UseScenario(const std::string& json) {
    const std::string path = TestFile(".json");
    std::ofstream(path) << json;
    setenv("GPUVET_FAKE_NVML_SCENARIO", path.c_str(), 1);
    step_file_ = TestFile(".step");
    SetStep(0);
    setenv("GPUVET_FAKE_NVML_STEP_FILE", step_file_.c_str(), 1);
  }
  void SetStep(int step) { std::ofstream(step_file_) << step << "\n"; }
  // GPM compares samples at least 100 ms apart: a Take sooner than that reads no GPM metric.
  static void WaitForGpm() {
    std::this_thread::sleep_for(gpu_sampler_internal::kGpmMinSpacing + milliseconds(10));
  }
  void TearDown() override {
    unsetenv("GPUVET_FAKE_NVML_STEP_FILE");
    unsetenv("GPUVET_FAKE_NVML_SCENARIO");
  }
  static NvmlOptions Fake(milliseconds timeout = milliseconds(2000)) {
    NvmlOptions o;
    o.library_path = GPUVET_FAKE_NVML_LIB;
    o.call_timeout = timeout;
    return o;
  }

  std::string step_file_;
  test::TempTree root_{"gpu_sampler_root"};
};

// GPU 0: an H100 with GPM and values over time; GPU 1: an older GPU without GPM, energy counter
// or PCIe throughput, whose power query fails.
constexpr char kTwoGpus[] = R"({
  "driver_version": "550.90.07", "cuda_driver_version": 12040,
  "gpus": [
    {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-0", "pci_bus_id": "0000:3b:00.0",
     "memory_total_bytes": 85899345920, "memory_used_bytes": [1000, 2000, 3000],
     "power_limit_w": 700, "sm_clock_max_mhz": 1980, "mem_clock_max_mhz": 2619,
     "pcie_gen_max": 5, "pcie_width_max": 16,
     "gpu_util_pct": [10, 95, 97], "memory_util_pct": 40, "sm_clock_mhz": 1980,
     "mem_clock_mhz": 2619, "power_w": [100.5, 650.25, 690], "temperature_c": [40, 60, 70],
     "clock_event_reasons": [0, 4, 4], "ecc_corrected_volatile": [0, 0, 3],
     "ecc_uncorrected_volatile": 0,
     "energy_mj": [1000000, 1650250, 2340250], "pcie_tx_kbps": 1000, "pcie_rx_kbps": 2000,
     "gpm_sm_active_pct": [5, 80.5, 81], "gpm_sm_occupancy_pct": 33.5,
     "gpm_tensor_active_pct": [0, 40, "NOT_SUPPORTED"], "gpm_dram_bw_util_pct": 55,
     "gpm_nvlink_tx_bytes_per_s": 1048576, "gpm_nvlink_rx_bytes_per_s": 2097152,
     "compute_processes": [[{"pid": 4242, "used_memory_bytes": 100}],
                           [{"pid": 4242, "used_memory_bytes": 200}, {"pid": 4243}]],
     "process_utilization": [[], [{"pid": 4242, "sm_util_pct": 75, "mem_util_pct": 20}]]},
    {"name": "Tesla V100-SXM2-16GB", "pci_bus_id": "0000:5e:00.0",
     "gpu_util_pct": 50, "memory_util_pct": 5, "temperature_c": 50,
     "errors": {"nvmlDeviceGetPowerUsage": "UNKNOWN"}}
  ]
})";

TEST_F(GpuSamplerTest, StaticFactsAndValuesOverTime) {
  UseScenario(kTwoGpus);
  root_.Write("sys/bus/pci/devices/0000:3b:00.0/numa_node", "1\n");
  root_.Write("sys/bus/pci/devices/0000:5e:00.0/numa_node", "-1\n");
  RecordingMeta meta;
  std::unique_ptr<GpuSampler> s = GpuSampler::Open(Fake(), HostPaths(root_.root()), &meta);
  ASSERT_NE(s, nullptr) << meta.notes["sampler.gpu"];
  EXPECT_EQ(meta.driver_version, "550.90.07");
  EXPECT_EQ(meta.cuda_version, "12.4");
  ASSERT_EQ(meta.gpus.size(), 2u);
  const RecordedGpu& g0 = meta.gpus[0];
  EXPECT_EQ(g0.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g0.uuid, "GPU-0");
  EXPECT_EQ(g0.pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(g0.memory_total_bytes, 85899345920u);
  EXPECT_EQ(g0.power_limit_w, 700.0);
  EXPECT_EQ(g0.sm_clock_max_mhz, 1980);
  EXPECT_EQ(g0.mem_clock_max_mhz, 2619);
  EXPECT_EQ(g0.pcie_gen_max, 5);
  EXPECT_EQ(g0.pcie_width_max, 16);
  EXPECT_EQ(g0.numa_node, 1);
  EXPECT_EQ(meta.gpus[1].index, 1);
  EXPECT_FALSE(meta.gpus[1].numa_node.has_value());  // -1: no affinity
  EXPECT_FALSE(meta.gpus[1].memory_total_bytes.has_value());
  EXPECT_NE(s->notes().at("sampler.gpm").find("GPU 1"), std::string::npos);

  SetStep(1);
  WaitForGpm();
  std::vector<GpuSample> a = s->Take(1.0);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].gpu, 0);
  EXPECT_EQ(a[0].util_pct, 95.0);
  EXPECT_EQ(a[0].mem_util_pct, 40.0);
  EXPECT_EQ(a[0].sm_clock_mhz, 1980.0);
  EXPECT_EQ(a[0].mem_clock_mhz, 2619.0);
  EXPECT_DOUBLE_EQ(*a[0].power_w, 650.25);
  EXPECT_DOUBLE_EQ(*a[0].energy_j, 1650.25);
  EXPECT_EQ(a[0].temperature_c, 60.0);
  EXPECT_EQ(a[0].clock_event_reasons, 4u);
  EXPECT_EQ(a[0].memory_used_bytes, 2000u);
  EXPECT_EQ(a[0].ecc_corrected_volatile, 0u);
  EXPECT_EQ(a[0].ecc_uncorrected_volatile, 0u);
  EXPECT_DOUBLE_EQ(*a[0].sm_active_pct, 80.5);
  EXPECT_DOUBLE_EQ(*a[0].sm_occupancy_pct, 33.5);
  EXPECT_DOUBLE_EQ(*a[0].tensor_active_pct, 40.0);
  EXPECT_DOUBLE_EQ(*a[0].dram_bw_util_pct, 55.0);
  EXPECT_DOUBLE_EQ(*a[0].nvlink_tx_bytes_per_s, 1048576.0);
  EXPECT_DOUBLE_EQ(*a[0].nvlink_rx_bytes_per_s, 2097152.0);
  EXPECT_FALSE(a[0].gpm_pcie_tx_bytes_per_s.has_value());      // GPM PCIe not in the scenario…
  EXPECT_DOUBLE_EQ(*a[0].pcie_tx_bytes_per_s, 1000.0 * 1024);  // … so the 20 ms counter is read
  EXPECT_DOUBLE_EQ(*a[0].pcie_rx_bytes_per_s, 2000.0 * 1024);
  ASSERT_EQ(a[0].processes.size(), 2u);
  EXPECT_EQ(a[0].processes[0].pid, 4242u);
  EXPECT_EQ(a[0].processes[0].used_memory_bytes, 200u);
  EXPECT_DOUBLE_EQ(*a[0].processes[0].sm_util_pct, 75.0);
  EXPECT_EQ(a[0].processes[1].pid, 4243u);
  EXPECT_FALSE(a[0].processes[1].sm_util_pct.has_value());

  // GPU 1: what it answers is there, what it does not is absent, not zero.
  EXPECT_EQ(a[1].gpu, 1);
  EXPECT_EQ(a[1].util_pct, 50.0);
  EXPECT_EQ(a[1].temperature_c, 50.0);
  EXPECT_FALSE(a[1].power_w.has_value());
  EXPECT_FALSE(a[1].energy_j.has_value());
  EXPECT_FALSE(a[1].sm_active_pct.has_value());
  EXPECT_FALSE(a[1].pcie_tx_bytes_per_s.has_value());
  EXPECT_TRUE(a[1].processes.empty());
  EXPECT_EQ(s->notes().at("sampler.gpu.1.errors"), "nvmlDeviceGetPowerUsage: UNKNOWN");
  EXPECT_NE(
      s->notes().at("sampler.gpu.1.not_supported").find("nvmlDeviceGetTotalEnergyConsumption"),
      std::string::npos);

  SetStep(2);
  WaitForGpm();
  std::vector<GpuSample> b = s->Take(1.0);
  EXPECT_EQ(b[0].util_pct, 97.0);
  EXPECT_DOUBLE_EQ(*b[0].energy_j, 2340.25);
  EXPECT_EQ(b[0].ecc_corrected_volatile, 3u);
  EXPECT_DOUBLE_EQ(*b[0].sm_active_pct, 81.0);
  EXPECT_FALSE(b[0].tensor_active_pct.has_value());  // that metric answers NOT_SUPPORTED
  SetStep(7);                                        // past the end: the last element repeats
  EXPECT_EQ(s->Take(1.0)[0].util_pct, 97.0);
}

TEST_F(GpuSamplerTest, GpmPcieReplacesTheSlowCounter) {
  UseScenario(R"({"gpus": [{"name": "H200", "gpm_sm_active_pct": 10,
    "gpm_pcie_tx_bytes_per_s": 5242880, "gpm_pcie_rx_bytes_per_s": 1048576,
    "pcie_tx_kbps": 1, "pcie_rx_kbps": 1}]})");
  RecordingMeta meta;
  std::unique_ptr<GpuSampler> s = GpuSampler::Open(Fake(), HostPaths(root_.root()), &meta);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->notes().at("sampler.gpm"), "GPM metrics on the GPU");
  WaitForGpm();
  std::vector<GpuSample> a = s->Take(1.0);
  EXPECT_DOUBLE_EQ(*a[0].gpm_pcie_tx_bytes_per_s, 5242880.0);
  EXPECT_DOUBLE_EQ(*a[0].gpm_pcie_rx_bytes_per_s, 1048576.0);
  WaitForGpm();
  std::vector<GpuSample> b = s->Take(1.0);
  EXPECT_FALSE(b[0].pcie_tx_bytes_per_s.has_value());  // not asked once GPM answered PCIe
  EXPECT_DOUBLE_EQ(*b[0].gpm_pcie_tx_bytes_per_s, 5242880.0);
}

TEST_F(GpuSamplerTest, LostGpuStopsBeingAsked) {
  UseScenario(
      R"({"gpus": [{"name": "A", "gpu_util_pct": 5, "memory_util_pct": 1, "lost": [false, true]},
                            {"name": "B", "gpu_util_pct": 6, "memory_util_pct": 1}]})");
  RecordingMeta meta;
  std::unique_ptr<GpuSampler> s = GpuSampler::Open(Fake(), HostPaths(root_.root()), &meta);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->Take(1.0)[0].util_pct, 5.0);
  SetStep(1);
  std::vector<GpuSample> b = s->Take(1.0);
  EXPECT_FALSE(b[0].util_pct.has_value());
  EXPECT_EQ(b[1].util_pct, 6.0);
  EXPECT_NE(s->notes().at("sampler.gpu.0").find("lost: nvmlDeviceGetUtilizationRates"),
            std::string::npos);
  SetStep(0);  // even if the fake answered again, a lost GPU is not asked
  EXPECT_FALSE(s->Take(1.0)[0].util_pct.has_value());
}

TEST_F(GpuSamplerTest, MissingLibraryOrDriver) {
  RecordingMeta meta;
  NvmlOptions o = Fake();
  o.library_path = "/nonexistent/libnvidia-ml.so.1";
  EXPECT_EQ(GpuSampler::Open(o, HostPaths(root_.root()), &meta), nullptr);
  EXPECT_NE(meta.notes.at("sampler.gpu").find("not loadable"), std::string::npos);

  unsetenv("GPUVET_FAKE_NVML_SCENARIO");  // the fake then answers DRIVER_NOT_LOADED
  RecordingMeta meta2;
  EXPECT_EQ(GpuSampler::Open(Fake(), HostPaths(root_.root()), &meta2), nullptr);
  EXPECT_NE(meta2.notes.at("sampler.gpu").find("driver not loaded"), std::string::npos);

  UseScenario(R"({"gpus": []})");
  RecordingMeta meta3;
  EXPECT_EQ(GpuSampler::Open(Fake(), HostPaths(root_.root()), &meta3), nullptr);
  EXPECT_EQ(meta3.notes.at("sampler.gpu"), "no GPUs: NVML reports 0 devices");
}

TEST_F(GpuSamplerTest, HostOnlyWhenTheLibraryIsMissing) {
  SamplerOptions o;
  o.paths = HostPaths();
  o.nvml.library_path = "/nonexistent/libnvidia-ml.so.1";
  Result<std::unique_ptr<Sampler>> s = Sampler::Create(o);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE((*s)->meta().gpus.empty());
  EXPECT_NE((*s)->meta().notes.at("sampler.gpu").find("libnvidia-ml"), std::string::npos);
  std::this_thread::sleep_for(milliseconds(30));  // let the CPU tick counters move
  Sample x = (*s)->Take();
  EXPECT_TRUE(x.gpus.empty());
  EXPECT_TRUE(x.host.cpu_idle_pct.has_value());
}

TEST_F(GpuSamplerTest, HungCallCostsOneTimeoutAndIsRecovered) {
  // GPU 1's temperature query sleeps 700 ms; the timeout is 150 ms.
  UseScenario(
      R"({"gpus": [{"name": "A", "gpu_util_pct": 5, "memory_util_pct": 1, "temperature_c": 40},
    {"name": "B", "gpu_util_pct": 6, "memory_util_pct": 1, "temperature_c": 41,
     "delays_ms": {"nvmlDeviceGetTemperature": 700}},
    {"name": "C", "gpu_util_pct": 7, "memory_util_pct": 1}]})");
  RecordingMeta meta;
  std::unique_ptr<GpuSampler> s =
      GpuSampler::Open(Fake(milliseconds(150)), HostPaths(root_.root()), &meta);
  ASSERT_NE(s, nullptr);
  auto start = Clock::now();
  std::vector<GpuSample> a = s->Take(1.0);
  auto took = Clock::now() - start;
  EXPECT_LT(took, milliseconds(600));  // one timeout, not the 700 ms sleep
  EXPECT_EQ(a[0].util_pct, 5.0);
  EXPECT_EQ(a[1].util_pct, 6.0);  // read before the hang: kept
  EXPECT_FALSE(a[1].temperature_c.has_value());
  EXPECT_FALSE(a[2].util_pct.has_value());  // after the hang: dropped this time
  EXPECT_NE(s->notes().at("sampler.gpu.hang").find("nvmlDeviceGetTemperature on GPU 1"),
            std::string::npos);

  start = Clock::now();
  std::vector<GpuSample> b = s->Take(1.0);  // still hung: answers at once, everything absent
  EXPECT_LT(Clock::now() - start, milliseconds(100));
  EXPECT_FALSE(b[0].util_pct.has_value());

  std::this_thread::sleep_for(milliseconds(800));  // the stuck call returns
  std::vector<GpuSample> c = s->Take(1.0);
  EXPECT_EQ(c[0].util_pct, 5.0);  // resumed
  EXPECT_TRUE(s->notes().count("sampler.gpu.recovered"));
  // GPU 1 hangs again (the delay applies to every call): GPU 2 is dropped again.
  EXPECT_FALSE(c[2].util_pct.has_value());
}

// A call that hangs while the GPUs are opened: Open returns after one timeout, and sampling
// starts once NVML answers again (the hung GPU finishes opening in the background).
TEST_F(GpuSamplerTest, HangWhileOpening) {
  UseScenario(R"({"gpus": [{"name": "A", "gpu_util_pct": 5, "memory_util_pct": 1},
    {"name": "B", "gpu_util_pct": 6, "memory_util_pct": 1,
     "delays_ms": {"nvmlDeviceGetName": 600}},
    {"name": "C", "gpu_util_pct": 7, "memory_util_pct": 1}]})");
  RecordingMeta meta;
  const auto start = Clock::now();
  std::unique_ptr<GpuSampler> s =
      GpuSampler::Open(Fake(milliseconds(150)), HostPaths(root_.root()), &meta);
  EXPECT_LT(Clock::now() - start, milliseconds(500));
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(meta.gpus.size(), 3u);
  EXPECT_EQ(meta.gpus[0].name, "A");
  EXPECT_EQ(meta.gpus[1].name, "");  // its facts were being read when NVML hung
  EXPECT_EQ(meta.gpus[2].index, 2);
  EXPECT_NE(s->notes().at("sampler.gpu.hang").find("nvmlDeviceGetName hung while opening GPU 1"),
            std::string::npos);
  EXPECT_FALSE(s->Take(1.0)[0].util_pct.has_value());  // still hung
  std::this_thread::sleep_for(milliseconds(700));
  std::vector<GpuSample> x = s->Take(1.0);
  EXPECT_EQ(x[0].util_pct, 5.0);
  EXPECT_EQ(x[1].util_pct, 6.0);            // opened in the background meanwhile
  EXPECT_FALSE(x[2].util_pct.has_value());  // never opened
}

// Without the step file the step follows the time since nvmlInit_v2.
TEST_F(GpuSamplerTest, StepsAdvanceWithTime) {
  UseScenario(R"({"series_interval_ms": 40, "gpus": [{"name": "A", "power_w": [100, 200]}]})");
  unsetenv("GPUVET_FAKE_NVML_STEP_FILE");
  RecordingMeta meta;
  std::unique_ptr<GpuSampler> s = GpuSampler::Open(Fake(), HostPaths(root_.root()), &meta);
  ASSERT_NE(s, nullptr);
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(s->Take(1.0)[0].power_w, 200.0);  // step 2 or later: the last element
}

// The sampler keeps only the GPU processes of the followed tree.
TEST_F(GpuSamplerTest, GpuProcessesOfTheWorkloadOnly) {
  const pid_t child = ::fork();
  if (child == 0) {
    while (true) ::pause();
  }
  ASSERT_GT(child, 0);
  UseScenario(R"({"gpus": [{"name": "A", "compute_processes": [{"pid": )" + std::to_string(child) +
              R"(, "used_memory_bytes": 5}, {"pid": 1, "used_memory_bytes": 7}]}]})");
  SamplerOptions o;
  o.nvml = Fake();
  Result<std::unique_ptr<Sampler>> s = Sampler::Create(o);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->Take().gpus[0].processes.size(), 2u);  // no workload: every process
  (*s)->SetRootPid(child);
  Sample x = (*s)->Take();
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_EQ(x.gpus[0].processes.size(), 1u);
  EXPECT_EQ(x.gpus[0].processes[0].pid, static_cast<uint32_t>(child));
  EXPECT_EQ(x.gpus[0].processes[0].used_memory_bytes, 5u);
}

TEST(BoundedExecutorRecoverTest, ResumesOnceTheHungCallReturns) {
  BoundedExecutor exec(milliseconds(50));
  EXPECT_TRUE(exec.Recover());  // nothing hung
  Result<int> hung = exec.Call("slow", [] {
    std::this_thread::sleep_for(milliseconds(300));
    return 7;
  });
  EXPECT_FALSE(hung.ok());
  EXPECT_TRUE(exec.wedged());
  EXPECT_FALSE(exec.Recover());  // still sleeping
  EXPECT_FALSE(exec.Call("next", [] { return 1; }).ok());
  std::this_thread::sleep_for(milliseconds(400));
  EXPECT_TRUE(exec.Recover());
  EXPECT_FALSE(exec.wedged());
  Result<int> next = exec.Call("next", [] { return 1; });
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, 1);
}

TEST_F(GpuSamplerTest, GpmSamplesAreAtLeast100MsApart) {
  UseScenario(R"({"gpus": [{"name": "H100", "gpm_sm_active_pct": 42}]})");
  RecordingMeta meta;
  std::unique_ptr<GpuSampler> s = GpuSampler::Open(Fake(), HostPaths(root_.root()), &meta);
  ASSERT_NE(s, nullptr);
  // Right after Open (which took the first GPM sample): too close, no GPM metric, a note.
  std::vector<GpuSample> a = s->Take(1.0);
  EXPECT_FALSE(a[0].sm_active_pct.has_value());
  EXPECT_NE(s->notes().at("sampler.gpu.0.gpm").find("1 sample(s) without GPM metrics"),
            std::string::npos);
  // The baseline was kept, so once 100 ms have passed the metric is there.
  WaitForGpm();
  std::vector<GpuSample> b = s->Take(1.0);
  ASSERT_TRUE(b[0].sm_active_pct.has_value());
  EXPECT_DOUBLE_EQ(*b[0].sm_active_pct, 42.0);
}

// The list grows between the size query and the read by more than the headroom: the read gets
// INSUFFICIENT_SIZE with the new count and the retry reads every process.
TEST_F(GpuSamplerTest, ProcessListGrowingBetweenSizeQueryAndReadIsRetried) {
  std::string late;
  for (int i = 0; i < 10; ++i) {
    late += fmt::format("{}{{\"pid\": {}, \"used_memory_bytes\": {}, \"sm_util_pct\": 20}}",
                        i ? ", " : "", 7000 + i, 1000 + i);
  }
  UseScenario(R"({"gpus": [{"name": "A", "compute_processes": [{"pid": 6000,
    "used_memory_bytes": 5}], "process_utilization": [{"pid": 6000, "sm_util_pct": 60}],
    "late_processes": [)" +
              late + "]}]}");
  RecordingMeta meta;
  std::unique_ptr<GpuSampler> s = GpuSampler::Open(Fake(), HostPaths(root_.root()), &meta);
  ASSERT_NE(s, nullptr);
  std::vector<GpuSample> a = s->Take(1.0);
  ASSERT_EQ(a[0].processes.size(), 11u);
  EXPECT_EQ(a[0].processes[0].pid, 6000u);
  EXPECT_DOUBLE_EQ(*a[0].processes[0].sm_util_pct, 60.0);
  EXPECT_EQ(a[0].processes[10].pid, 7009u);
  EXPECT_EQ(a[0].processes[10].used_memory_bytes, 1009u);
  EXPECT_DOUBLE_EQ(*a[0].processes[10].sm_util_pct, 20.0);
  EXPECT_EQ(s->notes().count("sampler.gpu.0.errors"), 0u);
}

// More processes than the bounded buffer holds: no list (never a truncated one), and the reason.
TEST_F(GpuSamplerTest, ProcessListBeyondTheBoundIsAnErrorNotATruncation) {
  std::string procs;
  for (unsigned i = 0; i <= gpu_sampler_internal::kMaxListEntries; ++i) {
    procs += fmt::format("{}{{\"pid\": {}}}", i ? ", " : "", 10000 + i);
  }
  UseScenario(R"({"gpus": [{"name": "A", "compute_processes": [)" + procs + "]}]}");
  RecordingMeta meta;
  std::unique_ptr<GpuSampler> s = GpuSampler::Open(Fake(), HostPaths(root_.root()), &meta);
  ASSERT_NE(s, nullptr);
  std::vector<GpuSample> a = s->Take(1.0);
  EXPECT_TRUE(a[0].processes.empty());
  EXPECT_NE(s->notes()
                .at("sampler.gpu.0.errors")
                .find("nvmlDeviceGetComputeRunningProcesses_v3: INSUFFICIENT_SIZE: a list of 4097 "
                      "does not fit the buffer (bounded at 4096); not read"),
            std::string::npos)
      << s->notes().at("sampler.gpu.0.errors");
}

TEST_F(GpuSamplerTest, UtilizationAbove100PercentIsDroppedWithAReason) {
  UseScenario(R"({"gpus": [{"name": "A", "compute_processes": [{"pid": 6000}, {"pid": 6001}],
    "process_utilization": [{"pid": 6000, "sm_util_pct": 4294967295},
                            {"pid": 6001, "sm_util_pct": 100}]}]})");
  RecordingMeta meta;
  std::unique_ptr<GpuSampler> s = GpuSampler::Open(Fake(), HostPaths(root_.root()), &meta);
  ASSERT_NE(s, nullptr);
  std::vector<GpuSample> a = s->Take(1.0);
  ASSERT_EQ(a[0].processes.size(), 2u);
  EXPECT_FALSE(a[0].processes[0].sm_util_pct.has_value());
  EXPECT_DOUBLE_EQ(*a[0].processes[1].sm_util_pct, 100.0);
  EXPECT_NE(s->notes()
                .at("sampler.gpu.0.errors")
                .find("nvmlDeviceGetProcessUtilization: smUtil 4294967295 % for pid 6000 dropped"),
            std::string::npos);
}

}  // namespace
}  // namespace gpuvet
