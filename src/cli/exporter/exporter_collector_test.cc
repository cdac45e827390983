// The exporter's collector against the real fake NVML library: Xid counting across collections,
// last good values and the stale flag when NVML hangs, scrapes that never wait for a collection.
#include "cli/exporter/exporter_collector.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <optional>
#include <string>
#include <thread>

#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// One GPU object answering everything the renderer reads; `extra` is spliced into it.
std::string Gpu(int index, double power_w, const std::string& extra) {
  const std::string i = std::to_string(index);
  return "{" + extra + R"("name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-)" + i +
         R"(", "pci_bus_id": "0000:3)" + i + R"(:00.0", "minor_number": )" + i +
         R"(, "power_w": )" + std::to_string(power_w) +
         R"(, "power_limit_w": 700.0, "temperature_c": 61, "energy_mj": 1000500, "pcie_gen": 5,
         "pcie_gen_max": 5, "pcie_width": 16, "pcie_width_max": 16})";
}

// GPU 0 at `power_w` with `extra`; with `gpu1_extra`, a second GPU drawing power_w + 1.
std::string Scenario(double power_w, const std::string& extra = "",
                     const std::string* gpu1_extra = nullptr) {
  std::string gpus = Gpu(0, power_w, extra);
  if (gpu1_extra != nullptr) gpus += ", " + Gpu(1, power_w + 1, *gpu1_extra);
  return R"({"driver_version": "550.90.07", "nvml_version": "12.550.90.07",
    "cuda_driver_version": 12040, "gpus": [)" +
         gpus + "]}";
}

class CollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scenario_path_ = tree_.Path("nvml.json");
    kernel_log_ = tree_.Path("kernel.log");
    tree_.Write("kernel.log", "");
    UseScenario(Scenario(100));
  }
  void TearDown() override { unsetenv("GPUVET_FAKE_NVML_SCENARIO"); }

  void UseScenario(const std::string& json) {
    std::ofstream(scenario_path_) << json;
    setenv("GPUVET_FAKE_NVML_SCENARIO", scenario_path_.c_str(), 1);
  }

  CollectorOptions Options(milliseconds interval = milliseconds(15000),
                           milliseconds call_timeout = milliseconds(2000)) {
    CollectorOptions o;
    o.root = tree_.root();
    o.kernel_log = kernel_log_;
    o.nvml.library_path = GPUVET_FAKE_NVML_LIB;
    o.nvml.call_timeout = call_timeout;
    o.interval = interval;
    o.gpuvet_version = "test";
    return o;
  }

  test::TempTree tree_{"collector"};
  std::string scenario_path_, kernel_log_;
};

// The value of the series written exactly as `series` ("name{labels}"), if present.
std::optional<double> Value(const std::string& text, const std::string& series) {
  size_t pos = text.find("\n" + series + " ");
  if (pos == std::string::npos) return std::nullopt;
  pos += series.size() + 2;
  return std::stod(text.substr(pos, text.find('\n', pos) - pos));
}

constexpr char kXid13[] = R"(gpuvet_gpu_xid_errors_total{gpu="0",uuid="GPU-0",xid="13"})";
constexpr char kPower[] = R"(gpuvet_gpu_power_watts{gpu="0",uuid="GPU-0"})";

std::string XidLine(const std::string& time) {
  return "[" + time +
         "] NVRM: Xid (PCI:0000:30:00): 13, pid=4242, name=python, Graphics "
         "Exception\n";
}

TEST_F(CollectorTest, CountsEachXidRecordOnceAcrossCollections) {
  tree_.Write("kernel.log", XidLine("100.000001") + XidLine("101.000002"));
  Collector c(Options());
  c.CollectOnce();
  EXPECT_EQ(Value(c.RenderScrape(), kXid13), 2);
  c.CollectOnce();
  EXPECT_EQ(Value(c.RenderScrape(), kXid13), 2);
  tree_.Write("kernel.log", XidLine("100.000001") + XidLine("101.000002") + XidLine("205.5"));
  c.CollectOnce();
  EXPECT_EQ(Value(c.RenderScrape(), kXid13), 3);
  tree_.Write("kernel.log", XidLine("205.5"));  // older records left the ring buffer
  c.CollectOnce();
  EXPECT_EQ(Value(c.RenderScrape(), kXid13), 3);
}

TEST_F(CollectorTest, NoXidSeriesBeforeTheFirstOccurrence) {
  Collector c(Options());
  c.CollectOnce();
  std::string text = c.RenderScrape();
  EXPECT_EQ(text.find("gpuvet_gpu_xid_errors_total"), std::string::npos);
  EXPECT_EQ(Value(text, kPower), 100);
  EXPECT_EQ(Value(text, "gpuvet_exporter_stale"), 0);
  EXPECT_EQ(Value(text, R"(gpuvet_exporter_collection_errors_total{source="nvml"})"), 0);
}

constexpr char kPower1[] = R"(gpuvet_gpu_power_watts{gpu="1",uuid="GPU-1"})";

TEST_F(CollectorTest, ServesLastGoodValuesAndMarksThemStaleWhenNvmlHangs) {
  const std::string healthy;
  UseScenario(Scenario(100, "", &healthy));
  Collector c(Options(milliseconds(200), milliseconds(100)));
  c.CollectOnce();
  EXPECT_TRUE(c.Health().healthy) << c.Health().reason;
  EXPECT_EQ(Value(c.RenderScrape(), kPower1), 101);

  // GPU 1's temperature call hangs (well past the 100 ms deadline); every power value changed.
  const std::string hang = R"("delays_ms": {"nvmlDeviceGetTemperature": 5000},)";
  UseScenario(Scenario(250, "", &hang));
  Clock::time_point start = Clock::now();
  c.CollectOnce();
  EXPECT_LT(Clock::now() - start, milliseconds(1000));  // bounded by the call deadline
  std::string text = c.RenderScrape();
  EXPECT_EQ(Value(text, "gpuvet_exporter_stale"), 1);
  EXPECT_EQ(Value(text, kPower), 250) << "GPU 0 was read completely before the hang";
  EXPECT_EQ(Value(text, kPower1), 101) << "the last good value, not the hung read's";
  EXPECT_EQ(Value(text, R"(gpuvet_exporter_collection_errors_total{source="nvml"})"), 1);
  // A GPU whose call hangs does not answer its driver: it fails (issue 17; it was unknown).
  EXPECT_NE(text.find(R"(gpuvet_check_status{check="gpu.unresponsive")"), std::string::npos);
  ExporterHealth h = c.Health();
  EXPECT_FALSE(h.healthy);
  EXPECT_NE(h.reason.find("nvmlDeviceGetTemperature"), std::string::npos) << h.reason;

  // NVML answers again: after the back-off the next collection is fresh.
  UseScenario(Scenario(300, "", &healthy));
  std::this_thread::sleep_for(milliseconds(250));
  c.CollectOnce();
  text = c.RenderScrape();
  EXPECT_EQ(Value(text, "gpuvet_exporter_stale"), 0);
  EXPECT_EQ(Value(text, kPower1), 301);
  EXPECT_TRUE(c.Health().healthy) << c.Health().reason;
}

TEST_F(CollectorTest, ScrapesDoNotWaitForASlowCollection) {
  Collector c(Options(milliseconds(200), milliseconds(5000)));
  c.CollectOnce();
  // Slow but within the deadline: the collection takes about 1.2 s.
  UseScenario(Scenario(400, R"("delays_ms": {"nvmlDeviceGetPowerUsage": 1200},)"));
  auto collecting = std::async(std::launch::async, [&c] { c.CollectOnce(); });
  std::this_thread::sleep_for(milliseconds(500));
  Clock::time_point start = Clock::now();
  std::string text = c.RenderScrape();
  EXPECT_LT(Clock::now() - start, milliseconds(200));
  EXPECT_EQ(Value(text, kPower), 100);
  EXPECT_EQ(Value(text, "gpuvet_exporter_stale"), 1) << "overdue collection";
  ExporterHealth h = c.Health();
  EXPECT_FALSE(h.healthy);
  EXPECT_NE(h.reason.find("collection running"), std::string::npos) << h.reason;
  collecting.get();
  text = c.RenderScrape();
  EXPECT_EQ(Value(text, "gpuvet_exporter_stale"), 0);
  EXPECT_EQ(Value(text, kPower), 400);
}

TEST_F(CollectorTest, NoDriverIsUnhealthyButStillServesHostAndChecks) {
  CollectorOptions o = Options();
  o.nvml.library_path = tree_.Path("missing/libnvidia-ml.so.1");
  Collector c(o);
  c.CollectOnce();
  std::string text = c.RenderScrape();
  EXPECT_EQ(Value(text, R"(gpuvet_exporter_collection_errors_total{source="nvml"})"), 1);
  EXPECT_EQ(Value(text, "gpuvet_exporter_stale"), 0) << "nothing older is being served";
  EXPECT_NE(text.find("gpuvet_node_info{"), std::string::npos);
  EXPECT_NE(text.find(R"(gpuvet_check_status{check="driver.loaded",subject="host"})"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("gpuvet_exporter_last_success_timestamp_seconds"), std::string::npos);
  ExporterHealth h = c.Health();
  EXPECT_FALSE(h.healthy);
  EXPECT_NE(h.reason.find("no successful collection yet"), std::string::npos) << h.reason;
}

TEST_F(CollectorTest, CountsScrapesAndCollectsOnItsOwnThread) {
  Collector c(Options(milliseconds(100)));
  c.CollectOnce();
  EXPECT_EQ(Value(c.RenderScrape(), "gpuvet_exporter_scrapes_total"), 1);
  EXPECT_EQ(Value(c.RenderScrape(), "gpuvet_exporter_scrapes_total"), 2);
  c.Start();
  Clock::time_point deadline = Clock::now() + std::chrono::seconds(10);
  while (c.collections() < 3 && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  c.Stop();
  EXPECT_GE(c.collections(), 3u);
}

TEST_F(CollectorTest, UnreadableKernelLogCountsAnError) {
  CollectorOptions o = Options();
  o.kernel_log = tree_.root();  // a directory: refused with a message
  Collector c(o);
  c.CollectOnce();
  EXPECT_EQ(
      Value(c.RenderScrape(), R"(gpuvet_exporter_collection_errors_total{source="kernel_log"})"),
      1);
}

TEST_F(CollectorTest, StaleWhenTheVeryFirstCollectionHangs) {
  UseScenario(Scenario(100, R"("delays_ms": {"nvmlDeviceGetPowerUsage": 3000},)"));
  Collector c(Options(milliseconds(15000), milliseconds(100)));
  EXPECT_EQ(Value(c.RenderScrape(), "gpuvet_exporter_stale"), 1) << "nothing collected yet";
  EXPECT_NE(c.Health().reason.find("no collection has run yet"), std::string::npos);
  c.CollectOnce();
  std::string text = c.RenderScrape();
  EXPECT_EQ(Value(text, "gpuvet_exporter_stale"), 1)
      << "a partial read cut short by a hang is not a successful collection";
  EXPECT_FALSE(c.Health().healthy);
}

TEST_F(CollectorTest, ALostGpuKeepsItsIdentityLabels) {
  const std::string healthy = "";
  UseScenario(Scenario(100, "", &healthy));
  Collector c(Options());
  c.CollectOnce();
  constexpr char kInfo1[] = R"(gpuvet_gpu_info{gpu="1",uuid="GPU-1",)";
  ASSERT_NE(c.RenderScrape().find(kInfo1), std::string::npos);
  const std::string lost = R"("lost": true,)";
  UseScenario(Scenario(100, "", &lost));
  c.CollectOnce();
  std::string text = c.RenderScrape();
  EXPECT_NE(text.find(kInfo1), std::string::npos) << text;
  EXPECT_EQ(text.find(R"(gpu="1",uuid="")"), std::string::npos) << "no series with an empty uuid";
}

TEST_F(CollectorTest, ServesWhileTheFirstCollectionBlocks) {
  // The first collection blocks for 1.5 s inside nvmlInit (the timeout is longer): meanwhile
  // scrapes are answered at once, stale, and the collector cannot be stopped quickly. (A FIFO
  // or device standing in a sysfs path is refused before it is opened: util/file.h.)
  std::string json = Scenario(100);
  json.insert(1, R"("delays_ms": {"nvmlInit_v2": 1500},)");
  UseScenario(json);
  Collector c(Options(milliseconds(200), milliseconds(10000)));
  c.Start();
  std::this_thread::sleep_for(milliseconds(300));
  const Clock::time_point start = Clock::now();
  std::string text = c.RenderScrape();
  EXPECT_LT(Clock::now() - start, milliseconds(200));
  EXPECT_EQ(Value(text, "gpuvet_exporter_stale"), 1);
  EXPECT_EQ(c.collections(), 0u);
  ExporterHealth h = c.Health();
  EXPECT_FALSE(h.healthy);
  EXPECT_NE(h.reason.find("collection running"), std::string::npos) << h.reason;
  EXPECT_FALSE(c.StopWithin(milliseconds(100))) << "the collection is still blocked";
  EXPECT_TRUE(c.StopWithin(milliseconds(5000)));
  EXPECT_EQ(c.collections(), 1u);
  EXPECT_EQ(Value(c.RenderScrape(), "gpuvet_exporter_stale"), 0);
}

// The NVML call count of the fake library loaded in this process (its own counter).
unsigned long long FakeNvmlCalls() {
  void* h = dlopen(GPUVET_FAKE_NVML_LIB, RTLD_NOW | RTLD_NOLOAD);
  if (h == nullptr) return 0;
  auto* count = reinterpret_cast<unsigned long long (*)()>(dlsym(h, "gpuvetFakeNvmlCallCount"));
  unsigned long long n = count != nullptr ? count() : 0;
  dlclose(h);
  return n;
}

TEST_F(CollectorTest, KeepsOneNvmlSessionAndAsksOnlyWhatCanChange) {
  const std::string healthy;
  UseScenario(Scenario(100, "", &healthy));
  Collector c(Options());
  c.CollectOnce();
  const unsigned long long after_first = FakeNvmlCalls();
  c.CollectOnce();
  const unsigned long long second = FakeNvmlCalls() - after_first;
  c.CollectOnce();
  const unsigned long long third = FakeNvmlCalls() - after_first - second;
  ASSERT_GT(after_first, 0u);
  EXPECT_EQ(second, third) << "a steady state";
  // No init, versions, handles, identity or limits after the first collection.
  EXPECT_LT(second + 20, after_first) << after_first << " then " << second;
  std::string text = c.RenderScrape();
  EXPECT_NE(text.find(R"(gpuvet_gpu_info{gpu="1",uuid="GPU-1",)"), std::string::npos);
  EXPECT_EQ(Value(text, kPower), 100);
  EXPECT_EQ(Value(text, "gpuvet_exporter_collections_total"), 3);
}

}  // namespace
}  // namespace gpuvet
