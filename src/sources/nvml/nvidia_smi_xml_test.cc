// Tests for the offline nvidia-smi XML source: real captures from /work/shared/data (skipped when
// absent), hand-written captures for version spellings and garbled values, and malformed XML.
#include "sources/nvml/nvidia_smi_xml.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "util/file.h"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMib = uint64_t{1} << 20;

fs::path TelegrafDir() { return fs::path(GPUVET_SHARED_DATA_DIR) / "nvidia-smi" / "telegraf"; }

// Loads one of the telegraf captures by file name.
Result<GpuInventory> LoadCapture(const std::string& name) {
  return LoadNvidiaSmiXml((TelegrafDir() / name).string());
}

#define SKIP_WITHOUT_DATA()                                                \
  if (!fs::is_directory(TelegrafDir())) {                                  \
    GTEST_SKIP() << "shared data not present: " << TelegrafDir().string(); \
  }

// Wraps GPU elements in a minimal capture.
std::string Capture(const std::string& gpus) {
  return "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n<driver_version>550.90.07</driver_version>\n"
         "<cuda_version>12.4</cuda_version>\n<attached_gpus>1</attached_gpus>\n" +
         gpus + "</nvidia_smi_log>\n";
}

template <typename T>
void ExpectNotError(const Reading<T>& r, const std::string& what) {
  EXPECT_FALSE(r.error()) << what << ": " << r.note;
  EXPECT_NE(r.state, Reading<T>::State::kAbsent) << what;
}

TEST(NvidiaSmiXmlTest, EveryTelegrafCaptureParses) {
  SKIP_WITHOUT_DATA();
  int files = 0;
  for (const auto& entry : fs::directory_iterator(TelegrafDir())) {
    if (entry.path().extension() != ".xml") continue;
    ++files;
    std::string name = entry.path().filename().string();
    Result<GpuInventory> inv = LoadNvidiaSmiXml(entry.path().string());
    ASSERT_TRUE(inv.ok()) << name << ": " << inv.status().message();
    EXPECT_EQ(inv->state, GpuSourceState::kOk);
    EXPECT_EQ(inv->origin, "nvidia-smi-xml (" + entry.path().string() + ")");
    EXPECT_FALSE(inv->gpus.empty()) << name;
    ASSERT_TRUE(inv->device_count.has()) << name;
    EXPECT_GE(*inv->device_count, static_cast<int>(inv->gpus.size())) << name;
    for (const GpuState& g : inv->gpus) {
      std::string what = name + " gpu" + std::to_string(g.index);
      EXPECT_FALSE(g.name.empty()) << what;
      EXPECT_EQ(g.pci_bus_id.size(), 12u) << what << ": " << g.pci_bus_id;
      EXPECT_TRUE(g.failures.empty()) << what;
      ExpectNotError(g.performance_state, what + " pstate");
      ExpectNotError(g.memory_total_bytes, what + " memory");
      ExpectNotError(g.temperature_c, what + " temperature");
      ExpectNotError(g.power_w, what + " power");
      ExpectNotError(g.power_limit_w, what + " power limit");
      ExpectNotError(g.pcie_gen, what + " pcie gen");
      ExpectNotError(g.pcie_width, what + " pcie width");
      ExpectNotError(g.clock_event_reasons, what + " clock reasons");
      ExpectNotError(g.ecc_corrected_volatile, what + " ecc");
      ExpectNotError(g.ecc_uncorrected_aggregate, what + " ecc");
      ExpectNotError(g.retired_pages_pending, what + " retired pending");
      ExpectNotError(g.remap_pending, what + " remap pending");
      ExpectNotError(g.mig_instances, what + " mig");
      ExpectNotError(g.compute_processes, what + " processes");
      EXPECT_TRUE(g.temperature_c.has()) << what;
      EXPECT_TRUE(g.pcie_width.has()) << what;
    }
  }
  EXPECT_EQ(files, 7);
}

TEST(NvidiaSmiXmlTest, A100WithMig) {
  SKIP_WITHOUT_DATA();
  Result<GpuInventory> inv = LoadCapture("a100-sxm4-v12.xml");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_EQ(*inv->driver_version, "535.54.03");
  EXPECT_EQ(*inv->cuda_driver_version, 12020);
  EXPECT_TRUE(inv->nvml_version.unsupported());
  EXPECT_EQ(*inv->device_count, 4);  // attached_gpus 4, but the capture holds one <gpu>
  ASSERT_EQ(inv->gpus.size(), 1u);
  const GpuState& g = inv->gpus[0];
  EXPECT_EQ(g.index, 0);
  EXPECT_EQ(g.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(g.pci_bus_id, "0000:01:00.0");
  EXPECT_EQ(g.uuid, "GPU-513536b6-7d19-9063-b049-1e69664bb298");
  EXPECT_EQ(g.serial, "1650522003820");
  EXPECT_EQ(g.vbios_version, "92.00.36.00.02");
  EXPECT_EQ(*g.minor_number, 1);
  EXPECT_FALSE(*g.persistence_mode);
  EXPECT_EQ(*g.performance_state, 0);
  EXPECT_TRUE(g.mig_enabled.has() && *g.mig_enabled);
  EXPECT_TRUE(*g.mig_pending_enabled);
  EXPECT_EQ(*g.mig_instances, 4);
  EXPECT_TRUE(g.gpu_util_pct.unsupported());  // N/A under MIG
  EXPECT_EQ(g.gpu_util_pct.note, "nvidia-smi reports N/A");
  EXPECT_EQ(*g.memory_total_bytes, 81920 * kMib);
  EXPECT_EQ(*g.memory_used_bytes, 50 * kMib);
  EXPECT_EQ(*g.sm_clock_mhz, 1275);
  EXPECT_EQ(*g.sm_clock_max_mhz, 1410);
  EXPECT_EQ(*g.mem_clock_mhz, 1593);
  EXPECT_EQ(*g.mem_clock_max_mhz, 1593);
  EXPECT_EQ(*g.clock_event_reasons, 0u);
  EXPECT_EQ(*g.temperature_c, 27);
  EXPECT_EQ(*g.slowdown_temperature_c, 89);
  EXPECT_EQ(*g.shutdown_temperature_c, 92);
  EXPECT_DOUBLE_EQ(*g.power_w, 67.03);
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 500.0);
  EXPECT_DOUBLE_EQ(*g.default_power_limit_w, 500.0);
  EXPECT_EQ(*g.pcie_gen, 4);
  EXPECT_EQ(*g.pcie_gen_max, 4);
  EXPECT_EQ(*g.pcie_width, 16);
  EXPECT_EQ(*g.pcie_width_max, 16);
  EXPECT_EQ(*g.pcie_replay_counter, 0u);
  EXPECT_TRUE(*g.ecc_enabled);
  EXPECT_TRUE(*g.ecc_pending_enabled);
  EXPECT_EQ(*g.ecc_corrected_volatile, 0u);
  EXPECT_EQ(*g.ecc_uncorrected_aggregate, 0u);
  EXPECT_TRUE(g.retired_pages_sbe.unsupported());
  EXPECT_TRUE(g.retired_pages_pending.unsupported());
  // <remapped_rows>N/A</remapped_rows>: the children are unsupported, not missing.
  EXPECT_TRUE(g.remap_pending.unsupported());
  EXPECT_EQ(g.remap_pending.note, "nvidia-smi reports N/A");
  EXPECT_TRUE(g.remapped_rows_uncorrectable.unsupported());
  ASSERT_TRUE(g.compute_processes.has());  // <processes />
  EXPECT_TRUE(g.compute_processes->empty());
}

TEST(NvidiaSmiXmlTest, TeslaT4ThrottleSpellingAndProcesses) {
  SKIP_WITHOUT_DATA();
  Result<GpuInventory> inv = LoadCapture("tesla-t4.xml");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_EQ(*inv->cuda_driver_version, 11070);
  const GpuState& g = inv->gpus.at(0);
  EXPECT_EQ(g.pci_bus_id, "0000:00:1e.0");
  EXPECT_EQ(*g.pcie_width, 8);
  EXPECT_EQ(*g.pcie_width_max, 16);
  EXPECT_EQ(*g.clock_event_reasons, 0u);  // <clocks_throttle_reasons>, all Not Active
  EXPECT_DOUBLE_EQ(*g.power_w, 26.78);
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 70.0);
  EXPECT_EQ(*g.retired_pages_sbe, 0);
  EXPECT_EQ(*g.retired_pages_dbe, 0);
  EXPECT_FALSE(*g.retired_pages_pending);
  EXPECT_TRUE(g.mig_enabled.unsupported());
  EXPECT_TRUE(g.mig_instances.unsupported());
  // Xorg (type G) is left out; the python compute process stays.
  ASSERT_TRUE(g.compute_processes.has());
  ASSERT_EQ(g.compute_processes->size(), 1u);
  EXPECT_EQ((*g.compute_processes)[0].pid, 5762u);
  EXPECT_EQ((*g.compute_processes)[0].used_memory_bytes, 1005 * kMib);
}

TEST(NvidiaSmiXmlTest, DualA5000V13) {
  SKIP_WITHOUT_DATA();
  Result<GpuInventory> inv = LoadCapture("dual_a5000-v13.xml");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_EQ(*inv->cuda_driver_version, 13010);
  EXPECT_EQ(*inv->device_count, 2);
  ASSERT_EQ(inv->gpus.size(), 2u);
  const GpuState& g = inv->gpus[1];
  EXPECT_EQ(g.index, 1);
  EXPECT_EQ(g.pci_bus_id, "0000:c1:00.0");
  EXPECT_EQ(*g.minor_number, 0);
  EXPECT_TRUE(*g.persistence_mode);
  EXPECT_EQ(*g.clock_event_reasons, clock_reason::kGpuIdle);
  EXPECT_DOUBLE_EQ(*inv->gpus[0].power_w, 6.52);  // instant_power_draw
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 230.0);
  EXPECT_EQ(*g.pcie_gen, 1);
  EXPECT_EQ(*g.pcie_gen_max, 4);
  EXPECT_FALSE(*g.ecc_enabled);
  EXPECT_TRUE(g.ecc_uncorrected_volatile.unsupported());  // parity/secded split, all N/A
  EXPECT_EQ(*g.remapped_rows_correctable, 0);
  EXPECT_FALSE(*g.remap_pending);
  EXPECT_FALSE(*g.remap_failure);
  EXPECT_EQ(*inv->gpus[0].memory_used_bytes, 22437 * kMib);
  ASSERT_TRUE(inv->gpus[0].compute_processes.has());
  EXPECT_EQ(inv->gpus[0].compute_processes->at(0).pid, 100477u);
}

TEST(NvidiaSmiXmlTest, QuadroSingleDoubleBitLayoutAllNotAvailable) {
  SKIP_WITHOUT_DATA();
  Result<GpuInventory> inv = LoadCapture("quadro-p2000-v12.xml");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  const GpuState& g = inv->gpus.at(0);
  EXPECT_TRUE(g.ecc_enabled.unsupported());
  EXPECT_TRUE(g.ecc_corrected_volatile.unsupported());
  EXPECT_EQ(g.ecc_corrected_volatile.note, "nvidia-smi reports N/A");
  EXPECT_TRUE(g.ecc_uncorrected_aggregate.unsupported());
}

TEST(NvidiaSmiXmlTest, MinimalV10Capture) {
  SKIP_WITHOUT_DATA();
  Result<GpuInventory> inv = LoadCapture("gtx-1070-ti.xml");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_TRUE(inv->driver_version.unsupported());
  EXPECT_EQ(inv->driver_version.note, "not in capture");
  EXPECT_EQ(*inv->device_count, 1);  // counted <gpu> elements
  const GpuState& g = inv->gpus.at(0);
  EXPECT_EQ(g.pci_bus_id, "0000:01:00.0");  // from <gpu id=...>
  EXPECT_EQ(*g.performance_state, 8);
  EXPECT_EQ(*g.pcie_gen, 1);
  EXPECT_TRUE(g.pcie_gen_max.unsupported());
  EXPECT_TRUE(g.power_w.unsupported());
  EXPECT_EQ(*g.gpu_util_pct, 0);
  EXPECT_EQ(*g.memory_total_bytes, 4096 * kMib);
  EXPECT_TRUE(g.clock_event_reasons.unsupported());
}

TEST(NvidiaSmiXmlTest, TruncatedCaptureGivesOffset) {
  SKIP_WITHOUT_DATA();
  Result<std::string> text = ReadFile((TelegrafDir() / "a100-sxm4-v12.xml").string());
  ASSERT_TRUE(text.ok());
  std::string cut = text->substr(0, text->size() / 2);
  Result<GpuInventory> inv = ParseNvidiaSmiXml(cut, "a100-cut.xml");
  ASSERT_FALSE(inv.ok());
  EXPECT_EQ(inv.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(inv.status().message().find("a100-cut.xml"), std::string::npos);
  EXPECT_NE(inv.status().message().find(fmt::format("at byte {} ", cut.size() - 1)),
            std::string::npos)
      << inv.status().message();
  EXPECT_NE(inv.status().message().find("truncated"), std::string::npos);
}

TEST(NvidiaSmiXmlTest, EveryPrefixOfACaptureFailsCleanlyOrParses) {
  SKIP_WITHOUT_DATA();
  Result<std::string> text = ReadFile((TelegrafDir() / "gtx-1070-ti.xml").string());
  ASSERT_TRUE(text.ok());
  for (size_t n = 0; n < text->size(); ++n) {
    Result<GpuInventory> inv = ParseNvidiaSmiXml(std::string_view(*text).substr(0, n), "cut");
    if (!inv.ok()) {
      EXPECT_EQ(inv.status().code(), StatusCode::kInvalidInput) << n;
    }
  }
}

TEST(NvidiaSmiXmlTest, TextCapturesAreRejected) {
  fs::path dir = fs::path(GPUVET_SHARED_DATA_DIR) / "nvidia-smi" / "gpud";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "shared data not present: " << dir.string();
  for (const auto& entry : fs::directory_iterator(dir)) {
    Result<GpuInventory> inv = LoadNvidiaSmiXml(entry.path().string());
    ASSERT_FALSE(inv.ok()) << entry.path();
    EXPECT_EQ(inv.status().code(), StatusCode::kInvalidInput) << entry.path();
  }
}

TEST(NvidiaSmiXmlTest, MalformedInputs) {
  for (std::string_view bad : {"", "GPU 0: NVIDIA H100", "<nvidia_smi_log><gpu>", "<<<>>>",
                               "<nvidia_smi_log></gpu></nvidia_smi_log>"}) {
    Result<GpuInventory> inv = ParseNvidiaSmiXml(bad, "bad.xml");
    ASSERT_FALSE(inv.ok()) << bad;
    EXPECT_EQ(inv.status().code(), StatusCode::kInvalidInput);
    EXPECT_EQ(inv.status().message().rfind("bad.xml: ", 0), 0u) << inv.status().message();
  }
  Result<GpuInventory> wrong = ParseNvidiaSmiXml("<?xml version=\"1.0\"?>\n<html></html>", "x.xml");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("<html>"), std::string::npos);
  EXPECT_NE(wrong.status().message().find("line 2"), std::string::npos) << wrong.status().message();
}

// Issue 16: pugixml accepts some documents that are not well-formed; a damaged capture must be
// an input error with its offset, never read as data.
TEST(NvidiaSmiXmlTest, NotWellFormedIsAnErrorWithItsOffset) {
  const std::string ok =
      "<nvidia_smi_log><driver_version>550.90.07</driver_version></nvidia_smi_log>";
  ASSERT_TRUE(ParseNvidiaSmiXml(ok, "ok.xml").ok());
  struct Case {
    std::string xml, message;
  };
  const Case cases[] = {
      {ok + " tail", "text outside the root element"},
      {ok + "\n<nvidia_smi_log/>", "(line 2): a second top-level element <nvidia_smi_log>"},
      {"<nvidia_smi_log><product_name>A & B</product_name></nvidia_smi_log>",
       "at byte 32 (line 1): '&' starts no entity or character reference"},
      {"<nvidia_smi_log><product_name>A\x02</product_name></nvidia_smi_log>",
       "at byte 31 (line 1): control character 0x02"},
      {"<nvidia_smi_log><!-- cut", "bad.xml: malformed nvidia-smi XML at byte"},
  };
  for (const Case& c : cases) {
    Result<GpuInventory> inv = ParseNvidiaSmiXml(c.xml, "bad.xml");
    ASSERT_FALSE(inv.ok()) << c.xml;
    EXPECT_NE(inv.status().message().find(c.message), std::string::npos) << inv.status().message();
  }
  // What well-formed XML allows stays accepted: references, comments, CDATA, a prolog.
  const std::string fine =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n"
      "<nvidia_smi_log><!-- a & b --><product_name>A &amp; B &#38; "
      "&#x26;<![CDATA[&]]></product_name>"
      "</nvidia_smi_log>\n";
  Result<GpuInventory> inv = ParseNvidiaSmiXml(fine, "fine.xml");
  EXPECT_TRUE(inv.ok()) << inv.status().message();
}

TEST(NvidiaSmiXmlTest, TextThatIsNotUtf8BecomesReplacementCharacters) {
  Result<GpuInventory> inv = ParseNvidiaSmiXml(
      Capture("<gpu id=\"00000000:18:00.0\"><product_name>\xff\xc0 H100</product_name></gpu>\n"),
      "t.xml");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  ASSERT_EQ(inv->gpus.size(), 1u);
  EXPECT_EQ(inv->gpus[0].name, "\xEF\xBF\xBD\xEF\xBF\xBD H100");
}

TEST(NvidiaSmiXmlTest, MissingFileIsNotFound) {
  Result<GpuInventory> inv = LoadNvidiaSmiXml("/nonexistent/gpuvet/capture.xml");
  ASSERT_FALSE(inv.ok());
  EXPECT_EQ(inv.status().code(), StatusCode::kNotFound);
}

TEST(NvidiaSmiXmlTest, NoGpusIsNotAnError) {
  Result<GpuInventory> inv = ParseNvidiaSmiXml(
      "<nvidia_smi_log><driver_version>550.90.07</driver_version>"
      "<attached_gpus>0</attached_gpus></nvidia_smi_log>",
      "empty.xml");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_EQ(*inv->device_count, 0);
  EXPECT_TRUE(inv->gpus.empty());
  EXPECT_TRUE(inv->cuda_driver_version.unsupported());
}

TEST(NvidiaSmiXmlTest, ActiveReasonsRemapPendingAndSums) {
  Result<GpuInventory> inv = ParseNvidiaSmiXml(Capture(R"(
<gpu id="00000000:3B:00.0">
  <product_name>NVIDIA H100 80GB HBM3</product_name>
  <pci><pci_bus_id>00000000:3B:00.0</pci_bus_id></pci>
  <mig_mode><current_mig>Disabled</current_mig><pending_mig>Enabled</pending_mig></mig_mode>
  <mig_devices>None</mig_devices>
  <clocks_throttle_reasons>
    <clocks_throttle_reason_gpu_idle>Not Active</clocks_throttle_reason_gpu_idle>
    <clocks_throttle_reason_sw_power_cap>Active</clocks_throttle_reason_sw_power_cap>
    <clocks_throttle_reason_hw_slowdown>Active</clocks_throttle_reason_hw_slowdown>
    <clocks_throttle_reason_hw_thermal_slowdown>[N/A]</clocks_throttle_reason_hw_thermal_slowdown>
    <clocks_throttle_reason_future_thing>Active</clocks_throttle_reason_future_thing>
  </clocks_throttle_reasons>
  <ecc_errors>
    <volatile>
      <single_bit><device_memory>3</device_memory><total>5</total></single_bit>
      <double_bit><total>N/A</total></double_bit>
    </volatile>
    <aggregate>
      <sram_correctable>2</sram_correctable>
      <dram_correctable>7</dram_correctable>
      <sram_uncorrectable>100</sram_uncorrectable>
      <sram_uncorrectable_parity>1</sram_uncorrectable_parity>
      <sram_uncorrectable_secded>2</sram_uncorrectable_secded>
      <dram_uncorrectable>[Not Supported]</dram_uncorrectable>
    </aggregate>
  </ecc_errors>
  <retired_pages>
    <pending_blacklist>No</pending_blacklist>
    <pending_retirement>Yes</pending_retirement>
  </retired_pages>
  <remapped_rows>
    <remapped_row_corr>1</remapped_row_corr>
    <remapped_row_unc>2</remapped_row_unc>
    <remapped_row_pending>Yes</remapped_row_pending>
    <remapped_row_failure>No</remapped_row_failure>
  </remapped_rows>
  <power_readings>
    <power_draw>699.5 W</power_draw>
    <power_limit>700.00 W</power_limit>
    <enforced_power_limit>650.00 W</enforced_power_limit>
  </power_readings>
  <processes>
    <process_info><pid>42</pid><type>C+G</type><used_memory>N/A</used_memory></process_info>
  </processes>
</gpu>)"),
                                               "hand.xml");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_EQ(inv->origin, "nvidia-smi-xml (hand.xml)");
  EXPECT_EQ(*inv->cuda_driver_version, 12040);
  const GpuState& g = inv->gpus.at(0);
  EXPECT_EQ(g.pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(*g.clock_event_reasons, clock_reason::kSwPowerCap | clock_reason::kHwSlowdown);
  EXPECT_FALSE(*g.mig_enabled);
  EXPECT_TRUE(*g.mig_pending_enabled);
  EXPECT_EQ(*g.mig_instances, 0);
  EXPECT_EQ(*g.ecc_corrected_volatile, 5u);
  EXPECT_TRUE(g.ecc_uncorrected_volatile.unsupported());
  EXPECT_EQ(*g.ecc_corrected_aggregate, 9u);
  EXPECT_EQ(*g.ecc_uncorrected_aggregate, 3u);  // parity + secded replace sram_uncorrectable
  EXPECT_TRUE(*g.retired_pages_pending);
  EXPECT_TRUE(g.retired_pages_sbe.unsupported());
  EXPECT_EQ(g.retired_pages_sbe.note, "not in capture");
  EXPECT_EQ(*g.remapped_rows_correctable, 1);
  EXPECT_EQ(*g.remapped_rows_uncorrectable, 2);
  EXPECT_TRUE(*g.remap_pending);
  EXPECT_FALSE(*g.remap_failure);
  EXPECT_DOUBLE_EQ(*g.power_w, 699.5);
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 650.0);  // enforced, not requested
  EXPECT_TRUE(g.default_power_limit_w.unsupported());
  ASSERT_EQ(g.compute_processes->size(), 1u);
  EXPECT_EQ(g.compute_processes->at(0).pid, 42u);
  EXPECT_EQ(g.compute_processes->at(0).used_memory_bytes, 0u);
}

TEST(NvidiaSmiXmlTest, GarbageValuesBecomeReadingErrors) {
  Result<GpuInventory> inv =
      ParseNvidiaSmiXml(
          "<nvidia_smi_log><cuda_version>twelve</cuda_version><attached_gpus>lots</attached_gpus>" +
              std::string(R"(
<gpu id="garbage">
  <minor_number>-</minor_number>
  <performance_state>P99</performance_state>
  <persistence_mode>Maybe</persistence_mode>
  <temperature><gpu_temp>hot C</gpu_temp><gpu_temp_slow_threshold>90 F</gpu_temp_slow_threshold></temperature>
  <fb_memory_usage><total>99999999999999999999 MiB</total><used>18446744073709551615 MiB</used></fb_memory_usage>
  <gpu_power_readings><power_draw>Unknown Error</power_draw><current_power_limit>nan W</current_power_limit></gpu_power_readings>
  <pci><pci_gpu_link_info><link_widths><current_link_width>sixteen</current_link_width></link_widths></pci_gpu_link_info></pci>
  <clocks_event_reasons><clocks_event_reason_sw_power_cap>Sometimes</clocks_event_reason_sw_power_cap></clocks_event_reasons>
  <ecc_errors><volatile><dram_correctable>-1</dram_correctable></volatile></ecc_errors>
  <processes><process_info><pid>abc</pid></process_info></processes>
</gpu>)") + "</nvidia_smi_log>",
          "garbage.xml");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_TRUE(inv->cuda_driver_version.error());
  EXPECT_NE(inv->cuda_driver_version.note.find("'twelve'"), std::string::npos);
  EXPECT_TRUE(inv->device_count.error());
  const GpuState& g = inv->gpus.at(0);
  EXPECT_TRUE(g.minor_number.error());
  EXPECT_TRUE(g.performance_state.error());
  EXPECT_TRUE(g.persistence_mode.error());
  ASSERT_TRUE(g.temperature_c.error());
  EXPECT_EQ(g.temperature_c.note,
            "gpu[0]/temperature/gpu_temp: cannot parse 'hot C' as an integer in C");
  EXPECT_TRUE(g.slowdown_temperature_c.error());
  EXPECT_TRUE(g.memory_total_bytes.error());
  EXPECT_TRUE(g.memory_used_bytes.error());  // overflows when converted to bytes
  ASSERT_TRUE(g.power_w.error());
  EXPECT_EQ(g.power_w.note,
            "gpu[0]/gpu_power_readings/power_draw: nvidia-smi reports "
            "'Unknown Error'");
  EXPECT_TRUE(g.power_limit_w.error());
  EXPECT_TRUE(g.pcie_width.error());
  EXPECT_TRUE(g.clock_event_reasons.error());
  EXPECT_NE(g.clock_event_reasons.note.find("clocks_event_reason_sw_power_cap"), std::string::npos);
  EXPECT_TRUE(g.ecc_corrected_volatile.error());
  EXPECT_TRUE(g.compute_processes.error());
  EXPECT_NE(g.compute_processes.note.find("process_info[0]/pid"), std::string::npos);
  // An unparsable PCI address is kept as text and reported as a failure.
  EXPECT_EQ(g.pci_bus_id, "garbage");
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_EQ(g.failures[0].call, "pci/pci_bus_id");
}

TEST(NvidiaSmiXmlTest, DeepNestingDoesNotCrash) {
  std::string deep = "<nvidia_smi_log><gpu>";
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  for (int i = 0; i < 100000; ++i) deep += "</a>";
  deep += "</gpu></nvidia_smi_log>";
  Result<GpuInventory> inv = ParseNvidiaSmiXml(deep, "deep.xml");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_EQ(inv->gpus.size(), 1u);
}

}  // namespace
}  // namespace gpuvet
