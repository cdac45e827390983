// Tests for the plain-text `nvidia-smi -q` reader: one hand-written report per driver layout (525,
// 535, 595/610 Windows), field-by-field agreement with the XML reader, format sniffing, truncation
// at every byte, fixed-seed mutations, bytes that are not UTF-8, huge numbers, and every real -q
// report in /work/shared/data (skipped with a message when absent).
#include "sources/nvml/nvidia_smi_text.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sources/nvml/nvidia_smi_xml.h"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMib = uint64_t{1} << 20;

// Every `from` in `s` replaced by `to`.
std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// A 535-layout report (H100): Clocks Event Reasons, GPU Power Readings, T.Limit temperatures, the
// SRAM parity/SEC-DED split, one compute process. Power brake asserted.
constexpr const char* k535 = R"(
==============NVSMI LOG==============

Timestamp                                 : Fri Jun 21 02:03:08 2024
Driver Version                            : 535.161.08
CUDA Version                              : 12.2

Attached GPUs                             : 1
GPU 00000000:53:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    Persistence Mode                      : Enabled
    MIG Mode
        Current                           : Disabled
        Pending                           : Disabled
    Serial Number                         : 1655022005478
    GPU UUID                              : GPU-566e6f65-c38e-b12f-4824-6944218668b9
    Minor Number                          : 0
    VBIOS Version                         : 96.00.74.00.01
    PCI
        Bus                               : 0x53
        Bus Id                            : 00000000:53:00.0
        GPU Link Info
            PCIe Generation
                Max                       : 5
                Current                   : 5
                Device Current            : 5
                Device Max                : 5
                Host Max                  : N/A
            Link Width
                Max                       : 16x
                Current                   : 16x
        Replays Since Reset               : 120
        Replay Number Rollovers           : 0
    Performance State                     : P0
    Clocks Event Reasons
        Idle                              : Not Active
        Applications Clocks Setting       : Not Active
        SW Power Cap                      : Not Active
        HW Slowdown                       : Active
            HW Thermal Slowdown           : Not Active
            HW Power Brake Slowdown       : Active
        Sync Boost                        : Not Active
        SW Thermal Slowdown               : Not Active
        Display Clock Setting             : Not Active
    FB Memory Usage
        Total                             : 81559 MiB
        Reserved                          : 551 MiB
        Used                              : 1024 MiB
        Free                              : 79984 MiB
    Utilization
        Gpu                               : 97 %
        Memory                            : 40 %
    ECC Mode
        Current                           : Enabled
        Pending                           : Enabled
    ECC Errors
        Volatile
            SRAM Correctable              : 1
            SRAM Uncorrectable Parity     : 0
            SRAM Uncorrectable SEC-DED    : 0
            DRAM Correctable              : 2
            DRAM Uncorrectable            : 0
        Aggregate
            SRAM Correctable              : 10
            SRAM Uncorrectable Parity     : 1
            SRAM Uncorrectable SEC-DED    : 2
            DRAM Correctable              : 20
            DRAM Uncorrectable            : 3
            SRAM Threshold Exceeded       : No
    Retired Pages
        Single Bit ECC                    : N/A
        Double Bit ECC                    : N/A
        Pending Page Blacklist            : N/A
    Remapped Rows
        Correctable Error                 : 0
        Uncorrectable Error               : 4
        Pending                           : Yes
        Remapping Failure Occurred        : No
        Bank Remap Availability Histogram
            Max                           : 2560 bank(s)
    Temperature
        GPU Current Temp                  : 36 C
        GPU T.Limit Temp                  : 50 C
        GPU Shutdown T.Limit Temp         : -8 C
        GPU Slowdown T.Limit Temp         : -2 C
        GPU Max Operating T.Limit Temp    : 0 C
        Memory Current Temp               : 44 C
    GPU Power Readings
        Power Draw                        : 71.97 W
        Current Power Limit               : 700.00 W
        Requested Power Limit             : 700.00 W
        Default Power Limit               : 700.00 W
        Min Power Limit                   : 200.00 W
        Max Power Limit                   : 700.00 W
    Module Power Readings
        Power Draw                        : N/A
    Clocks
        Graphics                          : 1980 MHz
        SM                                : 1980 MHz
        Memory                            : 2619 MHz
        Video                             : 1545 MHz
    Max Clocks
        Graphics                          : 1980 MHz
        SM                                : 1980 MHz
        Memory                            : 2619 MHz
        Video                             : 1545 MHz
    Fabric
        State                             : Completed
    Processes
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 4242
            Type                          : C
            Name                          : python3
            Used GPU Memory               : 1000 MiB

)";

// The same GPU as `nvidia-smi -q -x` prints it (v12 schema), for the field-by-field comparison.
constexpr const char* k535Xml = R"(<?xml version="1.0" ?>
<nvidia_smi_log>
<timestamp>Fri Jun 21 02:03:08 2024</timestamp>
<driver_version>535.161.08</driver_version>
<cuda_version>12.2</cuda_version>
<attached_gpus>1</attached_gpus>
<gpu id="00000000:53:00.0">
<product_name>NVIDIA H100 80GB HBM3</product_name>
<persistence_mode>Enabled</persistence_mode>
<mig_mode><current_mig>Disabled</current_mig><pending_mig>Disabled</pending_mig></mig_mode>
<serial>1655022005478</serial>
<uuid>GPU-566e6f65-c38e-b12f-4824-6944218668b9</uuid>
<minor_number>0</minor_number>
<vbios_version>96.00.74.00.01</vbios_version>
<pci><pci_bus_id>00000000:53:00.0</pci_bus_id>
<pci_gpu_link_info><pcie_gen><max_link_gen>5</max_link_gen><current_link_gen>5</current_link_gen>
<device_current_link_gen>5</device_current_link_gen><max_device_link_gen>5</max_device_link_gen>
<max_host_link_gen>N/A</max_host_link_gen></pcie_gen>
<link_widths><max_link_width>16x</max_link_width><current_link_width>16x</current_link_width>
</link_widths></pci_gpu_link_info>
<replay_counter>120</replay_counter><replay_rollover_counter>0</replay_rollover_counter></pci>
<performance_state>P0</performance_state>
<clocks_event_reasons>
<clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle>
<clocks_event_reason_applications_clocks_setting>Not Active</clocks_event_reason_applications_clocks_setting>
<clocks_event_reason_sw_power_cap>Not Active</clocks_event_reason_sw_power_cap>
<clocks_event_reason_hw_slowdown>Active</clocks_event_reason_hw_slowdown>
<clocks_event_reason_hw_thermal_slowdown>Not Active</clocks_event_reason_hw_thermal_slowdown>
<clocks_event_reason_hw_power_brake_slowdown>Active</clocks_event_reason_hw_power_brake_slowdown>
<clocks_event_reason_sync_boost>Not Active</clocks_event_reason_sync_boost>
<clocks_event_reason_sw_thermal_slowdown>Not Active</clocks_event_reason_sw_thermal_slowdown>
<clocks_event_reason_display_clocks_setting>Not Active</clocks_event_reason_display_clocks_setting>
</clocks_event_reasons>
<fb_memory_usage><total>81559 MiB</total><reserved>551 MiB</reserved><used>1024 MiB</used>
<free>79984 MiB</free></fb_memory_usage>
<utilization><gpu_util>97 %</gpu_util><memory_util>40 %</memory_util></utilization>
<ecc_mode><current_ecc>Enabled</current_ecc><pending_ecc>Enabled</pending_ecc></ecc_mode>
<ecc_errors>
<volatile><sram_correctable>1</sram_correctable><sram_uncorrectable_parity>0</sram_uncorrectable_parity>
<sram_uncorrectable_secded>0</sram_uncorrectable_secded><dram_correctable>2</dram_correctable>
<dram_uncorrectable>0</dram_uncorrectable></volatile>
<aggregate><sram_correctable>10</sram_correctable><sram_uncorrectable_parity>1</sram_uncorrectable_parity>
<sram_uncorrectable_secded>2</sram_uncorrectable_secded><dram_correctable>20</dram_correctable>
<dram_uncorrectable>3</dram_uncorrectable><sram_threshold_exceeded>No</sram_threshold_exceeded></aggregate>
</ecc_errors>
<retired_pages><multiple_single_bit_retirement><retired_count>N/A</retired_count></multiple_single_bit_retirement>
<double_bit_retirement><retired_count>N/A</retired_count></double_bit_retirement>
<pending_blacklist>N/A</pending_blacklist></retired_pages>
<remapped_rows><remapped_row_corr>0</remapped_row_corr><remapped_row_unc>4</remapped_row_unc>
<remapped_row_pending>Yes</remapped_row_pending><remapped_row_failure>No</remapped_row_failure></remapped_rows>
<temperature><gpu_temp>36 C</gpu_temp><gpu_temp_tlimit>50 C</gpu_temp_tlimit>
<gpu_temp_max_tlimit_threshold>-8 C</gpu_temp_max_tlimit_threshold>
<gpu_temp_slow_tlimit_threshold>-2 C</gpu_temp_slow_tlimit_threshold>
<gpu_temp_max_gpu_tlimit_threshold>0 C</gpu_temp_max_gpu_tlimit_threshold>
<memory_temp>44 C</memory_temp></temperature>
<gpu_power_readings><power_draw>71.97 W</power_draw><current_power_limit>700.00 W</current_power_limit>
<requested_power_limit>700.00 W</requested_power_limit><default_power_limit>700.00 W</default_power_limit>
<min_power_limit>200.00 W</min_power_limit><max_power_limit>700.00 W</max_power_limit></gpu_power_readings>
<clocks><graphics_clock>1980 MHz</graphics_clock><sm_clock>1980 MHz</sm_clock><mem_clock>2619 MHz</mem_clock>
<video_clock>1545 MHz</video_clock></clocks>
<max_clocks><graphics_clock>1980 MHz</graphics_clock><sm_clock>1980 MHz</sm_clock>
<mem_clock>2619 MHz</mem_clock><video_clock>1545 MHz</video_clock></max_clocks>
<processes><process_info><gpu_instance_id>N/A</gpu_instance_id><compute_instance_id>N/A</compute_instance_id>
<pid>4242</pid><type>C</type><process_name>python3</process_name><used_memory>1000 MiB</used_memory>
</process_info></processes>
</gpu>
</nvidia_smi_log>
)";

// A 525-layout report (A100, two GPUs): Clocks Throttle Reasons, Power Readings with Power Limit
// and Enforced Power Limit, absolute temperature thresholds, "Processes : None".
constexpr const char* k525 = R"(
==============NVSMI LOG==============

Timestamp                                 : Mon Jul 10 09:00:00 2023
Driver Version                            : 525.125.06
CUDA Version                              : 12.0

Attached GPUs                             : 2
GPU 00000000:07:00.0
    Product Name                          : NVIDIA A100-SXM4-80GB
    Persistence Mode                      : Enabled
    MIG Mode
        Current                           : Disabled
        Pending                           : Disabled
    PCI
        Bus Id                            : 00000000:07:00.0
        GPU Link Info
            PCIe Generation
                Max                       : 4
                Current                   : 4
            Link Width
                Max                       : 16x
                Current                   : 16x
        Replays Since Reset               : 0
    Performance State                     : P0
    Clocks Throttle Reasons
        Idle                              : Active
        Applications Clocks Setting       : Not Active
        SW Power Cap                      : Not Active
        HW Slowdown                       : Not Active
            HW Thermal Slowdown           : Not Active
            HW Power Brake Slowdown       : Not Active
        Sync Boost                        : Not Active
        SW Thermal Slowdown               : Not Active
        Display Clock Setting             : Not Active
    Utilization
        Gpu                               : 0 %
        Memory                            : 0 %
    ECC Mode
        Current                           : Enabled
        Pending                           : Enabled
    ECC Errors
        Volatile
            SRAM Correctable              : 0
            SRAM Uncorrectable            : 0
            DRAM Correctable              : 0
            DRAM Uncorrectable            : 0
        Aggregate
            SRAM Correctable              : 0
            SRAM Uncorrectable            : 0
            DRAM Correctable              : 0
            DRAM Uncorrectable            : 0
    Remapped Rows
        Correctable Error                 : 0
        Uncorrectable Error               : 0
        Pending                           : No
        Remapping Failure Occurred        : No
    Temperature
        GPU Current Temp                  : 31 C
        GPU Shutdown Temp                 : 92 C
        GPU Slowdown Temp                 : 89 C
        GPU Max Operating Temp            : 85 C
    Power Readings
        Power Draw                        : 61.20 W
        Power Limit                       : 400.00 W
        Default Power Limit               : 400.00 W
        Enforced Power Limit              : 400.00 W
    Processes                             : None

GPU 00000000:0F:00.0
    Product Name                          : NVIDIA A100-SXM4-80GB
    PCI
        Bus Id                            : 00000000:0F:00.0
    Temperature
        GPU Current Temp                  : 33 C
    Processes                             : None

)";

// A 610 report from Windows (CRLF): KMD / CUDA UMD Version, "GPU Current T.Limit Temp", limits
// nested under "GPU Ceiling Power Limit", only the instantaneous power draw, WDDM process memory.
std::string Windows610() {
  std::string text = R"(
==============NVSMI LOG==============

Timestamp                                              : Wed Jun 24 10:17:56 2026
Driver Version                                         : 610.62 [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]
CUDA Version                                           : 13.3 [Deprecated; will be removed in CUDA 14.0. Use CUDA UMD Version instead]
KMD Version                                            : 610.62
CUDA UMD Version                                       : 13.3

Attached GPUs                                          : 1
GPU 00000000:0C:00.0
    Product Name                                       : NVIDIA GeForce RTX 4080
    Persistence Mode                                   : N/A
    Utilization
        GPU                                            : 7 %
    Temperature
        GPU Current Temp                               : 44 C
        GPU Current T.Limit Temp                       : 39 C
        GPU Shutdown T.Limit Temp                      : -7 C
        GPU Slowdown T.Limit Temp                      : -2 C
    GPU Power Readings
        Average Power Draw                             : N/A
        Instantaneous Power Draw                       : 97.99 W
        GPU Ceiling Power Limit
            Current Power Limit                        : 250.00 W
            Requested Power Limit                      : 250.00 W
            Default Power Limit                        : 320.00 W
        Min Power Limit                                : 105.00 W
    Processes
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 2140
            Type                          : C+G
            Name                          : C:\Windows\System32\dwm.exe
            Used GPU Memory               : Not available in WDDM driver model
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 12940
            Type                          : C
            Name                          : C:\ffmpeg.exe
            Used GPU Memory               : Not available in WDDM driver model
    Capabilities
        EGM                                            : disabled

)";
  return ReplaceAll(text, "\n", "\r\n");
}

fs::path SharedSmiDir() { return fs::path(GPUVET_SHARED_DATA_DIR) / "nvidia-smi"; }

#define SKIP_WITHOUT_DATA()                                                 \
  if (!fs::is_directory(SharedSmiDir())) {                                  \
    GTEST_SKIP() << "shared data not present: " << SharedSmiDir().string(); \
  }

template <typename T>
std::string Show(const Reading<T>& r) {
  if (r.has()) return fmt::format("value {}", *r);
  return fmt::format("state {} ({})", static_cast<int>(r.state), r.note);
}
std::string Show(const Reading<std::vector<GpuProcess>>& r) {
  if (!r.has()) return fmt::format("state {} ({})", static_cast<int>(r.state), r.note);
  std::string out;
  for (const GpuProcess& p : *r) out += fmt::format("{}:{} ", p.pid, p.used_memory_bytes);
  return out;
}

// Both readers must give the same state and value (and note, unless an error: those name the
// XML path or the text line).
template <typename T>
void ExpectSame(const Reading<T>& text, const Reading<T>& xml, const char* field) {
  EXPECT_EQ(Show(text), Show(xml)) << field;
}

#define SAME(field) ExpectSame(t.field, x.field, #field)

void ExpectSameGpu(const GpuState& t, const GpuState& x) {
  EXPECT_EQ(t.name, x.name);
  EXPECT_EQ(t.uuid, x.uuid);
  EXPECT_EQ(t.serial, x.serial);
  EXPECT_EQ(t.pci_bus_id, x.pci_bus_id);
  EXPECT_EQ(t.vbios_version, x.vbios_version);
  SAME(minor_number);
  SAME(persistence_mode);
  SAME(performance_state);
  SAME(gpu_util_pct);
  SAME(memory_util_pct);
  SAME(memory_total_bytes);
  SAME(memory_used_bytes);
  SAME(sm_clock_mhz);
  SAME(sm_clock_max_mhz);
  SAME(mem_clock_mhz);
  SAME(mem_clock_max_mhz);
  SAME(clock_event_reasons);
  SAME(temperature_c);
  SAME(slowdown_temperature_c);
  SAME(shutdown_temperature_c);
  SAME(temperature_margin_c);
  SAME(slowdown_tlimit_c);
  SAME(shutdown_tlimit_c);
  SAME(power_w);
  SAME(power_limit_w);
  SAME(default_power_limit_w);
  SAME(requested_power_limit_w);
  SAME(pcie_gen);
  SAME(pcie_gen_max);
  SAME(pcie_width);
  SAME(pcie_width_max);
  SAME(pcie_replay_counter);
  SAME(ecc_enabled);
  SAME(ecc_pending_enabled);
  SAME(ecc_corrected_volatile);
  SAME(ecc_uncorrected_volatile);
  SAME(ecc_corrected_aggregate);
  SAME(ecc_uncorrected_aggregate);
  SAME(retired_pages_sbe);
  SAME(retired_pages_dbe);
  SAME(retired_pages_pending);
  SAME(remapped_rows_correctable);
  SAME(remapped_rows_uncorrectable);
  SAME(remap_pending);
  SAME(remap_failure);
  SAME(mig_enabled);
  SAME(mig_pending_enabled);
  SAME(mig_instances);
  SAME(compute_processes);
  EXPECT_EQ(t.failures.size(), x.failures.size());
}

TEST(NvidiaSmiTextTest, Layout535ReadsEveryField) {
  Result<GpuInventory> inv = ParseNvidiaSmiText(k535, "h100.txt");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_EQ(inv->origin, "nvidia-smi-q (h100.txt)");
  EXPECT_TRUE(inv->from_capture);
  EXPECT_EQ(*inv->driver_version, "535.161.08");
  EXPECT_EQ(*inv->cuda_driver_version, 12020);
  EXPECT_EQ(*inv->captured_at, "Fri Jun 21 02:03:08 2024");
  ASSERT_EQ(inv->gpus.size(), 1u);
  const GpuState& g = inv->gpus[0];
  EXPECT_EQ(g.pci_bus_id, "0000:53:00.0");
  EXPECT_EQ(g.serial, "1655022005478");
  EXPECT_EQ(*g.clock_event_reasons,
            clock_reason::kHwSlowdown | clock_reason::kHwPowerBrakeSlowdown);
  EXPECT_EQ(*g.temperature_margin_c, 50);
  EXPECT_EQ(*g.slowdown_tlimit_c, -2);
  EXPECT_EQ(*g.shutdown_tlimit_c, -8);
  EXPECT_TRUE(NotInCapture(g.slowdown_temperature_c));
  EXPECT_DOUBLE_EQ(*g.power_w, 71.97);
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 700.0);
  EXPECT_EQ(*g.pcie_replay_counter, 120u);
  EXPECT_EQ(*g.ecc_corrected_volatile, 3u);
  EXPECT_EQ(*g.ecc_uncorrected_aggregate, 6u);  // parity 1 + SEC-DED 2 + DRAM 3
  EXPECT_EQ(*g.remapped_rows_uncorrectable, 4);
  EXPECT_TRUE(*g.remap_pending);
  EXPECT_EQ(*g.memory_total_bytes, 81559 * kMib);
  ASSERT_EQ(g.compute_processes->size(), 1u);
  EXPECT_EQ((*g.compute_processes)[0].pid, 4242u);
  EXPECT_TRUE(g.failures.empty());
}

TEST(NvidiaSmiTextTest, AgreesWithTheXmlReaderFieldByField) {
  Result<GpuInventory> text = ParseNvidiaSmiText(k535, "h100.txt");
  Result<GpuInventory> xml = ParseNvidiaSmiXml(k535Xml, "h100.xml");
  ASSERT_TRUE(text.ok()) << text.status().message();
  ASSERT_TRUE(xml.ok()) << xml.status().message();
  ExpectSame(text->driver_version, xml->driver_version, "driver_version");
  ExpectSame(text->cuda_driver_version, xml->cuda_driver_version, "cuda_driver_version");
  ExpectSame(text->device_count, xml->device_count, "device_count");
  ExpectSame(text->captured_at, xml->captured_at, "captured_at");
  ASSERT_EQ(text->gpus.size(), xml->gpus.size());
  ExpectSameGpu(text->gpus[0], xml->gpus[0]);
}

TEST(NvidiaSmiTextTest, Layout525ThrottleReasonsAndPowerLimit) {
  Result<GpuInventory> inv = ParseNvidiaSmiText(k525, "a100.txt");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  ASSERT_EQ(inv->gpus.size(), 2u);
  const GpuState& g = inv->gpus[0];
  EXPECT_EQ(*g.clock_event_reasons, clock_reason::kGpuIdle);
  EXPECT_EQ(*g.slowdown_temperature_c, 89);
  EXPECT_TRUE(NotInCapture(g.temperature_margin_c));
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 400.0);  // Enforced Power Limit
  EXPECT_DOUBLE_EQ(*g.default_power_limit_w, 400.0);
  EXPECT_TRUE(g.compute_processes.has());
  EXPECT_TRUE(g.compute_processes->empty());
  EXPECT_EQ(inv->gpus[1].pci_bus_id, "0000:0f:00.0");
  EXPECT_EQ(*inv->gpus[1].temperature_c, 33);
  // A sparse section is not a truncated one: the second GPU ends with its Processes line.
  EXPECT_TRUE(inv->gpus[1].failures.empty());
  EXPECT_TRUE(NotInCapture(inv->gpus[1].power_w));
}

TEST(NvidiaSmiTextTest, Layout610WindowsCrlf) {
  Result<GpuInventory> inv = ParseNvidiaSmiText(Windows610(), "win.txt");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_EQ(*inv->driver_version, "610.62");  // KMD Version, not the deprecated line
  EXPECT_EQ(*inv->cuda_driver_version, 13030);
  ASSERT_EQ(inv->gpus.size(), 1u);
  const GpuState& g = inv->gpus[0];
  EXPECT_EQ(*g.gpu_util_pct, 7);
  EXPECT_EQ(*g.temperature_margin_c, 39);
  EXPECT_EQ(*g.slowdown_tlimit_c, -2);
  EXPECT_DOUBLE_EQ(*g.power_w, 97.99);  // instantaneous: power_draw is absent
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 250.0);
  EXPECT_DOUBLE_EQ(*g.default_power_limit_w, 320.0);
  ASSERT_TRUE(g.compute_processes.has()) << g.compute_processes.note;
  ASSERT_EQ(g.compute_processes->size(), 2u);
  EXPECT_EQ((*g.compute_processes)[1].pid, 12940u);
  EXPECT_EQ((*g.compute_processes)[1].used_memory_bytes, 0u);
  EXPECT_TRUE(g.failures.empty());
}

TEST(NvidiaSmiTextTest, PowerDrawNaFallsBackToInstantaneous) {
  std::string text = k535;
  text = ReplaceAll(text, "        Power Draw                        : 71.97 W\n",
                    "        Power Draw                        : N/A\n"
                    "        Instantaneous Power Draw          : 80.50 W\n");
  Result<GpuInventory> inv = ParseNvidiaSmiText(text, "t.txt");
  ASSERT_TRUE(inv.ok());
  EXPECT_DOUBLE_EQ(*inv->gpus[0].power_w, 80.5);
}

TEST(NvidiaSmiTextTest, MigDevicesAndHiddenEcc) {
  std::string text = ReplaceAll(k535,
                                "        Current                           : Disabled\n"
                                "        Pending                           : Disabled\n",
                                "        Current                           : Enabled\n"
                                "        Pending                           : Enabled\n"
                                "    MIG Devices\n"
                                "        MIG Device\n"
                                "            Index                         : 0\n"
                                "        MIG Device\n"
                                "            Index                         : 1\n");
  text = ReplaceAll(text, "            DRAM Uncorrectable            : 0\n",
                    "            DRAM Uncorrectable            : N/A\n");
  Result<GpuInventory> inv = ParseNvidiaSmiText(text, "mig.txt");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  const GpuState& g = inv->gpus[0];
  EXPECT_TRUE(*g.mig_enabled);
  EXPECT_EQ(*g.mig_instances, 2);
}

TEST(NvidiaSmiTextTest, GarbledValuesNameTheLineAndLabel) {
  std::string text = ReplaceAll(k535, "GPU Current Temp                  : 36 C",
                                "GPU Current Temp                  : hot C");
  text = ReplaceAll(text, "Replays Since Reset               : 120",
                    "Replays Since Reset               : 99999999999999999999999999");
  text = ReplaceAll(text, "Minor Number                          : 0",
                    "Minor Number                          : 4294967296");
  Result<GpuInventory> inv = ParseNvidiaSmiText(text, "t.txt");
  ASSERT_TRUE(inv.ok());
  const GpuState& g = inv->gpus[0];
  ASSERT_TRUE(g.temperature_c.error());
  EXPECT_NE(g.temperature_c.note.find("'Temperature > GPU Current Temp'"), std::string::npos)
      << g.temperature_c.note;
  EXPECT_EQ(g.temperature_c.note.rfind("line ", 0), 0u) << g.temperature_c.note;
  EXPECT_TRUE(g.pcie_replay_counter.error()) << Show(g.pcie_replay_counter);
  EXPECT_TRUE(g.minor_number.error()) << Show(g.minor_number);
  EXPECT_TRUE(g.power_w.has());  // one garbled value hides nothing else
}

TEST(NvidiaSmiTextTest, BytesThatAreNotUtf8AreReplaced) {
  std::string text = ReplaceAll(k535, "Name                          : python3",
                                "Name                          : py\xff\xc0thon");
  text = ReplaceAll(text, "NVIDIA H100 80GB HBM3", "NVIDIA H100 \xe2\x82");
  Result<GpuInventory> inv = ParseNvidiaSmiText(text, "t.txt");
  ASSERT_TRUE(inv.ok());
  // "\xe2\x82" is one cut sequence: one U+FFFD (maximal subpart, util/utf8.h).
  EXPECT_EQ(inv->gpus[0].name, "NVIDIA H100 \xEF\xBF\xBD");
  Result<GpuInventory> nul = ParseNvidiaSmiText(std::string(k535) + std::string(1, '\0'), "t.txt");
  ASSERT_FALSE(nul.ok());
  EXPECT_NE(nul.status().message().find("is NUL"), std::string::npos);
}

TEST(NvidiaSmiTextTest, SniffsTheFormat) {
  EXPECT_EQ(SniffCaptureFormat(k535), CaptureFormat::kQueryText);
  EXPECT_EQ(SniffCaptureFormat(Windows610()), CaptureFormat::kQueryText);
  EXPECT_EQ(SniffCaptureFormat(k535Xml), CaptureFormat::kXml);
  EXPECT_EQ(SniffCaptureFormat("\n  <nvidia_smi_log/>"), CaptureFormat::kXml);
  // A -q report without its banner (cut by a ticketing system) is still one.
  EXPECT_EQ(SniffCaptureFormat("Driver Version      : 550.90.07\nGPU 00000000:01:00.0\n"),
            CaptureFormat::kQueryText);
  const char* table =
      "Mon Jan 20 10:18:26 2025\n"
      "+---------------------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 550.90.07              Driver Version: 550.90.07      CUDA Version: 12.4     "
      "|\n";
  EXPECT_EQ(SniffCaptureFormat(table), CaptureFormat::kTable);
  EXPECT_EQ(SniffCaptureFormat("hello\nworld\n"), CaptureFormat::kUnknown);
  EXPECT_EQ(SniffCaptureFormat(""), CaptureFormat::kUnknown);
  Result<GpuInventory> r = ParseNvidiaSmiText(table, "t.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("looks like plain nvidia-smi table"), std::string::npos)
      << r.status().message();
  r = ParseNvidiaSmiText("==============NVSMI LOG==============\nDriver Version : 1\n", "t.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no 'GPU <address>' section"), std::string::npos);
}

TEST(NvidiaSmiTextTest, TruncatedReportIsAPartialReadWithTheReason) {
  // Cut at a line end: the report says more GPUs are attached than it holds.
  const std::string text = ReplaceAll(k535, "Attached GPUs                             : 1",
                                      "Attached GPUs                             : 8");
  const size_t cut = text.find("    Temperature\n");
  Result<GpuInventory> inv = ParseNvidiaSmiText(text.substr(0, cut), "t.txt");
  ASSERT_TRUE(inv.ok());
  const GpuState& g = inv->gpus[0];
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_EQ(g.failures[0].call, "capture");
  EXPECT_NE(g.failures[0].message.find("ends at line"), std::string::npos) << g.failures[0].message;
  EXPECT_TRUE(NotInCapture(g.temperature_c));
  EXPECT_TRUE(g.remap_pending.has());  // read before the cut
}

// Issue 26: what nvidia-smi prints about a sick GPU is read, not dropped.
TEST(NvidiaSmiTextTest, AGpuNvidiaSmiCannotOpenIsKeptWithItsError) {
  const std::string text =
      ReplaceAll(ReplaceAll(k535, "Attached GPUs                             : 1",
                            "Attached GPUs                             : 2"),
                 "GPU 00000000:53:00.0\n",
                 "Unable to determine the device handle for GPU0000:9A:00.0: Unknown Error\n"
                 "GPU 00000000:53:00.0\n");
  Result<GpuInventory> inv = ParseNvidiaSmiText(text, "t.txt");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  ASSERT_EQ(inv->gpus.size(), 2u);
  EXPECT_EQ(inv->gpus[0].pci_bus_id, "0000:9a:00.0");
  EXPECT_EQ(inv->gpus[0].handle_fault, GpuFault::kUnknown);
  EXPECT_EQ(inv->gpus[1].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(inv->gpus[1].handle_fault, GpuFault::kNone);
  EXPECT_FALSE(inv->capture_truncated);

  const std::string lost = ReplaceAll(
      k535, "GPU 00000000:53:00.0\n",
      "Unable to determine the device handle for GPU0000:9A:00.0: GPU is lost.  Reboot the "
      "system to recover this GPU\nGPU 00000000:53:00.0\n");
  inv = ParseNvidiaSmiText(lost, "t.txt");
  ASSERT_TRUE(inv.ok());
  EXPECT_TRUE(inv->gpus[0].lost);
  EXPECT_EQ(inv->gpus[0].handle_fault, GpuFault::kLost);
}

TEST(NvidiaSmiTextTest, ErrorTextsHealthFieldsAndSelection) {
  std::string text = ReplaceAll(k535, "    Persistence Mode                      : Enabled\n",
                                "    Persistence Mode                      : Enabled\n"
                                "    Addressing Mode                       : Unknown Error\n"
                                "    GPU Recovery Action                   : Drain and Reset\n");
  text = "$ nvidia-smi -q -i 0\n" + text;
  Result<GpuInventory> inv = ParseNvidiaSmiText(text, "t.txt");
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_TRUE(inv->capture_selected);
  const GpuState& g = inv->gpus[0];
  ASSERT_EQ(g.error_values.size(), 1u);
  EXPECT_NE(g.error_values[0].call.find("addressing_mode"), std::string::npos)
      << g.error_values[0].call;
  EXPECT_EQ(g.error_values[0].message, "Unknown Error");
  EXPECT_GT(g.value_fields, 20);
  EXPECT_EQ(Show(g.recovery_action), "value Drain and Reset");
  EXPECT_FALSE(ParseNvidiaSmiText(k535, "t.txt")->capture_selected);

  text = ReplaceAll(k535, "    Persistence Mode                      : Enabled\n",
                    "    Persistence Mode                      : GPU requires reset\n");
  inv = ParseNvidiaSmiText(text, "t.txt");
  ASSERT_TRUE(inv.ok());
  EXPECT_TRUE(inv->gpus[0].reset_required);
}

TEST(NvidiaSmiTextTest, BrokenNodeOutputsAndBundles) {
  const fs::path dir = fs::temp_directory_path() / "gpuvet_smi_broken";
  fs::create_directories(dir);
  auto load = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return LoadNvidiaSmiCapture((dir / name).string(), CaptureFormat::kQueryText);
  };
  Result<GpuInventory> r = load(
      "nodrv.txt",
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
      "that the latest NVIDIA driver is installed and running.\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state, GpuSourceState::kDriverNotLoaded);
  EXPECT_TRUE(r->from_capture);
  r = load("mismatch.txt", "Failed to initialize NVML: Driver/library version mismatch\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state, GpuSourceState::kInitFailed);
  EXPECT_NE(r->detail.find("RM_VERSION_MISMATCH"), std::string::npos);
  r = load("nolib.txt",
           "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure "
           "that the NVIDIA Display Driver is properly installed and present in your system.\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state, GpuSourceState::kLibraryMissing);
  r = load("lost.txt",
           "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error\n");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->gpus.size(), 1u);
  EXPECT_EQ(r->gpus[0].handle_fault, GpuFault::kUnknown);
  // Two -q reports in one file (a bug-report bundle) are refused, never merged.
  r = load("bundle.txt", std::string(k535) + "\nGPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n" +
                             std::string(k535));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("more than one nvidia-smi -q report"), std::string::npos);
  // `nvidia-smi -L` lines are no GPU sections.
  Result<GpuInventory> one = ParseNvidiaSmiText(
      std::string(k535) + "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n", "t.txt");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->gpus.size(), 1u);
  fs::remove_all(dir);
}

TEST(NvidiaSmiTextTest, TruncationAtEveryByteNeverCrashes) {
  const std::string doc = k525;
  for (size_t cut = 0; cut <= doc.size(); ++cut) {
    Result<GpuInventory> r = ParseNvidiaSmiText(std::string_view(doc).substr(0, cut), "t.txt");
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << cut;
      EXPECT_EQ(r.status().message().rfind("t.txt: ", 0), 0u) << r.status().message();
      continue;
    }
    ASSERT_GE(r->gpus.size(), 1u) << cut;
    if (r->gpus.size() > 1) continue;  // cut in the second section: the first is complete
    // A cut inside a line before the Processes entry is reported as a cut. (At a line end, a
    // one-GPU report cut short reads like a filtered `nvidia-smi -q -d ...`: what is missing is
    // "not in the capture", so unknown either way.)
    const size_t processes = doc.find("    Processes") + 13;  // the whole label
    if (cut < processes && doc[cut - 1] != '\n') {
      EXPECT_FALSE(r->gpus[0].failures.empty()) << cut;
    } else if (cut >= processes) {
      EXPECT_TRUE(r->gpus[0].failures.empty()) << cut;
    }
  }
}

TEST(NvidiaSmiTextTest, MutatedReportsNeverCrash) {
  // Deterministic mutations (a fixed linear congruential sequence, Numerical Recipes constants):
  // every result is an inventory or an InvalidInput error naming the file.
  const std::string doc = k535;
  // Every byte of the literal, its terminating NUL included (a NUL is an input error).
  static constexpr char kAlphabet[] = " :\n\t\r.-x0123456789ABCabcNA/[]\xff\xc3";
  const std::string alphabet(kAlphabet, sizeof(kAlphabet));
  uint32_t state = 4242;
  auto next = [&state]() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (int i = 0; i < 1500; ++i) {
    std::string m = doc;
    int edits = 1 + next() % 6;
    for (int e = 0; e < edits; ++e) {
      size_t at = next() % m.size();
      char c = alphabet[next() % alphabet.size()];
      switch (next() % 4) {
        case 0:
          m[at] = c;
          break;
        case 1:
          m.insert(m.begin() + at, c);
          break;
        case 2:
          m.insert(at, std::string(next() % 64, ' '));  // indentation shifts
          break;
        default:
          m.erase(at, 1 + next() % 16);
          break;
      }
      if (m.empty()) m = "x";
    }
    Result<GpuInventory> r = ParseNvidiaSmiText(m, "t.txt");
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
      EXPECT_EQ(r.status().message().rfind("t.txt: ", 0), 0u) << r.status().message();
    }
  }
}

TEST(NvidiaSmiTextTest, DeepIndentationIsCheap) {
  std::string text = "==============NVSMI LOG==============\nGPU 00000000:01:00.0\n";
  for (int i = 1; i < 3000; ++i) text += std::string(i, ' ') + "Section\n";
  Result<GpuInventory> r = ParseNvidiaSmiText(text, "t.txt");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->gpus.size(), 1u);
}

// --- Every real -q report in the shared data. ---

std::vector<fs::path> SharedQueryReports() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(SharedSmiDir())) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".txt") continue;
    if (name.find("-q") != std::string::npos || name.find("_query_q") != std::string::npos) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(NvidiaSmiTextTest, EverySharedReportReads) {
  SKIP_WITHOUT_DATA();
  int files = 0;
  for (const fs::path& p : SharedQueryReports()) {
    ++files;
    CaptureFormat detected = CaptureFormat::kUnknown;
    Result<GpuInventory> inv = LoadNvidiaSmiCapture(p.string(), CaptureFormat::kXml, &detected);
    ASSERT_TRUE(inv.ok()) << p << ": " << inv.status().message();
    EXPECT_EQ(detected, CaptureFormat::kQueryText) << p;
    EXPECT_TRUE(inv->driver_version.has()) << p;
    EXPECT_TRUE(inv->captured_at.has()) << p;
    ASSERT_FALSE(inv->gpus.empty()) << p;
    const bool invalid = p.string().find("INVALID") != std::string::npos;
    if (!invalid) {
      EXPECT_EQ(*inv->device_count, static_cast<int>(inv->gpus.size())) << p;
    }
    for (const GpuState& g : inv->gpus) {
      EXPECT_FALSE(g.name.empty()) << p;
      EXPECT_EQ(g.pci_bus_id.size(), 12u) << p << ": " << g.pci_bus_id;
      for (const auto* r : {&g.temperature_c, &g.pcie_width, &g.pcie_width_max}) {
        EXPECT_TRUE(r->has() || invalid) << p << ": " << r->note;
      }
      EXPECT_FALSE(g.power_w.error()) << p << ": " << g.power_w.note;
      EXPECT_FALSE(g.clock_event_reasons.error()) << p << ": " << g.clock_event_reasons.note;
      EXPECT_FALSE(g.compute_processes.error()) << p << ": " << g.compute_processes.note;
      EXPECT_FALSE(g.ecc_uncorrected_volatile.error()) << p;
      EXPECT_EQ(g.failures.empty(), !invalid) << p;
      // Ada, Hopper and newer report T.Limit; so the margin is judged from it.
      EXPECT_EQ(g.temperature_margin_c.has(), !g.slowdown_temperature_c.has() && !invalid)
          << p << ": " << g.name;
    }
  }
  EXPECT_GE(files, 25);
}

TEST(NvidiaSmiTextTest, SharedReportsKnownFacts) {
  SKIP_WITHOUT_DATA();
  auto load = [](const std::string& rel) {
    Result<GpuInventory> inv =
        LoadNvidiaSmiCapture((SharedSmiDir() / rel).string(), CaptureFormat::kQueryText);
    EXPECT_TRUE(inv.ok()) << rel << ": " << inv.status().message();
    return inv.ok() ? std::move(inv).value() : GpuInventory{};
  };
  // gpud H100×8 (535.161.08): HW power-brake slowdown on all eight GPUs.
  GpuInventory h100 = load("gpud/nvidia-smi-q.535.161.08.H100x8.txt");
  ASSERT_EQ(h100.gpus.size(), 8u);
  for (const GpuState& g : h100.gpus) {
    ASSERT_TRUE(g.clock_event_reasons.has());
    EXPECT_TRUE(*g.clock_event_reasons & clock_reason::kHwPowerBrakeSlowdown) << g.pci_bus_id;
  }
  // A10 (gpud): 4 uncorrectable remapped rows, remap pending.
  GpuInventory a10 = load("gpud/nvidia-smi-q.535.129.03.A10.txt");
  ASSERT_EQ(a10.gpus.size(), 1u);
  EXPECT_TRUE(*a10.gpus[0].remap_pending);
  EXPECT_EQ(*a10.gpus[0].remapped_rows_uncorrectable, 4);
  // The truncated H100×8: 1 of 8 GPUs, cut off, with the reason.
  GpuInventory cut = load("gpud/nvidia-smi-q.535.183.01.H100x8.INVALID.txt");
  ASSERT_EQ(cut.gpus.size(), 1u);
  EXPECT_EQ(*cut.device_count, 8);
  ASSERT_EQ(cut.gpus[0].failures.size(), 1u);
  EXPECT_NE(cut.gpus[0].failures[0].message.find("ends at line 91"), std::string::npos)
      << cut.gpus[0].failures[0].message;
  // Windows 610: the KMD version, instantaneous power.
  GpuInventory win = load(
      "nvidia_gpu_exporter/windows-x86_64__nvidia-geforce-rtx-2080-super__610.62/"
      "load_query_q.txt");
  EXPECT_EQ(*win.driver_version, "610.62");
  ASSERT_EQ(win.gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(*win.gpus[0].power_w, 97.99);
}

TEST(NvidiaSmiTextTest, SharedTablesAreRefusedClearly) {
  SKIP_WITHOUT_DATA();
  for (const char* rel : {"gpud/nvidia-smi.550.90.07.txt", "gpud/nvidia-smi.525.125.06.txt",
                          "thamada_gls/A10.nvidia-smi.txt"}) {
    CaptureFormat detected = CaptureFormat::kUnknown;
    Result<GpuInventory> r =
        LoadNvidiaSmiCapture((SharedSmiDir() / rel).string(), CaptureFormat::kXml, &detected);
    ASSERT_FALSE(r.ok()) << rel;
    EXPECT_EQ(detected, CaptureFormat::kTable) << rel;
    EXPECT_NE(r.status().message().find("plain `nvidia-smi` summary table"), std::string::npos)
        << r.status().message();
  }
}

}  // namespace
}  // namespace gpuvet
