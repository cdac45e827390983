// RunBenchmarks against the fake libcuda.so.1 (tests/fake_cuda, docs/cuda-scenario.md): figures
// equal the fake's timing model, sizes follow the plan, failures become measurements with
// their outcome and reason, and a missing driver or device never crashes the run.
#include "sources/bench/bench_engine.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>

#include "core/hw/pcie.h"
#include "sources/bench/bench_affinity.h"
#include "sources/bench/bench_cuda.h"
#include "sources/bench/bench_gpu_info.h"
#include "sources/bench/bench_live.h"
#include "sources/bench/bench_plan.h"
#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

using bench::BenchPlan;

constexpr uint64_t kMiB = 1 << 20;

// Small enough that the fake's real CPU copies stay fast, large enough that every kernel's
// modelled work exceeds the fake's 4 us launch floor (16 MiB at 2800 GB/s read+write = 12 us).
BenchPlan TinyPlan() {
  BenchPlan p = bench::PlanFor(false);
  p.transfer_bytes = 1 * kMiB;
  p.transfer_copies = 2;
  p.pageable_copies = 2;
  p.device_bytes = 16 * kMiB;
  p.device_reps = 2;
  p.samples = 3;
  p.fma_iterations = 64;
  p.launch_count = 10;
  p.latency_samples = 5;
  p.p2p_latency_copies = 4;
  p.verify_bytes = 4096;
  p.tensor_dim = 256;
  p.nccl_bytes = 1 * kMiB;
  return p;
}

// One device; `extra` is spliced into the top-level object, `device_extra` into the device.
std::string Scenario(const std::string& extra = "", const std::string& device_extra = "") {
  return fmt::format(R"({{
  "scenario_version": 1,
  "_test": "{}",
  "timing": {{"h2d_pinned_gbps": 53, "d2h_pinned_gbps": 50, "h2d_pageable_gbps": 20,
              "d2h_pageable_gbps": 16, "d2d_gbps": 2800, "remote_numa_factor": 0.5,
              "launch_overhead_us": 4, "fp32_tflops": 60}},
  "devices": [{{"name": "NVIDIA H100 PCIe", "pci_bus_id": "0000:3b:00.0", "local_cpus": [0]
               {}}}]
  {}
}})",
                     ::testing::UnitTest::GetInstance()->current_test_info()->name(), device_extra,
                     extra);
}

// A fake node: GPU 0000:3b:00.0 on NUMA node 0 (CPU 0), a second GPU 0000:86:00.0 on node 1
// (CPU 1), Gen5 x16 links (Gen1 at idle for the first, to see the loaded re-read).
class BenchEngineTest : public ::testing::Test {
 protected:
  BenchEngineTest() : tree_("bench_engine") {
    WriteGpu("0000:3b:00.0", 0, "0", "2.5 GT/s PCIe");
    WriteGpu("0000:86:00.0", 1, "1", "32.0 GT/s PCIe");
    tree_.Write("sys/devices/system/node/node0/cpulist", "0\n");
    tree_.Write("sys/devices/system/node/node1/cpulist", "1\n");
    options_.cuda_lib = GPUVET_FAKE_CUDA_LIB;
    // The machine's real cuBLASLt and NCCL stay out of these tests (they would time real library
    // set-up against the fake driver); OptionalLibrariesAreSkippedByNameOrFailCleanly lets them in.
    setenv("GPUVET_CUBLASLT_LIB", "none", 1);
    setenv("GPUVET_NCCL_LIB", "none", 1);
    options_.paths = HostPaths(tree_.root());
  }

  void WriteGpu(const std::string& addr, int node, const std::string& cpus,
                const std::string& speed) {
    const std::string dir = "sys/bus/pci/devices/" + addr + "/";
    tree_.Write(dir + "vendor", "0x10de\n");
    tree_.Write(dir + "device", "0x2331\n");
    tree_.Write(dir + "class", "0x030200\n");
    tree_.Write(dir + "current_link_speed", speed + "\n");
    tree_.Write(dir + "max_link_speed", "32.0 GT/s PCIe\n");
    tree_.Write(dir + "current_link_width", "16\n");
    tree_.Write(dir + "max_link_width", "16\n");
    tree_.Write(dir + "numa_node", std::to_string(node) + "\n");
    tree_.Write(dir + "local_cpulist", cpus + "\n");
  }

  void UseScenario(const std::string& json) {
    const std::string path = tree_.Path("scenario.json");
    std::ofstream(path) << json;
    setenv("GPUVET_FAKE_CUDA_SCENARIO", path.c_str(), 1);
  }

  BenchRun Run(const BenchPlan& plan) { return RunBenchmarksWithPlan(options_, plan); }

  static const BenchMeasurement* Find(const BenchRun& run, const std::string& id, int gpu = 0,
                                      int peer = -1) {
    for (const BenchMeasurement& m : run.measurements) {
      if (m.id == id && m.gpu == gpu && m.peer == peer) return &m;
    }
    return nullptr;
  }

  // The measurement, which must exist and have been measured.
  static const BenchMeasurement& Measured(const BenchRun& run, const std::string& id, int gpu = 0,
                                          int peer = -1) {
    const BenchMeasurement* m = Find(run, id, gpu, peer);
    static const BenchMeasurement kMissing;
    EXPECT_NE(m, nullptr) << id;
    if (m == nullptr) return kMissing;
    EXPECT_EQ(m->skipped, "") << id;
    return *m;
  }

  static std::string Notes(const BenchRun& run) {
    return fmt::format("{}", fmt::join(run.notes, " | "));
  }

  test::TempTree tree_;
  BenchOptions options_;
};

bool TwoCpusUsable() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_ISSET(0, &set) && CPU_ISSET(1, &set);
}

TEST_F(BenchEngineTest, FiguresEqualTheFakeModel) {
  UseScenario(Scenario());
  const BenchRun run = Run(TinyPlan());
  ASSERT_EQ(run.state, BenchState::kOk) << run.detail;
  EXPECT_EQ(run.driver_version, 12080);
  EXPECT_EQ(run.library, GPUVET_FAKE_CUDA_LIB);
  ASSERT_EQ(run.gpus.size(), 1u);
  const BenchGpu& gpu = run.gpus[0];
  EXPECT_EQ(gpu.name, "NVIDIA H100 PCIe");
  EXPECT_EQ(gpu.pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(gpu.sm_count, 114);
  EXPECT_DOUBLE_EQ(gpu.sm_clock_mhz, 1755);
  EXPECT_DOUBLE_EQ(gpu.mem_clock_mhz, 1593);
  EXPECT_EQ(gpu.memory_bus_bits, 5120);
  EXPECT_EQ(gpu.copy_engines, 3);
  EXPECT_EQ(gpu.cc_major, 9);
  EXPECT_EQ(gpu.memory_bytes, 85520809984ull);
  ASSERT_TRUE(gpu.numa_node.has());
  EXPECT_EQ(*gpu.numa_node, 0);
  EXPECT_EQ(gpu.local_cpus, std::vector<int>{0});
  EXPECT_EQ(*gpu.pcie_width, 16);
  EXPECT_EQ(*gpu.pcie_gen_max, 5);

  struct Expect {
    const char* id;
    const char* unit;
    double value;
  };
  const Expect expected[] = {
      {"h2d_pinned", "GB/s", 53},
      {"d2h_pinned", "GB/s", 50},
      {"h2d_pageable", "GB/s", 20},
      {"d2h_pageable", "GB/s", 16},
      // Both directions' bytes over the span of the slower one (D2H at 50): 2 x 50.
      {"bidir_pinned", "GB/s", 100},
      {"d2d_copy_engine", "GB/s", 2800},
      {"d2d_sm_copy", "GB/s", 2800},
      {"sm_triad", "GB/s", 2800},
      {"fp32_fma", "TFLOP/s", 60},
      {"launch_rate", "launches/s", 250000},  // 1 / 4 us
      {"launch_latency", "us", 4},
  };
  for (const Expect& e : expected) {
    const BenchMeasurement& m = Measured(run, e.id);
    EXPECT_EQ(m.unit, e.unit) << e.id;
    EXPECT_NEAR(m.median, e.value, e.value * 1e-4) << e.id;
    EXPECT_NEAR(m.min, e.value, e.value * 1e-4) << e.id;
    EXPECT_NEAR(m.max, e.value, e.value * 1e-4) << e.id;
    EXPECT_FALSE(m.method.empty()) << e.id;
    EXPECT_EQ(m.numa_node, 0) << e.id;
  }
  const BenchMeasurement& h2d = Measured(run, "h2d_pinned");
  EXPECT_EQ(h2d.bytes, 1 * kMiB);
  EXPECT_EQ(h2d.repetitions, 2);
  EXPECT_EQ(h2d.samples.size(), 3u);
  EXPECT_NE(h2d.method.find("cuMemcpyHtoDAsync_v2"), std::string::npos) << h2d.method;
  EXPECT_EQ(Measured(run, "launch_latency").samples.size(), 5u);
  EXPECT_EQ(Measured(run, "d2d_copy_engine").bytes, 16 * kMiB);
  EXPECT_EQ(Find(run, "h2d_pinned_remote"), nullptr);  // only with numa_compare
}

TEST_F(BenchEngineTest, PageableIsSlowerThanPinnedAndSaysHow) {
  UseScenario(Scenario());
  const BenchRun run = Run(TinyPlan());
  const BenchMeasurement& pinned = Measured(run, "h2d_pinned");
  const BenchMeasurement& pageable = Measured(run, "h2d_pageable");
  EXPECT_NEAR(pageable.median / pinned.median, 20.0 / 53.0, 1e-4);
  EXPECT_NE(pageable.method.find("pageable"), std::string::npos);
  EXPECT_NE(pageable.method.find("cuMemcpyHtoD_v2"), std::string::npos);
  EXPECT_NE(pinned.method.find("pinned"), std::string::npos);
}

TEST_F(BenchEngineTest, LoadedPcieGenerationIsReadWhileCopying) {
  UseScenario(Scenario());
  // The link trains up under load: flip the fixture when the H2D benchmark starts.
  options_.progress = [this](std::string_view step, double) {
    if (step == "GPU 0: h2d_pinned") {
      tree_.Write("sys/bus/pci/devices/0000:3b:00.0/current_link_speed", "32.0 GT/s PCIe\n");
    }
  };
  const BenchRun run = Run(TinyPlan());
  ASSERT_EQ(run.gpus.size(), 1u);
  ASSERT_TRUE(run.gpus[0].pcie_gen_idle.has());
  EXPECT_EQ(*run.gpus[0].pcie_gen_idle, 1);
  ASSERT_TRUE(run.gpus[0].pcie_gen_loaded.has()) << run.gpus[0].pcie_gen_loaded.note;
  EXPECT_EQ(*run.gpus[0].pcie_gen_loaded, 5);
}

TEST_F(BenchEngineTest, ProgressIsReportedBeforeEachMeasurement) {
  UseScenario(Scenario());
  std::vector<std::string> steps;
  double last = -1;
  bool monotonic = true;
  options_.progress = [&](std::string_view step, double fraction) {
    steps.emplace_back(step);
    monotonic = monotonic && fraction >= last && fraction <= 1.0;
    last = fraction;
  };
  const BenchRun run = Run(TinyPlan());
  EXPECT_TRUE(monotonic);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.front(), "GPU 0: h2d_pinned");
  EXPECT_EQ(steps.back(), "done");
  EXPECT_DOUBLE_EQ(last, 1.0);
  EXPECT_EQ(steps.size(), run.measurements.size() + 1);
}

TEST_F(BenchEngineTest, RemoteNumaNodeCostsWhatTheModelSays) {
  if (!TwoCpusUsable()) GTEST_SKIP() << "needs CPUs 0 and 1 to pin the host thread";
  UseScenario(Scenario());
  options_.numa_compare = true;
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
  const BenchRun run = Run(TinyPlan());
  const BenchMeasurement& local = Measured(run, "h2d_pinned");
  const BenchMeasurement& remote = Measured(run, "h2d_pinned_remote");
  const BenchMeasurement& remote_d2h = Measured(run, "d2h_pinned_remote");
  EXPECT_EQ(local.numa_node, 0);
  EXPECT_EQ(remote.numa_node, 1);
  EXPECT_NEAR(remote.median / local.median, 0.5, 1e-4);
  EXPECT_NEAR(remote_d2h.median, 25, 1e-3);
  cpu_set_t after;
  ASSERT_EQ(sched_getaffinity(0, sizeof(after), &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after)) << "affinity not restored";
}

TEST_F(BenchEngineTest, RemoteComparisonSkippedOnASingleNode) {
  tree_.Write("sys/devices/system/node/node1/cpulist", "\n");  // memory-only node
  UseScenario(Scenario());
  options_.numa_compare = true;
  const BenchRun run = Run(TinyPlan());
  const BenchMeasurement* remote = Find(run, "h2d_pinned_remote");
  ASSERT_NE(remote, nullptr);
  EXPECT_NE(remote->skipped.find("no NUMA node with CPUs other than node 0"), std::string::npos)
      << remote->skipped;
}

TEST_F(BenchEngineTest, QuickAndFullUseTheirSizes) {
  const BenchPlan& quick = bench::PlanFor(false);
  const BenchPlan& full = bench::PlanFor(true);
  EXPECT_STREQ(quick.mode, "quick");
  EXPECT_STREQ(full.mode, "full");
  EXPECT_EQ(quick.transfer_bytes, 64 * kMiB);
  EXPECT_EQ(quick.transfer_copies, 4);
  EXPECT_EQ(quick.samples, 3);
  EXPECT_EQ(full.transfer_bytes, 512 * kMiB);
  EXPECT_EQ(full.transfer_copies, 8);
  EXPECT_EQ(full.samples, 5);
  EXPECT_GT(full.device_bytes, quick.device_bytes);
  EXPECT_GT(full.launch_count, quick.launch_count);

  // The real entry point with each mode: a GPU with 8 MiB of memory refuses every buffer, and the
  // skip reasons name the plan's sizes (and the one shrink), without copying gigabytes here.
  for (bool is_full : {false, true}) {
    UseScenario(
        Scenario(fmt::format(R"(, "_mode": "{}")", is_full), R"(, "memory_bytes": 8388608)"));
    options_.full = is_full;
    const BenchRun run = RunBenchmarks(options_);
    EXPECT_EQ(run.mode, is_full ? "full" : "quick");
    const BenchMeasurement* h2d = Find(run, "h2d_pinned");
    ASSERT_NE(h2d, nullptr);
    EXPECT_NE(h2d->skipped.find(is_full ? "at 512 MiB and again at 256 MiB"
                                        : "at 64 MiB and again at 32 MiB"),
              std::string::npos)
        << h2d->skipped;
    const BenchMeasurement* d2d = Find(run, "d2d_copy_engine");
    ASSERT_NE(d2d, nullptr);
    EXPECT_NE(d2d->skipped.find(is_full ? "at 1024 MiB" : "at 256 MiB"), std::string::npos)
        << d2d->skipped;
  }
}

TEST_F(BenchEngineTest, OutOfMemoryShrinksOnce) {
  // 40 MiB: the 2 x 16 MiB device copy fits, 3 x 16 MiB for the triad does not, 3 x 8 MiB does.
  UseScenario(Scenario("", R"(, "memory_bytes": 41943040)"));
  const BenchRun run = Run(TinyPlan());
  EXPECT_EQ(Measured(run, "d2d_copy_engine").bytes, 16 * kMiB);
  const BenchMeasurement& triad = Measured(run, "sm_triad");
  EXPECT_EQ(triad.bytes, 8 * kMiB);
  EXPECT_NEAR(triad.median, 2800, 0.3);
}

TEST_F(BenchEngineTest, MissingDriverSaysWhy) {
  options_.cuda_lib = tree_.Path("no/libcuda.so.1");
  const BenchRun run = Run(TinyPlan());
  EXPECT_EQ(run.state, BenchState::kDriverMissing);
  EXPECT_NE(run.detail.find("libcuda.so.1"), std::string::npos) << run.detail;
  EXPECT_TRUE(run.gpus.empty());
  EXPECT_TRUE(run.measurements.empty());
}

TEST_F(BenchEngineTest, NoDevice) {
  UseScenario(R"({"scenario_version": 1, "_test": "NoDevice", "devices": []})");
  BenchRun run = Run(TinyPlan());
  EXPECT_EQ(run.state, BenchState::kNoDevice);
  EXPECT_NE(run.detail.find("CUDA_ERROR_NO_DEVICE"), std::string::npos) << run.detail;

  UseScenario(Scenario(R"(, "init": "CUDA_ERROR_UNKNOWN")"));
  run = Run(TinyPlan());
  EXPECT_EQ(run.state, BenchState::kFailed);
  EXPECT_NE(run.detail.find("cuInit"), std::string::npos) << run.detail;
  EXPECT_NE(run.detail.find("CUDA_ERROR_UNKNOWN"), std::string::npos) << run.detail;
}

TEST_F(BenchEngineTest, JitFailureSkipsKernelsWithTheLog) {
  UseScenario(Scenario(R"(, "errors": {"cuModuleLoadDataEx": "CUDA_ERROR_INVALID_PTX"},
                          "jit_error_log": "ptxas fatal : line 12: Unknown symbol")"));
  const BenchRun run = Run(TinyPlan());
  ASSERT_EQ(run.state, BenchState::kOk);
  EXPECT_NE(Notes(run).find("Unknown symbol"), std::string::npos) << Notes(run);
  for (const char* id : {"d2d_sm_copy", "sm_triad", "fp32_fma", "launch_rate", "launch_latency"}) {
    const BenchMeasurement* m = Find(run, id);
    ASSERT_NE(m, nullptr) << id;
    EXPECT_EQ(m->outcome, BenchOutcome::kFailed) << id;  // a driver failure, not "unavailable"
    EXPECT_NE(m->skipped.find("PTX kernels could not be loaded"), std::string::npos) << m->skipped;
    EXPECT_NE(m->skipped.find("Unknown symbol"), std::string::npos) << m->skipped;
    EXPECT_TRUE(m->samples.empty());
  }
  EXPECT_NEAR(Measured(run, "d2d_copy_engine").median, 2800, 0.3);  // copies still run
}

TEST_F(BenchEngineTest, GpuFailingMidRunSkipsTheRest) {
  UseScenario(Scenario(R"(, "errors": {"cuMemcpyDtoDAsync_v2": "CUDA_ERROR_ILLEGAL_ADDRESS",
                                       "cuCtxSynchronize": "CUDA_ERROR_ILLEGAL_ADDRESS"})"));
  const BenchRun run = Run(TinyPlan());
  Measured(run, "bidir_pinned");  // before the failure: measured
  const BenchMeasurement* d2d = Find(run, "d2d_copy_engine");
  ASSERT_NE(d2d, nullptr);
  EXPECT_EQ(d2d->outcome, BenchOutcome::kFailed);
  EXPECT_TRUE(d2d->skipped.starts_with("cuMemcpyDtoDAsync_v2")) << d2d->skipped;
  EXPECT_NE(d2d->skipped.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << d2d->skipped;
  for (const char* id : {"d2d_sm_copy", "fp32_fma", "launch_latency", "bf16_tensor"}) {
    const BenchMeasurement* m = Find(run, id);
    ASSERT_NE(m, nullptr) << id;
    EXPECT_EQ(m->outcome, BenchOutcome::kAbandoned) << id;
    EXPECT_NE(m->skipped.find("not run: GPU 0 stopped working during d2d_copy_engine"),
              std::string::npos)
        << id << ": " << m->skipped;
  }
  ASSERT_EQ(run.gpus.size(), 1u);
  EXPECT_NE(run.gpus[0].failed.find("during d2d_copy_engine: cuCtxSynchronize"), std::string::npos)
      << run.gpus[0].failed;
}

TEST_F(BenchEngineTest, ContextThatCannotBeOpenedFailsTheGpu) {
  UseScenario(Scenario(R"(, "errors": {"cuDevicePrimaryCtxRetain": "DEVICE_UNAVAILABLE"})"));
  const BenchRun run = Run(TinyPlan());
  ASSERT_EQ(run.gpus.size(), 1u);
  EXPECT_NE(run.gpus[0].failed.find("cuDevicePrimaryCtxRetain"), std::string::npos)
      << run.gpus[0].failed;
  EXPECT_NE(run.gpus[0].failed.find("CUDA_ERROR_DEVICE_UNAVAILABLE"), std::string::npos);
  for (const BenchMeasurement& m : run.measurements) {
    EXPECT_EQ(m.outcome, BenchOutcome::kAbandoned) << m.id;
  }
}

TEST_F(BenchEngineTest, PinnedHostMemoryExhaustedIsIncompleteAndSaysHost) {
  UseScenario(Scenario(R"(, "errors": {"cuMemHostAlloc": "OUT_OF_MEMORY"})"));
  const BenchRun run = Run(TinyPlan());
  const BenchMeasurement* h2d = Find(run, "h2d_pinned");
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(h2d->outcome, BenchOutcome::kIncomplete);
  EXPECT_NE(h2d->skipped.find("out of pinned host memory"), std::string::npos) << h2d->skipped;
  EXPECT_EQ(h2d->skipped.find("device memory"), std::string::npos) << h2d->skipped;
  Measured(run, "h2d_pageable");  // pageable memory is not pinned: still measured
}

TEST_F(BenchEngineTest, RequestedGpuThatDoesNotExistIsABadRequest) {
  UseScenario(Scenario());
  options_.gpus = {0, 5};
  const BenchRun run = Run(TinyPlan());
  EXPECT_EQ(run.state, BenchState::kBadRequest);
  EXPECT_NE(run.detail.find("--gpus 5"), std::string::npos) << run.detail;
  EXPECT_NE(run.detail.find("0 (NVIDIA H100 PCIe, 0000:3b:00.0)"), std::string::npos) << run.detail;
  EXPECT_TRUE(run.measurements.empty());
}

TEST_F(BenchEngineTest, MissingDriverNamesThePathTried) {
  options_.cuda_lib = tree_.Path("no/libcuda.so.1");
  const BenchRun run = Run(TinyPlan());
  EXPECT_EQ(run.state, BenchState::kDriverMissing);
  EXPECT_EQ(run.library, tree_.Path("no/libcuda.so.1"));
  EXPECT_NE(run.detail.find("cannot load " + run.library), std::string::npos) << run.detail;
}

TEST_F(BenchEngineTest, LiveStateKeepsTheRunSoFarAndTheStep) {
  UseScenario(Scenario());
  options_.live = std::make_shared<BenchLive>();
  const BenchRun run = Run(TinyPlan());
  ASSERT_EQ(run.state, BenchState::kOk);
  std::lock_guard<std::mutex> lock(options_.live->mu);
  EXPECT_EQ(options_.live->step, "done");
  EXPECT_EQ(options_.live->snapshot.measurements.size(), run.measurements.size());
  EXPECT_EQ(options_.live->snapshot.gpus.size(), 1u);
  EXPECT_EQ(options_.live->calls.InFlight().first, nullptr);  // no call in flight after the run
}

TEST(BenchLiveTest, TimedOutRunKeepsWhatWasMeasuredAndNamesTheCall) {
  BenchLive live;
  live.snapshot.mode = "quick";
  live.snapshot.gpus.push_back(BenchGpu{});
  BenchMeasurement h2d;
  h2d.id = "h2d_pinned";
  h2d.gpu = 0;
  h2d.median = 53;
  live.snapshot.measurements.push_back(h2d);
  live.step = "GPU 0: d2d_copy_engine";
  live.step_id = "d2d_copy_engine";
  live.step_gpu = 0;
  live.step_unit = "GB/s";
  live.step_started = std::chrono::steady_clock::now() - std::chrono::seconds(2);
  live.calls.Enter("cuMemcpyDtoDAsync_v2");
  const BenchRun run = TimedOutRun(live, 300);
  EXPECT_EQ(run.state, BenchState::kTimedOut);
  ASSERT_EQ(run.measurements.size(), 2u);
  EXPECT_DOUBLE_EQ(run.measurements[0].median, 53);
  EXPECT_EQ(run.measurements[1].id, "d2d_copy_engine");
  EXPECT_EQ(run.measurements[1].outcome, BenchOutcome::kFailed);
  EXPECT_NE(run.measurements[1].skipped.find("hung: cuMemcpyDtoDAsync_v2 did not return"),
            std::string::npos)
      << run.measurements[1].skipped;
  // Wall-clock: at least the 2 s the step was started before.
  EXPECT_TRUE(run.detail.find("step 'GPU 0: d2d_copy_engine' had been running for 2.") == 0 ||
              run.detail.find("step 'GPU 0: d2d_copy_engine' had been running for 3.") == 0)
      << run.detail;
  EXPECT_NE(run.detail.find("inside cuMemcpyDtoDAsync_v2"), std::string::npos) << run.detail;
  EXPECT_NE(run.detail.find("the 300 s limit of the whole run"), std::string::npos) << run.detail;
}

TEST_F(BenchEngineTest, FailedCallIsAFailedMeasurement) {
  UseScenario(Scenario(R"(, "errors": {"cuMemcpyHtoDAsync_v2": "CUDA_ERROR_UNKNOWN"})"));
  const BenchRun run = Run(TinyPlan());
  const BenchMeasurement* h2d = Find(run, "h2d_pinned");
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(h2d->outcome, BenchOutcome::kFailed);
  EXPECT_TRUE(h2d->skipped.starts_with("cuMemcpyHtoDAsync_v2")) << h2d->skipped;
  Measured(run, "d2h_pinned");  // the GPU still works: later measurements run
}

TEST_F(BenchEngineTest, P2pMatrixWithOneUnsupportedPair) {
  UseScenario(fmt::format(R"({{
  "scenario_version": 1, "_test": "p2p",
  "devices": [{{"pci_bus_id": "0000:3b:00.0", "local_cpus": [0]}},
              {{"pci_bus_id": "0000:86:00.0", "local_cpus": [1]}}],
  "p2p": [{{"src": 0, "dst": 1, "gbps": 40, "latency_us": 2}}]
}})"));
  const BenchRun run = Run(TinyPlan());
  ASSERT_EQ(run.state, BenchState::kOk) << run.detail;
  ASSERT_EQ(run.gpus.size(), 2u);
  EXPECT_EQ(*run.gpus[1].numa_node, 1);

  const BenchMeasurement& bw = Measured(run, "p2p_bandwidth", 0, 1);
  const double bytes = static_cast<double>(TinyPlan().transfer_bytes);
  const double per_copy_us = 2 + bytes / 40e3;  // latency + bytes at 40 GB/s (1e3 bytes/us)
  EXPECT_NEAR(bw.median, bytes / per_copy_us / 1e3, 1e-3);
  EXPECT_EQ(bw.unit, "GB/s");
  const BenchMeasurement& lat = Measured(run, "p2p_latency", 0, 1);
  EXPECT_NEAR(lat.median, 2 + 8 / 40e3, 1e-4);
  EXPECT_EQ(lat.unit, "us");

  for (const char* id : {"p2p_bandwidth", "p2p_latency"}) {
    const BenchMeasurement* back = Find(run, id, 1, 0);
    ASSERT_NE(back, nullptr) << id;
    EXPECT_NE(back->skipped.find("P2P not supported from GPU 1 to GPU 0"), std::string::npos)
        << back->skipped;
  }
}

// True when the dynamic loader finds any of `names` on this host.
bool Loadable(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (dlopen(name, RTLD_LAZY | RTLD_LOCAL) != nullptr) return true;  // kept open: cheap later
  }
  return false;
}

// Without the libraries the skip names what was looked for; with them (a build host with the CUDA
// toolkit but no GPU) they fail cleanly, as their runtime finds no driver behind the fake.
TEST_F(BenchEngineTest, OptionalLibrariesAreSkippedByNameOrFailCleanly) {
  UseScenario(fmt::format(R"({{
  "scenario_version": 1, "_test": "libs",
  "devices": [{{"pci_bus_id": "0000:3b:00.0"}}, {{"pci_bus_id": "0000:86:00.0"}}]
}})"));
  unsetenv("GPUVET_CUBLASLT_LIB");
  unsetenv("GPUVET_NCCL_LIB");
  const BenchRun run = Run(TinyPlan());
  ASSERT_EQ(run.state, BenchState::kOk) << run.detail;
  const bool have_cublaslt =
      Loadable({"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11", "libcublasLt.so"});
  for (int gpu : {0, 1}) {
    for (const char* id : {"bf16_tensor", "fp16_tensor"}) {
      const BenchMeasurement* m = Find(run, id, gpu);
      ASSERT_NE(m, nullptr) << id;
      EXPECT_EQ(m->unit, "TFLOP/s");
      EXPECT_TRUE(m->samples.empty());
      EXPECT_NE(m->skipped.find(have_cublaslt ? "libcublasLt.so" : "tried libcublasLt.so.13"),
                std::string::npos)
          << m->skipped;
    }
  }
  const BenchMeasurement* nccl = Find(run, "nccl_allreduce_busbw", -1);
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ(nccl->unit, "GB/s");
  if (Loadable({"libnccl.so.2"})) {
    EXPECT_NE(nccl->skipped.find("ncclCommInitAll"), std::string::npos) << nccl->skipped;
  } else {
    EXPECT_NE(nccl->skipped.find("libnccl.so.2 not found"), std::string::npos) << nccl->skipped;
  }
}

TEST(BenchEngineHelpers, PatternCheckFindsTheFirstBadByte) {
  std::vector<unsigned char> buf(4096);
  bench::FillPattern(buf.data(), buf.size(), 7);
  EXPECT_EQ(bench::FirstPatternMismatch(buf.data(), buf.size(), 7), -1);
  EXPECT_EQ(bench::FirstPatternMismatch(buf.data(), buf.size(), 8), 0);  // another seed differs
  buf[1000] ^= 1;
  EXPECT_EQ(bench::FirstPatternMismatch(buf.data(), buf.size(), 7), 1000);
}

TEST(BenchEngineHelpers, Summarise) {
  BenchMeasurement m;
  m.samples = {3, 1, 2, 10};
  bench::Summarise(m);
  EXPECT_DOUBLE_EQ(m.median, 2.5);
  EXPECT_DOUBLE_EQ(m.min, 1);
  EXPECT_DOUBLE_EQ(m.max, 10);
  EXPECT_EQ(bench::FormatBytes(64 * kMiB), "64 MiB");
  EXPECT_EQ(bench::FormatBytes(8), "8 B");
  EXPECT_EQ(PcieGenFromGts(16.0), 4);
  EXPECT_EQ(PcieGenFromGts(2.5), 1);
  EXPECT_EQ(PcieGenFromGts(7.0), 0);
}

}  // namespace
}  // namespace gpuvet
