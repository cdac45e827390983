// The NVML pipeline end to end: the loader, the time-bounded executor, and ReadNvml against the
// fake libnvidia-ml.so.1 (tests/fake_nvml) driven by scenario files written here.
#include "sources/nvml/nvml_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <thread>

#include "sources/nvml/bounded_call.h"
#include "sources/nvml/nvml_device_reader.h"
#include "sources/nvml/nvml_loader.h"
#include "sources/nvml/scenario_json.h"
#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// Writes `json` to a scenario file and points the fake at it.
void UseScenario(const std::string& json) {
  const std::string path = test::TestTempDir() + "/nvml_scenario_" + std::to_string(getpid()) +
                           "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                           ".json";
  std::ofstream(path) << json;
  setenv("GPUVET_FAKE_NVML_SCENARIO", path.c_str(), 1);
}

GpuInventory ReadFake(milliseconds timeout = milliseconds(2000)) {
  NvmlOptions options;
  options.library_path = GPUVET_FAKE_NVML_LIB;
  options.call_timeout = timeout;
  return ReadNvml(options);
}

constexpr char kHealthyGpu[] = R"({
  "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-%d", "serial": "165012345678%d",
  "pci_bus_id": "0000:%02x:00.0", "vbios_version": "96.00.74.00.01", "minor_number": %d,
  "persistence_mode": true, "performance_state": 0, "gpu_util_pct": 97, "memory_util_pct": 41,
  "memory_total_bytes": 85899345920, "memory_used_bytes": 8589934592,
  "sm_clock_mhz": 1980, "sm_clock_max_mhz": 1980, "mem_clock_mhz": 2619, "mem_clock_max_mhz": 2619,
  "clock_event_reasons": 4, "temperature_c": 61, "slowdown_temperature_c": 87,
  "shutdown_temperature_c": 92, "power_w": 512.345, "power_limit_w": 700.0,
  "default_power_limit_w": 700.0, "pcie_gen": 5, "pcie_gen_max": 5, "pcie_width": 16,
  "pcie_width_max": 16, "pcie_replay_counter": 0, "ecc_enabled": true, "ecc_pending_enabled": true,
  "ecc_corrected_volatile": 1, "ecc_uncorrected_volatile": 0, "ecc_corrected_aggregate": 12,
  "ecc_uncorrected_aggregate": 0, "retired_pages_sbe": 2, "retired_pages_dbe": 0,
  "retired_pages_pending": false, "remapped_rows_correctable": 1,
  "remapped_rows_uncorrectable": 0, "remap_pending": false, "remap_failure": false,
  "mig_enabled": false, "mig_pending_enabled": false, "mig_instances": 0,
  "nvlinks": [{"link": 0, "active": true, "replay_errors": 3, "recovery_errors": 0,
               "crc_flit_errors": 0, "crc_data_errors": 0}, {"link": 1, "active": false}],
  "compute_processes": [{"pid": 4242, "used_memory_bytes": 1073741824}]
})";

std::string HealthyGpu(int i) {
  char buf[4096];
  std::snprintf(buf, sizeof(buf), kHealthyGpu, i, i, 0x3b + i, i);
  return buf;
}

std::string Scenario2(const std::string& gpu0, const std::string& gpu1,
                      const std::string& top = "") {
  return R"({"driver_version": "550.90.07", "nvml_version": "12.550.90.07",
             "cuda_driver_version": 12040, )" +
         top + R"("gpus": [)" + gpu0 + "," + gpu1 + "]}";
}

// ---- loader ----

TEST(NvmlLoader, MissingLibraryIsUnavailableWithDlopenError) {
  Result<std::unique_ptr<NvmlLibrary>> lib = NvmlLibrary::Load("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(lib.status().message().find("/nonexistent/libnvidia-ml.so.1"), std::string::npos);
}

TEST(NvmlLoader, NotAnNvmlLibraryNamesTheMissingSymbol) {
  // libm is a real shared object without NVML symbols.
  Result<std::unique_ptr<NvmlLibrary>> lib = NvmlLibrary::Load("libm.so.6");
  ASSERT_FALSE(lib.ok());
  EXPECT_NE(lib.status().message().find("nvmlInit_v2"), std::string::npos)
      << lib.status().message();
}

TEST(NvmlLoader, LoadsFakeAndReportsResolvedPath) {
  Result<std::unique_ptr<NvmlLibrary>> lib = NvmlLibrary::Load(GPUVET_FAKE_NVML_LIB);
  ASSERT_TRUE(lib.ok()) << lib.status().message();
  EXPECT_NE((*lib)->path().find("libnvidia-ml.so.1"), std::string::npos);
  unsetenv("GPUVET_FAKE_NVML_SCENARIO");
  EXPECT_EQ((*lib)->nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
}

TEST(NvmlLoader, ErrorNames) {
  EXPECT_EQ(NvmlErrorName(NVML_ERROR_NOT_SUPPORTED), "NOT_SUPPORTED");
  EXPECT_EQ(NvmlErrorName(NVML_ERROR_GPU_IS_LOST), "GPU_IS_LOST");
  EXPECT_EQ(NvmlErrorName(12345), "UNRECOGNISED");
  EXPECT_EQ(NvmlErrorDescription(NVML_ERROR_UNKNOWN), "Unknown Error");
  EXPECT_EQ(DescribeNvmlError(NVML_ERROR_UNKNOWN), "Unknown Error (NVML_ERROR_UNKNOWN = 999)");
  EXPECT_EQ(NvmlErrorFromName("NVML_ERROR_GPU_IS_LOST"), NVML_ERROR_GPU_IS_LOST);
  EXPECT_EQ(NvmlErrorFromName("TIMEOUT"), NVML_ERROR_TIMEOUT);
  EXPECT_EQ(NvmlErrorFromName("SUCCESS"), NVML_SUCCESS);
  EXPECT_FALSE(NvmlErrorFromName("not_supported").has_value());
}

// ---- bounded calls ----

TEST(NvmlBoundedCall, ReturnsCodeAndOutput) {
  BoundedExecutor exec(milliseconds(1000));
  Result<int> code = exec.Call("nvmlX", [] { return NVML_ERROR_NOT_SUPPORTED; });
  ASSERT_TRUE(code.ok());
  EXPECT_EQ(*code, NVML_ERROR_NOT_SUPPORTED);
  Result<BoundedAnswer<unsigned>> answer = exec.CallWith<unsigned>("nvmlY", [](unsigned& out) {
    out = 42;
    return NVML_SUCCESS;
  });
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->out, 42u);
  EXPECT_FALSE(exec.wedged());
}

TEST(NvmlBoundedCall, TimeoutWedgesAndSkipsLaterCallsFast) {
  const auto start = Clock::now();
  {
    BoundedExecutor exec(milliseconds(100));
    Result<BoundedAnswer<int>> hung = exec.CallWith<int>("nvmlDeviceGetPowerUsage", [](int& out) {
      std::this_thread::sleep_for(milliseconds(3000));
      out = 1;  // writes into executor-owned memory after the caller gave up
      return NVML_SUCCESS;
    });
    ASSERT_FALSE(hung.ok());
    EXPECT_EQ(hung.status().code(), StatusCode::kTimeout);
    EXPECT_EQ(hung.status().message(), "nvmlDeviceGetPowerUsage did not return within 100 ms");
    EXPECT_TRUE(exec.wedged());
    bool ran = false;
    Result<int> later = exec.Call("nvmlDeviceGetTemperature", [&ran] {
      ran = true;
      return 0;
    });
    ASSERT_FALSE(later.ok());
    EXPECT_EQ(later.status().message(), "skipped: nvmlDeviceGetPowerUsage hung earlier");
    EXPECT_FALSE(ran);
  }  // destructor must not join the hung worker
  EXPECT_LT(Clock::now() - start, milliseconds(1000));
}

TEST(NvmlBoundedCall, ProcessExitsPromptlyWithAHungCall) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto start = Clock::now();
  EXPECT_EXIT(
      {
        BoundedExecutor exec(milliseconds(50));
        (void)exec.Call("nvmlHang", [] {
          std::this_thread::sleep_for(std::chrono::seconds(60));
          return 0;
        });
        std::exit(exec.wedged() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
}

// ---- ReadNvml against the fake ----

TEST(NvmlSource, LibraryMissing) {
  NvmlOptions options;
  options.library_path = "/nonexistent/libnvidia-ml.so.1";
  GpuInventory inv = ReadNvml(options);
  EXPECT_EQ(inv.state, GpuSourceState::kLibraryMissing);
  EXPECT_NE(inv.detail.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << inv.detail;
  EXPECT_TRUE(inv.gpus.empty());
}

TEST(NvmlSource, DriverNotLoaded) {
  UseScenario(R"({"init": "DRIVER_NOT_LOADED"})");
  GpuInventory inv = ReadFake();
  EXPECT_EQ(inv.state, GpuSourceState::kDriverNotLoaded);
  EXPECT_NE(inv.detail.find("NVML_ERROR_DRIVER_NOT_LOADED"), std::string::npos) << inv.detail;
  // No scenario at all is how the fake plays a host without the driver.
  unsetenv("GPUVET_FAKE_NVML_SCENARIO");
  EXPECT_EQ(ReadFake().state, GpuSourceState::kDriverNotLoaded);
}

TEST(NvmlSource, InitUnknownErrorIsInitFailedWithName) {
  UseScenario(R"({"init": "UNKNOWN"})");
  GpuInventory inv = ReadFake();
  EXPECT_EQ(inv.state, GpuSourceState::kInitFailed);
  EXPECT_NE(inv.detail.find("NVML_ERROR_UNKNOWN"), std::string::npos) << inv.detail;
  EXPECT_NE(inv.origin.find("nvml ("), std::string::npos);
}

TEST(NvmlSource, GarbledScenarioIsInitFailed) {
  UseScenario("{ not json");
  EXPECT_EQ(ReadFake().state, GpuSourceState::kInitFailed);
}

TEST(NvmlSource, HealthyTwoGpusReadsEveryField) {
  UseScenario(Scenario2(HealthyGpu(0), HealthyGpu(1)));
  GpuInventory inv = ReadFake();
  ASSERT_EQ(inv.state, GpuSourceState::kOk) << inv.detail;
  EXPECT_NE(inv.origin.find("libnvidia-ml.so.1"), std::string::npos) << inv.origin;
  EXPECT_EQ(*inv.driver_version, "550.90.07");
  EXPECT_EQ(*inv.nvml_version, "12.550.90.07");
  EXPECT_EQ(*inv.cuda_driver_version, 12040);
  EXPECT_EQ(*inv.device_count, 2);
  EXPECT_TRUE(inv.failures.empty());
  ASSERT_EQ(inv.gpus.size(), 2u);
  const GpuState& g = inv.gpus[1];
  EXPECT_EQ(g.index, 1);
  EXPECT_EQ(g.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g.uuid, "GPU-1");
  EXPECT_EQ(g.serial, "1650123456781");
  EXPECT_EQ(g.pci_bus_id, "0000:3c:00.0");  // fake answers "00000000:3C:00.0"
  EXPECT_EQ(g.vbios_version, "96.00.74.00.01");
  EXPECT_EQ(*g.minor_number, 1);
  EXPECT_TRUE(*g.persistence_mode);
  EXPECT_EQ(*g.performance_state, 0);
  EXPECT_EQ(*g.gpu_util_pct, 97);
  EXPECT_EQ(*g.memory_util_pct, 41);
  EXPECT_EQ(*g.memory_total_bytes, 85899345920ULL);
  EXPECT_EQ(*g.memory_used_bytes, 8589934592ULL);
  EXPECT_EQ(*g.sm_clock_mhz, 1980);
  EXPECT_EQ(*g.mem_clock_max_mhz, 2619);
  EXPECT_EQ(*g.clock_event_reasons, clock_reason::kSwPowerCap);
  EXPECT_EQ(*g.temperature_c, 61);
  EXPECT_EQ(*g.slowdown_temperature_c, 87);
  EXPECT_EQ(*g.shutdown_temperature_c, 92);
  EXPECT_DOUBLE_EQ(*g.power_w, 512.345);  // 512345 mW
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 700.0);
  EXPECT_EQ(*g.pcie_gen, 5);
  EXPECT_EQ(*g.pcie_width_max, 16);
  EXPECT_EQ(*g.pcie_replay_counter, 0u);
  EXPECT_TRUE(*g.ecc_enabled);
  EXPECT_EQ(*g.ecc_corrected_volatile, 1u);
  EXPECT_EQ(*g.ecc_corrected_aggregate, 12u);
  EXPECT_EQ(*g.retired_pages_sbe, 2);
  EXPECT_EQ(*g.retired_pages_dbe, 0);
  EXPECT_FALSE(*g.retired_pages_pending);
  EXPECT_EQ(*g.remapped_rows_correctable, 1);
  EXPECT_FALSE(*g.remap_failure);
  EXPECT_FALSE(*g.mig_enabled);
  EXPECT_EQ(*g.mig_instances, 0);
  ASSERT_EQ(g.nvlinks.size(), 2u);
  EXPECT_TRUE(g.nvlinks[0].active);
  EXPECT_EQ(*g.nvlinks[0].replay_errors, 3u);
  EXPECT_FALSE(g.nvlinks[1].active);
  EXPECT_EQ(g.nvlinks[1].replay_errors.state, Reading<uint64_t>::State::kAbsent);
  ASSERT_TRUE(g.compute_processes.has());
  ASSERT_EQ(g.compute_processes->size(), 1u);
  EXPECT_EQ((*g.compute_processes)[0].pid, 4242u);
  EXPECT_EQ((*g.compute_processes)[0].used_memory_bytes, 1073741824u);
  EXPECT_FALSE(g.lost);
  EXPECT_TRUE(g.failures.empty());
}

// The fake and the source are inverses: what ReadNvml reads, WriteScenario writes back unchanged.
TEST(NvmlSource, ReadThenWriteReproducesTheScenario) {
  std::string gpu0 = HealthyGpu(0);
  std::string gpu1 = HealthyGpu(1);
  gpu1.replace(gpu1.find("\"power_w\": 512.345"), 18, "\"power_w\": \"UNKNOWN\"");
  gpu1.replace(gpu1.find("\"pcie_gen\": 5"), 13, "\"pcie_gen\": \"NOT_SUPPORTED\"");
  // The margin is answered (a value, or not supported) rather than omitted: an omitted key is
  // answered NOT_SUPPORTED, which the writer then spells out.
  gpu0.insert(1, R"("temperature_margin_c": 41,)");
  gpu1.insert(1, R"("temperature_margin_c": "NOT_SUPPORTED",)");
  const std::string text = Scenario2(gpu0, gpu1);
  UseScenario(text);
  Result<Scenario> parsed = ParseScenario(text, "test");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  GpuInventory inv = ReadFake();
  inv.device_count = Reading<int>{};
  EXPECT_EQ(WriteScenario(inv), WriteScenario(*parsed));
  // Notes match too: the parser names the same call the source does.
  EXPECT_EQ(inv.gpus[1].power_w.note, parsed->gpus[1].state.power_w.note);
  EXPECT_EQ(inv.gpus[1].pcie_gen.note, parsed->gpus[1].state.pcie_gen.note);
}

TEST(NvmlSource, NotSupportedAndOmittedFieldsAreUnsupportedNotZero) {
  UseScenario(R"({"driver_version": "550.90.07", "gpus": [
      {"name": "Tesla T4", "power_w": "NOT_SUPPORTED", "temperature_c": 40}]})");
  GpuInventory inv = ReadFake();
  ASSERT_EQ(inv.state, GpuSourceState::kOk);
  EXPECT_TRUE(inv.nvml_version.unsupported());
  EXPECT_EQ(inv.nvml_version.note, "nvmlSystemGetNVMLVersion: not supported");
  const GpuState& g = inv.gpus[0];
  EXPECT_TRUE(g.power_w.unsupported());
  EXPECT_EQ(g.power_w.note, "nvmlDeviceGetPowerUsage: not supported");
  EXPECT_TRUE(g.ecc_enabled.unsupported());
  EXPECT_TRUE(g.compute_processes.unsupported());
  EXPECT_TRUE(g.mig_instances.unsupported());
  EXPECT_TRUE(g.retired_pages_sbe.unsupported());
  EXPECT_TRUE(g.nvlinks.empty());
  EXPECT_TRUE(g.uuid.empty());
  EXPECT_EQ(*g.temperature_c, 40);
  EXPECT_TRUE(g.failures.empty());  // not supported is not a failure
}

TEST(NvmlSource, ErrorsBecomeErrorReadingsAndFailures) {
  std::string gpu0 = HealthyGpu(0);
  gpu0.insert(1, R"("errors": {"nvmlDeviceGetPowerUsage": "UNKNOWN",
                               "nvmlDeviceGetName": "NO_PERMISSION",
                               "nvmlDeviceGetCurrentClocksEventReasons": "FUNCTION_NOT_FOUND"},)");
  UseScenario(Scenario2(gpu0, HealthyGpu(1)));
  GpuInventory inv = ReadFake();
  const GpuState& g = inv.gpus[0];
  EXPECT_TRUE(g.power_w.error());
  EXPECT_EQ(g.power_w.note, "nvmlDeviceGetPowerUsage: UNKNOWN");
  EXPECT_TRUE(g.name.empty());
  ASSERT_EQ(g.failures.size(), 2u);
  EXPECT_EQ(g.failures[0].call, "nvmlDeviceGetName");
  EXPECT_EQ(g.failures[0].message, "Insufficient Permissions (NVML_ERROR_NO_PERMISSION = 4)");
  EXPECT_EQ(g.failures[1].call, "nvmlDeviceGetPowerUsage");
  EXPECT_FALSE(g.failures[1].timed_out);
  // Older drivers: the clock event reasons come from the throttle-reasons call.
  EXPECT_EQ(*g.clock_event_reasons, 4u);
  EXPECT_TRUE(inv.gpus[1].failures.empty());
}

TEST(NvmlSource, LostGpuStopsQueryingThatGpu) {
  std::string gpu0 = HealthyGpu(0);
  gpu0.insert(1, R"("lost": true,)");
  UseScenario(Scenario2(gpu0, HealthyGpu(1)));
  GpuInventory inv = ReadFake();
  ASSERT_EQ(inv.state, GpuSourceState::kOk);
  const GpuState& g = inv.gpus[0];
  EXPECT_TRUE(g.lost);
  EXPECT_EQ(g.lost_call, "nvmlDeviceGetName");
  EXPECT_EQ(g.temperature_c.state, Reading<int>::State::kAbsent);  // never asked
  EXPECT_FALSE(inv.gpus[1].lost);
  EXPECT_EQ(*inv.gpus[1].temperature_c, 61);
}

TEST(NvmlSource, LostMidwayKeepsWhatWasRead) {
  std::string gpu0 = HealthyGpu(0);
  gpu0.insert(1, R"("errors": {"nvmlDeviceGetPowerUsage": "GPU_IS_LOST"},)");
  UseScenario(Scenario2(gpu0, HealthyGpu(1)));
  const GpuState g = ReadFake().gpus[0];
  EXPECT_TRUE(g.lost);
  EXPECT_EQ(g.lost_call, "nvmlDeviceGetPowerUsage");
  EXPECT_EQ(*g.temperature_c, 61);
  EXPECT_TRUE(g.power_w.error());
  EXPECT_EQ(g.pcie_gen.state, Reading<int>::State::kAbsent);
}

TEST(NvmlSource, HungCallTimesOutSkipsTheRestAndFinishesFast) {
  std::string gpu0 = HealthyGpu(0);
  gpu0.insert(1, R"("delays_ms": {"nvmlDeviceGetTemperature": 5000},)");
  UseScenario(Scenario2(gpu0, HealthyGpu(1)));
  const auto start = Clock::now();
  GpuInventory inv = ReadFake(milliseconds(200));
  EXPECT_LT(Clock::now() - start, milliseconds(2000));
  EXPECT_EQ(inv.state, GpuSourceState::kOk);
  const GpuState& g = inv.gpus[0];
  EXPECT_EQ(*g.sm_clock_mhz, 1980);  // read before the hang
  ASSERT_TRUE(g.temperature_c.error());
  EXPECT_EQ(g.temperature_c.note, "nvmlDeviceGetTemperature: did not return within 200 ms");
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_EQ(g.failures[0].call, "nvmlDeviceGetTemperature");
  EXPECT_TRUE(g.failures[0].timed_out);
  EXPECT_TRUE(g.power_w.error());
  EXPECT_EQ(g.power_w.note,
            "nvmlDeviceGetPowerUsage: skipped: nvmlDeviceGetTemperature hung earlier");
  // The second GPU is listed, every field saying why it is missing.
  ASSERT_EQ(inv.gpus.size(), 2u);
  const GpuState& g1 = inv.gpus[1];
  EXPECT_EQ(g1.temperature_c.note,
            "nvmlDeviceGetTemperature: skipped: nvmlDeviceGetTemperature hung earlier");
  EXPECT_TRUE(g1.name.empty());
  ASSERT_EQ(g1.failures.size(), 1u);
  EXPECT_EQ(g1.failures[0].call, "nvmlDeviceGetHandleByIndex_v2");
  EXPECT_TRUE(g1.failures[0].timed_out);
}

TEST(NvmlSource, HungEnumerationIsHung) {
  UseScenario(
      Scenario2(HealthyGpu(0), R"({"delays_ms": {"nvmlDeviceGetHandleByIndex_v2": 5000}})"));
  GpuInventory inv = ReadFake(milliseconds(100));
  EXPECT_EQ(inv.state, GpuSourceState::kHung);
  EXPECT_NE(inv.detail.find("GPUs from index 1 on were not read"), std::string::npos) << inv.detail;
  ASSERT_EQ(inv.gpus.size(), 2u);
  EXPECT_EQ(*inv.gpus[0].temperature_c, 61);
  EXPECT_TRUE(inv.gpus[1].temperature_c.error());
}

TEST(NvmlSource, HungInitIsHung) {
  UseScenario(R"({"delays_ms": {"nvmlInit_v2": 5000}, "gpus": []})");
  const auto start = Clock::now();
  GpuInventory inv = ReadFake(milliseconds(100));
  EXPECT_LT(Clock::now() - start, milliseconds(2000));
  EXPECT_EQ(inv.state, GpuSourceState::kHung);
  EXPECT_EQ(inv.detail, "nvmlInit_v2: did not return within 100 ms");
  ASSERT_EQ(inv.failures.size(), 1u);
  EXPECT_TRUE(inv.failures[0].timed_out);
}

TEST(NvmlSource, ProcessExitsPromptlyWhileACallHangsInsideNvml) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string gpu0 = HealthyGpu(0);
  gpu0.insert(1, R"("delays_ms": {"nvmlDeviceGetName": 60000},)");
  UseScenario(Scenario2(gpu0, HealthyGpu(1)));
  const auto start = Clock::now();
  EXPECT_EXIT(
      {
        GpuInventory inv = ReadFake(milliseconds(50));
        std::exit(inv.gpus.at(0).failures.at(0).timed_out ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
}

TEST(NvmlSource, MigInstancesAreCounted) {
  std::string gpu0 = HealthyGpu(0);
  gpu0.replace(gpu0.find("\"mig_enabled\": false"), 20, "\"mig_enabled\": true");
  gpu0.replace(gpu0.find("\"mig_instances\": 0"), 18, "\"mig_instances\": 3");
  UseScenario(Scenario2(gpu0, HealthyGpu(1)));
  GpuInventory inv = ReadFake();
  EXPECT_TRUE(*inv.gpus[0].mig_enabled);
  EXPECT_EQ(*inv.gpus[0].mig_instances, 3);
  EXPECT_TRUE(inv.gpus[0].failures.empty());
}

TEST(NvmlSource, DeviceCountFailureIsInitFailed) {
  UseScenario(R"({"errors": {"nvmlDeviceGetCount_v2": "UNKNOWN"}, "gpus": [{}]})");
  GpuInventory inv = ReadFake();
  EXPECT_EQ(inv.state, GpuSourceState::kInitFailed);
  EXPECT_TRUE(inv.device_count.error());
  EXPECT_EQ(inv.failures.size(), 1u);
}

TEST(NvmlSource, HandleFailureKeepsTheGpuWithItsFailure) {
  UseScenario(R"({"gpus": [{"errors": {"nvmlDeviceGetHandleByIndex_v2": "UNKNOWN"}},
                           {"name": "B"}]})");
  GpuInventory inv = ReadFake();
  ASSERT_EQ(inv.gpus.size(), 2u);
  ASSERT_EQ(inv.gpus[0].failures.size(), 1u);
  EXPECT_EQ(inv.gpus[0].failures[0].call, "nvmlDeviceGetHandleByIndex_v2");
  EXPECT_EQ(inv.gpus[0].handle_fault, GpuFault::kUnknown);
  EXPECT_EQ(inv.gpus[1].name, "B");
  EXPECT_EQ(inv.gpus[1].handle_fault, GpuFault::kNone);
}

// Issue 26: each code of a handle that cannot be opened keeps its meaning; RESET_REQUIRED on any
// call marks the GPU, it is not a query that failed.
TEST(NvmlSource, HandleCodesKeepTheirMeaning) {
  UseScenario(R"({"gpus": [{"errors": {"nvmlDeviceGetHandleByIndex_v2": "GPU_IS_LOST"}},
                           {"errors": {"nvmlDeviceGetHandleByIndex_v2": "RESET_REQUIRED"}},
                           {"errors": {"nvmlDeviceGetHandleByIndex_v2": "INSUFFICIENT_POWER"}},
                           {"name": "D", "errors": {"nvmlDeviceGetMemoryInfo": "RESET_REQUIRED"}}]})");
  GpuInventory inv = ReadFake();
  ASSERT_EQ(inv.gpus.size(), 4u);
  EXPECT_EQ(inv.gpus[0].handle_fault, GpuFault::kLost);
  EXPECT_TRUE(inv.gpus[0].lost);
  EXPECT_EQ(inv.gpus[1].handle_fault, GpuFault::kResetRequired);
  EXPECT_TRUE(inv.gpus[1].reset_required);
  EXPECT_TRUE(inv.gpus[1].failures.empty());
  EXPECT_EQ(inv.gpus[2].handle_fault, GpuFault::kInsufficientPower);
  EXPECT_EQ(inv.gpus[3].handle_fault, GpuFault::kNone);
  EXPECT_TRUE(inv.gpus[3].reset_required);
  EXPECT_EQ(inv.gpus[3].reset_required_call, "nvmlDeviceGetMemoryInfo");
  EXPECT_EQ(inv.gpus[3].name, "D");
}

TEST(NvmlSource, NormalizesPciBusIds) {
  EXPECT_EQ(NormalizePciBusId("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(NormalizePciBusId("0000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(NormalizePciBusId("00010000:C1:1F.7"), "10000:c1:1f.7");
  EXPECT_EQ(NormalizePciBusId("3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(NormalizePciBusId(" GARBAGE "), "garbage");
  EXPECT_EQ(NormalizePciBusId("0000:3B:00.9"), "0000:3b:00.9");  // fn > 7: left as text
}

// ---- issue 17: overall budget, unanswering GPUs, NVLink5 field values, margin temperature ----

TEST(NvmlBoundedCall, DeadlineCutsTheCallInFlightAndSkipsTheRest) {
  BoundedExecutor exec(milliseconds(2000));
  exec.SetDeadline(Clock::now() + milliseconds(150), "0.15 s (test)");
  Result<int> slow = exec.Call("nvmlSlow", [] {
    std::this_thread::sleep_for(milliseconds(600));
    return 0;
  });
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.status().message(),
            "nvmlSlow had not returned when the time budget of 0.15 s (test) ran out");
  EXPECT_TRUE(exec.out_of_time());
  Result<int> next = exec.Call("nvmlNext", [] { return 0; });
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.status().message(), "skipped: the time budget of 0.15 s (test) ran out");
}

TEST(NvmlBoundedCall, NoDeadlineMeansOnlyTheCallTimeout) {
  BoundedExecutor exec(milliseconds(500));
  Result<int> r = exec.Call("nvmlQuick", [] { return 3; });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 3);
  EXPECT_FALSE(exec.out_of_time());
}

TEST(NvmlSource, BudgetEndsTheReadAndSaysSo) {
  std::string gpu0 = HealthyGpu(0);
  gpu0.insert(1, R"("delays_ms": {"nvmlDeviceGetTemperature": 400,
                                  "nvmlDeviceGetTemperatureThreshold": 400},)");
  UseScenario(Scenario2(gpu0, HealthyGpu(1)));
  NvmlOptions options;
  options.library_path = GPUVET_FAKE_NVML_LIB;
  options.call_timeout = milliseconds(2000);
  options.budget = milliseconds(600);
  const auto start = Clock::now();
  GpuInventory inv = ReadNvml(options);
  EXPECT_LT(Clock::now() - start, milliseconds(1500));
  EXPECT_EQ(inv.budget_exhausted, "0.6 s (--timeout)");
  ASSERT_EQ(inv.gpus.size(), 2u);
  EXPECT_EQ(*inv.gpus[0].temperature_c, 61);  // answered inside the budget
  ASSERT_FALSE(inv.gpus[0].failures.empty());
  EXPECT_EQ(inv.gpus[0].failures[0].message,
            "nvmlDeviceGetTemperatureThreshold had not returned when the time budget of 0.6 s "
            "(--timeout) ran out");
  EXPECT_TRUE(inv.gpus[0].abandoned);
  EXPECT_TRUE(inv.gpus[1].abandoned);
  EXPECT_EQ(inv.gpus[1].temperature_c.note,
            "nvmlDeviceGetTemperature: skipped: the time budget of 0.6 s (--timeout) ran out");
}

TEST(NvmlSource, DefaultBudgetIsPerGpuWithAFloor) {
  UseScenario(Scenario2(HealthyGpu(0), HealthyGpu(1)));
  NvmlOptions options;
  options.library_path = GPUVET_FAKE_NVML_LIB;
  options.budget_per_gpu = milliseconds(5000);
  GpuInventory inv = ReadNvml(options);  // healthy: well inside max(10 s, 2 × 5 s)
  EXPECT_TRUE(inv.budget_exhausted.empty());
  EXPECT_FALSE(inv.gpus[0].abandoned);
  EXPECT_GT(inv.gpus[0].answered_calls, 20);
}

TEST(NvmlSource, GpuAnsweringOnlyUnknownHasNoAnsweredCalls) {
  std::string bad = R"({"errors": {"nvmlDeviceGetName": "UNKNOWN", "nvmlDeviceGetTemperature":
      "UNKNOWN", "nvmlDeviceGetPowerUsage": "UNKNOWN"}})";
  UseScenario(Scenario2(HealthyGpu(0), bad));
  GpuInventory inv = ReadFake();
  ASSERT_EQ(inv.gpus.size(), 2u);
  EXPECT_GT(inv.gpus[0].answered_calls, 20);
  // Every other field of the second GPU is omitted (NOT_SUPPORTED): nothing answered.
  EXPECT_EQ(inv.gpus[1].answered_calls, 0);
  EXPECT_EQ(inv.gpus[1].failures.size(), 3u);
}

// A Blackwell-like GPU: the per-link error counter call is NOT_SUPPORTED (its keys omitted), the
// counters answer through nvmlDeviceGetFieldValues, and the GPU reports 20 links (more than
// NVML_NVLINK_MAX_LINKS), all of which are read.
TEST(NvmlSource, NvLink5CountersComeFromFieldValuesBeyondEighteenLinks) {
  std::string links;
  for (int l = 0; l < 20; ++l) {
    links += std::string(l ? "," : "") + R"({"link": )" + std::to_string(l) +
             R"(, "active": true, "recovery_failed_events": )" + (l == 19 ? "2" : "0") +
             R"(, "symbol_errors": 1234, "effective_errors": 7, "tx_bytes": 5000000000,
                "rx_bytes": "UNKNOWN"})";
  }
  std::string gpu0 = HealthyGpu(0);
  const size_t at = gpu0.find(R"("nvlinks")");
  const size_t end = gpu0.find(R"("compute_processes")");
  gpu0.replace(at, end - at, R"("nvlinks": [)" + links + "], ");
  UseScenario(Scenario2(gpu0, HealthyGpu(1)));
  GpuInventory inv = ReadFake();
  const GpuState& g = inv.gpus[0];
  ASSERT_EQ(g.nvlinks.size(), 20u);
  const NvLinkState& last = g.nvlinks[19];
  EXPECT_EQ(last.link, 19);
  EXPECT_TRUE(last.from_field_values);
  EXPECT_EQ(*last.recovery_failed_events, 2u);
  EXPECT_EQ(*last.symbol_errors, 1234u);
  EXPECT_EQ(*last.effective_errors, 7u);
  EXPECT_EQ(*last.tx_bytes, 5000000000u);
  ASSERT_TRUE(last.rx_bytes.error());  // a per-field error, not the whole call
  EXPECT_EQ(last.rx_bytes.note,
            "nvmlDeviceGetFieldValues(NVML_FI_DEV_NVLINK_COUNT_RCV_BYTES): UNKNOWN");
  EXPECT_TRUE(last.replay_errors.unsupported()) << last.replay_errors.note;  // not modelled
  EXPECT_TRUE(last.crc_data_errors.unsupported());
  EXPECT_EQ(last.crc_data_errors.note, "nvmlDeviceGetNvLinkErrorCounter: not supported");
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_EQ(g.failures[0].call, "nvmlDeviceGetFieldValues");
  // The older GPU keeps the per-link call.
  EXPECT_FALSE(inv.gpus[1].nvlinks[0].from_field_values);
  EXPECT_EQ(*inv.gpus[1].nvlinks[0].replay_errors, 3u);
}

TEST(NvmlSource, FieldValuesMissingFromTheDriverFallBackToEighteenLinks) {
  std::string gpu0 = HealthyGpu(0);
  gpu0.insert(1, R"("errors": {"nvmlDeviceGetFieldValues": "FUNCTION_NOT_FOUND"},)");
  UseScenario(Scenario2(gpu0, HealthyGpu(1)));
  GpuInventory inv = ReadFake();
  ASSERT_EQ(inv.gpus[0].nvlinks.size(), 2u);  // walked until INVALID_ARGUMENT
  EXPECT_EQ(*inv.gpus[0].nvlinks[0].replay_errors, 3u);
  EXPECT_TRUE(inv.gpus[0].failures.empty());
}

TEST(NvmlSource, MarginTemperatureIsReadWhereTheDriverHasIt) {
  std::string gpu0 = HealthyGpu(0);
  gpu0.insert(1, R"("temperature_margin_c": 3,)");
  std::string gpu1 = HealthyGpu(1);
  gpu1.insert(1, R"("errors": {"nvmlDeviceGetMarginTemperature": "FUNCTION_NOT_FOUND"},)");
  UseScenario(Scenario2(gpu0, gpu1));
  GpuInventory inv = ReadFake();
  ASSERT_TRUE(inv.gpus[0].temperature_margin_c.has());
  EXPECT_EQ(*inv.gpus[0].temperature_margin_c, 3);
  ASSERT_TRUE(inv.gpus[1].temperature_margin_c.unsupported());  // older driver: a skip
  EXPECT_EQ(inv.gpus[1].temperature_margin_c.note,
            "nvmlDeviceGetMarginTemperature: not supported (absent from this driver's NVML)");
  EXPECT_TRUE(inv.gpus[1].failures.empty());
}

// nvmlFieldValue_t answers are binary: whatever bytes the driver writes, the conversion never
// crashes and never returns a value its type cannot hold (fixed seed, so failures reproduce).
TEST(NvmlFieldValues, AnyBytesConvertSafely) {
  std::mt19937 rng(17);
  for (int i = 0; i < 20000; ++i) {
    nvmlFieldValue_t f;
    unsigned char* bytes = reinterpret_cast<unsigned char*>(&f);
    for (size_t b = 0; b < sizeof(f); ++b) bytes[b] = static_cast<unsigned char>(rng());
    if (i % 2 == 0) f.valueType = static_cast<int>(rng() % 9) - 1;  // mostly known types
    std::optional<uint64_t> v = nvml_internal::FieldValueAsCount(f);
    if (f.valueType < NVML_VALUE_TYPE_DOUBLE || f.valueType > NVML_VALUE_TYPE_UNSIGNED_SHORT) {
      EXPECT_FALSE(v.has_value());
    }
    if (v && f.valueType == NVML_VALUE_TYPE_UNSIGNED_INT) {
      EXPECT_EQ(*v, f.value.uiVal);
    }
    if (v && f.valueType == NVML_VALUE_TYPE_SIGNED_INT) {
      EXPECT_GE(f.value.siVal, 0);
    }
  }
  nvmlFieldValue_t f{};
  f.valueType = NVML_VALUE_TYPE_DOUBLE;
  f.value.dVal = 12.6;
  EXPECT_EQ(nvml_internal::FieldValueAsCount(f), 13u);
  f.value.dVal = -1;
  EXPECT_FALSE(nvml_internal::FieldValueAsCount(f));
  f.value.dVal = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(nvml_internal::FieldValueAsCount(f));
  f.valueType = NVML_VALUE_TYPE_SIGNED_LONG_LONG;
  f.value.sllVal = -5;
  EXPECT_FALSE(nvml_internal::FieldValueAsCount(f));
}

}  // namespace
// `check` reads the process list by the size query, then with room for 16 more: 20 processes
// starting in between overflow that, so the read answers INSUFFICIENT_SIZE and the retry reads
// all 21 (the fake adds late_processes after the size query, as a real list grows).
TEST(NvmlSource, ProcessListGrowingPastTheSlackIsReadOnTheRetry) {
  std::string late;
  for (int i = 0; i < 20; ++i) {
    late += std::string(i ? ", " : "") + R"({"pid": )" + std::to_string(5000 + i) +
            R"(, "used_memory_bytes": 1024})";
  }
  std::string gpu0 = HealthyGpu(0);
  gpu0.insert(gpu0.rfind('}'), R"(, "late_processes": [)" + late + "]");
  UseScenario(Scenario2(gpu0, HealthyGpu(1)));
  GpuInventory inv = ReadFake();
  ASSERT_TRUE(inv.gpus[0].compute_processes.has()) << inv.gpus[0].compute_processes.note;
  const std::vector<GpuProcess>& p = *inv.gpus[0].compute_processes;
  ASSERT_EQ(p.size(), 21u);
  EXPECT_EQ(p[0].pid, 4242u);
  EXPECT_EQ(p[20].pid, 5019u);
  EXPECT_EQ(p[20].used_memory_bytes, 1024u);
}

}  // namespace gpuvet
