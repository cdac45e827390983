// Scenario format: parse, write, round trip, and precise errors for bad input.
#include "sources/nvml/scenario_json.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "sources/nvml/nvml_api.h"

namespace gpuvet {
namespace {

// An inventory with every field set, covering values, not-supported and error readings.
GpuInventory FullInventory() {
  GpuInventory inv;
  inv.state = GpuSourceState::kOk;
  inv.driver_version = Reading<std::string>::Of("550.90.07");
  inv.nvml_version = Reading<std::string>::Of("12.550.90.07");
  inv.cuda_driver_version = Reading<int>::Of(12040);
  inv.device_count = Reading<int>::Of(1);
  GpuState g;
  g.index = 0;
  g.name = "NVIDIA H100 80GB HBM3";
  g.uuid = "GPU-11111111-2222-3333-4444-555555555555";
  g.serial = "1650123456789";
  g.pci_bus_id = "0000:3b:00.0";
  g.vbios_version = "96.00.74.00.01";
  g.minor_number = Reading<int>::Of(3);
  g.persistence_mode = Reading<bool>::Of(true);
  g.performance_state = Reading<int>::Of(0);
  g.gpu_util_pct = Reading<int>::Of(97);
  g.memory_util_pct = Reading<int>::Of(41);
  g.memory_total_bytes = Reading<uint64_t>::Of(85899345920ULL);
  g.memory_used_bytes = Reading<uint64_t>::Of(1ULL << 33);
  g.sm_clock_mhz = Reading<int>::Of(1980);
  g.sm_clock_max_mhz = Reading<int>::Of(1980);
  g.mem_clock_mhz = Reading<int>::Of(2619);
  g.mem_clock_max_mhz = Reading<int>::Of(2619);
  g.clock_event_reasons = Reading<uint64_t>::Of(0x4);
  g.temperature_c = Reading<int>::Of(61);
  g.slowdown_temperature_c = Reading<int>::Of(87);
  g.shutdown_temperature_c = Reading<int>::Of(92);
  g.power_w = Reading<double>::Of(512.345);
  g.power_limit_w = Reading<double>::Of(700.0);
  g.default_power_limit_w = Reading<double>::Of(700.0);
  g.pcie_gen = Reading<int>::Of(5);
  g.pcie_gen_max = Reading<int>::Of(5);
  g.pcie_width = Reading<int>::Of(16);
  g.pcie_width_max = Reading<int>::Of(16);
  g.pcie_replay_counter = Reading<uint64_t>::Error("nvmlDeviceGetPcieReplayCounter: UNKNOWN");
  g.ecc_enabled = Reading<bool>::Of(true);
  g.ecc_pending_enabled = Reading<bool>::Of(true);
  g.ecc_corrected_volatile = Reading<uint64_t>::Of(0);
  g.ecc_uncorrected_volatile = Reading<uint64_t>::Of(0);
  g.ecc_corrected_aggregate = Reading<uint64_t>::Of(12);
  g.ecc_uncorrected_aggregate = Reading<uint64_t>::Of(0);
  g.retired_pages_sbe = Reading<int>::Unsupported("nvmlDeviceGetRetiredPages: not supported");
  g.retired_pages_dbe = Reading<int>::Unsupported("nvmlDeviceGetRetiredPages: not supported");
  g.retired_pages_pending =
      Reading<bool>::Unsupported("nvmlDeviceGetRetiredPagesPendingStatus: not supported");
  g.remapped_rows_correctable = Reading<int>::Of(1);
  g.remapped_rows_uncorrectable = Reading<int>::Of(0);
  g.remap_pending = Reading<bool>::Of(false);
  g.remap_failure = Reading<bool>::Of(false);
  g.mig_enabled = Reading<bool>::Of(true);
  g.mig_pending_enabled = Reading<bool>::Of(true);
  g.mig_instances = Reading<int>::Of(2);
  NvLinkState l0;
  l0.link = 0;
  l0.active = true;
  l0.replay_errors = Reading<uint64_t>::Of(3);
  l0.recovery_errors = Reading<uint64_t>::Of(0);
  l0.crc_flit_errors = Reading<uint64_t>::Of(0);
  l0.crc_data_errors = Reading<uint64_t>::Unsupported("nvmlDeviceGetNvLinkErrorCounter: x");
  NvLinkState l1;
  l1.link = 1;
  l1.active = false;
  g.nvlinks = {l0, l1};
  g.compute_processes = Reading<std::vector<GpuProcess>>::Of({{4242, 1ULL << 30}, {77, 0}});
  inv.gpus.push_back(g);
  return inv;
}

TEST(ScenarioJson, RoundTripKeepsEveryField) {
  const GpuInventory inv = FullInventory();
  const std::string text = WriteScenario(inv);
  Result<Scenario> parsed = ParseScenario(text, "roundtrip.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  // Every written field is read back with the same state and value.
  EXPECT_EQ(WriteScenario(*parsed), text);
  ASSERT_EQ(parsed->gpus.size(), 1u);
  const GpuState& g = parsed->gpus[0].state;
  const GpuState& want = inv.gpus[0];
  EXPECT_EQ(g.name, want.name);
  EXPECT_EQ(g.pci_bus_id, want.pci_bus_id);
  EXPECT_EQ(*g.power_w, 512.345);
  EXPECT_EQ(*g.memory_total_bytes, 85899345920ULL);
  EXPECT_EQ(*g.clock_event_reasons, 0x4u);
  EXPECT_TRUE(g.retired_pages_sbe.unsupported());
  EXPECT_EQ(g.retired_pages_sbe.note, want.retired_pages_sbe.note);
  EXPECT_TRUE(g.pcie_replay_counter.error());
  EXPECT_EQ(g.pcie_replay_counter.note, want.pcie_replay_counter.note);
  ASSERT_EQ(g.nvlinks.size(), 2u);
  EXPECT_EQ(*g.nvlinks[0].replay_errors, 3u);
  EXPECT_TRUE(g.nvlinks[0].crc_data_errors.unsupported());
  EXPECT_FALSE(g.nvlinks[1].active);
  ASSERT_TRUE(g.compute_processes.has());
  ASSERT_EQ(g.compute_processes->size(), 2u);
  EXPECT_EQ((*g.compute_processes)[0].pid, 4242u);
  EXPECT_EQ(*parsed->cuda_driver_version, 12040);
  EXPECT_EQ(parsed->init, NVML_SUCCESS);
}

TEST(ScenarioJson, WriterUsesSortedKeysAndNames) {
  const std::string text = WriteScenario(FullInventory());
  EXPECT_LT(text.find("\"clock_event_reasons\""), text.find("\"power_w\""));
  EXPECT_NE(text.find("\"pcie_replay_counter\": \"UNKNOWN\""), std::string::npos);
  EXPECT_NE(text.find("\"retired_pages_sbe\": \"NOT_SUPPORTED\""), std::string::npos);
  EXPECT_NE(text.find("\"scenario_version\": 1"), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
}

TEST(ScenarioJson, WriterRecordsFailuresHangsAndInitState) {
  GpuInventory inv;
  inv.state = GpuSourceState::kInitFailed;
  inv.detail = "nvmlInit_v2: Unknown Error (NVML_ERROR_UNKNOWN = 999)";
  EXPECT_EQ(ParseScenario(WriteScenario(inv), "x")->init, NVML_ERROR_UNKNOWN);

  inv = GpuInventory{};
  inv.state = GpuSourceState::kOk;
  GpuState g;
  g.failures.push_back({"nvmlDeviceGetName", "Unknown Error (NVML_ERROR_UNKNOWN = 999)", false});
  g.failures.push_back({"nvmlDeviceGetPowerUsage", "IRQ (NVML_ERROR_IRQ_ISSUE = 11)", false});
  g.failures.push_back({"nvmlDeviceGetTemperature", "did not return within 2000 ms", true});
  g.lost = true;
  inv.gpus.push_back(g);
  Result<Scenario> s = ParseScenario(WriteScenario(inv), "x");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const ScenarioGpu& sg = s->gpus[0];
  EXPECT_EQ(sg.errors.at("nvmlDeviceGetName"), NVML_ERROR_UNKNOWN);
  EXPECT_EQ(sg.errors.count("nvmlDeviceGetPowerUsage"), 0u);  // has a field of its own
  EXPECT_GT(sg.delays_ms.at("nvmlDeviceGetTemperature"), 2000);
  EXPECT_TRUE(sg.state.lost);
}

TEST(ScenarioJson, ParsesErrorsDelaysAndIdentityErrors) {
  Result<Scenario> s = ParseScenario(R"({
    "init": "SUCCESS",
    "errors": {"nvmlDeviceGetCount_v2": "NVML_ERROR_UNKNOWN"},
    "delays_ms": {"nvmlSystemGetDriverVersion": 10},
    "_comment": "ignored",
    "gpus": [{"name": "GPU_IS_LOST", "power_w": "NO_PERMISSION", "temperature_c": 40,
              "errors": {"nvmlDeviceGetPowerUsage": "UNKNOWN"},
              "delays_ms": {"nvmlDeviceGetTemperature": 5000}, "compute_processes": "NOT_SUPPORTED",
              "nvlinks": "NOT_SUPPORTED"}]
  })",
                                     "s.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->errors.at("nvmlDeviceGetCount_v2"), NVML_ERROR_UNKNOWN);
  EXPECT_EQ(s->delays_ms.at("nvmlSystemGetDriverVersion"), 10);
  const ScenarioGpu& g = s->gpus[0];
  EXPECT_TRUE(g.state.name.empty());
  EXPECT_EQ(g.errors.at("nvmlDeviceGetName"), NVML_ERROR_GPU_IS_LOST);
  EXPECT_EQ(ScenarioAnswerCode(g.state.power_w), NVML_ERROR_NO_PERMISSION);
  EXPECT_EQ(g.state.power_w.note, "nvmlDeviceGetPowerUsage: NO_PERMISSION");
  EXPECT_EQ(*g.state.temperature_c, 40);
  EXPECT_EQ(g.delays_ms.at("nvmlDeviceGetTemperature"), 5000);
  EXPECT_TRUE(g.state.compute_processes.unsupported());
  EXPECT_TRUE(g.state.nvlinks.empty());
  // Omitted fields are absent (the fake answers NOT_SUPPORTED for them).
  EXPECT_EQ(g.state.sm_clock_mhz.state, Reading<int>::State::kAbsent);
  EXPECT_EQ(ScenarioAnswerCode(g.state.sm_clock_mhz), NVML_ERROR_NOT_SUPPORTED);
  EXPECT_FALSE(g.state.lost);
}

// Each bad input gives InvalidInput naming the file and where.
struct BadCase {
  const char* json;
  const char* expected;  // substring of the message
};

TEST(ScenarioJson, RejectsBadInputPrecisely) {
  const BadCase cases[] = {
      {"{\"gpus\": [", "bad.json: not valid JSON (byte"},
      {"", "bad.json: not valid JSON"},
      {"\x01\xff garbage", "bad.json: not valid JSON"},
      {"[]", "bad.json: /: expected a JSON object"},
      {R"({"gpus": [{}, {"power_w": true}]})", "bad.json: /gpus/1/power_w: expected a number"},
      {R"({"gpus": [{"power_w": "WATTS"}]})", "/gpus/0/power_w: expected a number or an NVML"},
      {R"({"gpus": [{"temprature_c": 4}]})", "/gpus/0/temprature_c: unknown key"},
      {R"({"gpus": [{"memory_total_bytes": -1}]})", "/gpus/0/memory_total_bytes: expected a non"},
      {R"({"gpus": [{"minor_number": 4294967296}]})", "/gpus/0/minor_number: expected a 32-bit"},
      {R"({"gpus": [{"power_w": []}]})", "/gpus/0/power_w: empty per-sample array"},
      {R"({"gpus": [{"power_w": [1, [2]]}]})", "/gpus/0/power_w/1: nested arrays"},
      {R"({"gpus": [{"power_w": [1, true]}]})", "/gpus/0/power_w/1: expected a number"},
      {R"({"gpus": [{"lost": [false, 1]}]})", "/gpus/0/lost: expected true/false"},
      {R"({"gpus": [{"compute_processes": [[], [{"pid": "x"}]]}]})",
       "/gpus/0/compute_processes/1/0/pid"},
      // Above 100 parses (real drivers answer such values); negative or fractional does not.
      {R"({"gpus": [{"process_utilization": [{"pid": 1, "sm_util_pct": -1}]}]})",
       "/gpus/0/process_utilization/0/sm_util_pct: expected a whole number"},
      {R"({"gpus": [{"process_utilization": [{"pid": 1, "mem_util_pct": 101}]}]})",
       "/gpus/0/process_utilization/0/mem_util_pct: expected a percentage"},
      {R"({"gpus": [{"late_processes": [{"used_memory_bytes": 1}]}]})",
       "/gpus/0/late_processes/0: expected an object with \"pid\""},
      {R"({"gpus": [{"late_processes": [{"pid": 1, "color": 2}]}]})",
       "/gpus/0/late_processes/0/color: unknown key"},
      {R"({"driver_version": ["1", "2"]})", "/driver_version: per-sample arrays are allowed only"},
      {R"({"series_interval_ms": 0})", "/series_interval_ms: expected milliseconds"},
      {R"({"gpus": [{"index": 3}]})", "/gpus/0/index: expected 0"},
      {R"({"gpus": [{"errors": {"nvmlDeviceGetName": "BROKEN"}}]})",
       "/gpus/0/errors/nvmlDeviceGetName: unknown NVML error name \"BROKEN\""},
      {R"({"gpus": [{"errors": {"nvmlDeviceGetName": "SUCCESS"}}]})", "SUCCESS is not an error"},
      {R"({"gpus": [{"delays_ms": {"nvmlDeviceGetName": -5}}]})",
       "/gpus/0/delays_ms/nvmlDeviceGetName: expected milliseconds"},
      {R"({"gpus": [{"nvlinks": [{"active": true}]}]})", "/gpus/0/nvlinks/0: missing \"link\""},
      {R"({"gpus": [{"nvlinks": [{"link": 99}]}]})", "/gpus/0/nvlinks/0/link: expected a link"},
      {R"({"gpus": [{"nvlinks": [{"link": 1}, {"link": 1}]}]})", "/gpus/0/nvlinks/1/link: dup"},
      {R"({"gpus": [{"compute_processes": [{"pid": -1}]}]})", "/compute_processes/0/pid"},
      {R"({"init": "MAYBE"})", "/init: expected an NVML return code name"},
      {R"({"scenario_version": 7})", "/scenario_version: unsupported version"},
      {R"({"gpus": {"0": {}}})", "/gpus: expected an array"},
  };
  for (const BadCase& c : cases) {
    Result<Scenario> s = ParseScenario(c.json, "bad.json");
    ASSERT_FALSE(s.ok()) << c.json;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidInput) << c.json;
    EXPECT_NE(s.status().message().find(c.expected), std::string::npos)
        << c.json << "\n  got: " << s.status().message();
  }
}

// Per-sample arrays become steps: element k of every array, the last one repeating, and the
// single value of every other field; step 0 is also the base state.
TEST(ScenarioJson, PerSampleArraysBecomeSteps) {
  Result<Scenario> s = ParseScenario(R"({"series_interval_ms": 250, "gpus": [
    {"name": "A", "power_w": [100, 200.5, "UNKNOWN"], "temperature_c": 40,
     "energy_mj": [5, 6], "lost": [false, false, false, true],
     "compute_processes": [[{"pid": 1, "used_memory_bytes": 10}], "NOT_SUPPORTED"],
     "process_utilization": [{"pid": 1, "sm_util_pct": 50}]},
    {"name": "B", "power_w": 7}]})",
                                     "series.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->series_interval_ms, 250);
  const ScenarioGpu& a = s->gpus[0];
  ASSERT_EQ(a.steps.size(), 4u);
  EXPECT_EQ(*a.state.power_w, 100.0);
  EXPECT_EQ(*a.steps[1].state.power_w, 200.5);
  EXPECT_TRUE(a.steps[2].state.power_w.error());
  EXPECT_TRUE(a.steps[3].state.power_w.error());  // the last element repeats
  EXPECT_EQ(*a.steps[3].state.temperature_c, 40);
  EXPECT_EQ(*a.steps[0].sampling.energy_mj, 5u);
  EXPECT_EQ(*a.steps[3].sampling.energy_mj, 6u);
  EXPECT_FALSE(a.steps[2].state.lost);
  EXPECT_TRUE(a.steps[3].state.lost);
  EXPECT_EQ(a.steps[0].state.compute_processes->size(), 1u);
  EXPECT_TRUE(a.steps[1].state.compute_processes.unsupported());
  EXPECT_EQ(a.steps[3].sampling.process_utilization->at(0).sm_util_pct, 50);
  EXPECT_TRUE(s->gpus[1].steps.empty());
  // The writer writes step 0 and the sampling keys, and reads back.
  Result<Scenario> back = ParseScenario(WriteScenario(*s), "back.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back->gpus[0].state.power_w, 100.0);
  EXPECT_EQ(*back->gpus[0].sampling.energy_mj, 5u);
  EXPECT_EQ(back->series_interval_ms, 250);
}

TEST(ScenarioJson, DeepNestingDoesNotCrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_FALSE(ParseScenario(deep, "deep.json").ok());
  const std::string unterminated(100000, '[');
  EXPECT_FALSE(ParseScenario(unterminated, "deep.json").ok());
}

TEST(ScenarioJson, WriterSurvivesInvalidUtf8) {
  GpuInventory inv;
  GpuState g;
  g.name = "bad\xff\xfename";
  inv.gpus.push_back(g);
  const std::string text = WriteScenario(inv);
  EXPECT_TRUE(ParseScenario(text, "utf8.json").ok());
}

// The NVLink5 counters and the margin temperature (issue 17) round-trip, and a scenario holding
// them, cut at every byte or mutated at random (fixed seed), is parsed or refused, never a crash.
constexpr char kNvLink5Scenario[] = R"({"gpus": [{"name": "NVIDIA B200",
  "temperature_margin_c": 41, "nvlinks": [{"link": 0, "active": true,
  "recovery_failed_events": 1, "malformed_packet_errors": 0, "buffer_overrun_errors": 0,
  "recovery_successful_events": 2, "effective_errors": 5, "local_link_integrity_errors": 0,
  "rx_errors": "UNKNOWN", "symbol_errors": 900, "tx_bytes": 123, "rx_bytes": 456},
  {"link": 40, "active": false}]}]})";

TEST(ScenarioJson, NvLink5CountersAndMarginRoundTrip) {
  Result<Scenario> s = ParseScenario(kNvLink5Scenario, "b200.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const GpuState& g = s->gpus[0].state;
  ASSERT_TRUE(g.temperature_margin_c.has());
  EXPECT_EQ(*g.temperature_margin_c, 41);
  ASSERT_EQ(g.nvlinks.size(), 2u);
  EXPECT_EQ(g.nvlinks[1].link, 40);  // beyond nvml.h's 18: a newer GPU may have more
  EXPECT_EQ(*g.nvlinks[0].recovery_failed_events, 1u);
  EXPECT_TRUE(g.nvlinks[0].rx_errors.error());
  Result<Scenario> again = ParseScenario(WriteScenario(*s), "again.json");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(WriteScenario(*again), WriteScenario(*s));
  EXPECT_FALSE(ParseScenario(R"({"gpus": [{"temperature_margin_c": true}]})", "x").ok());
  EXPECT_FALSE(ParseScenario(R"({"gpus": [{"nvlinks": [{"link": 64}]}]})", "x").ok());
}

TEST(ScenarioJson, NvLink5ScenarioCutOrMutatedNeverCrashes) {
  const std::string text = kNvLink5Scenario;
  for (size_t cut = 0; cut < text.size(); ++cut) {
    (void)ParseScenario(text.substr(0, cut), "cut.json");
  }
  std::mt19937 rng(17);
  const std::string alphabet = "{}[]\",:0123456789-.eEtruefalsnNOT_SUPPORTED ";
  for (int i = 0; i < 3000; ++i) {
    std::string m = text;
    for (int k = 0; k < 3; ++k) m[rng() % m.size()] = alphabet[rng() % alphabet.size()];
    Result<Scenario> r = ParseScenario(m, "mutated.json");
    if (r.ok()) (void)WriteScenario(*r);
  }
}

TEST(ScenarioJson, CodeFromNote) {
  EXPECT_EQ(NvmlCodeFromNote("nvmlDeviceGetPowerUsage: GPU_IS_LOST"), NVML_ERROR_GPU_IS_LOST);
  EXPECT_EQ(NvmlCodeFromNote("Not Supported (NVML_ERROR_NOT_SUPPORTED = 3)"),
            NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(NvmlCodeFromNote("nvmlX: did not return within 200 ms"), NVML_ERROR_UNKNOWN);
  EXPECT_EQ(NvmlCodeFromNote(""), NVML_ERROR_UNKNOWN);
}

}  // namespace
}  // namespace gpuvet
