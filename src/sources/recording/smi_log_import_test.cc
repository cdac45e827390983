// The nvidia-smi log importers over realistic logs (tests/data/smi-logs): every dmon variant
// (column sets, -o DT / -o T, repeated headers, '-'), query-gpu CSV with and without units and
// header, [N/A]/[Not Supported], repeated header blocks; garbled lines name their line number.
#include "sources/recording/smi_log_import.h"

#include <gtest/gtest.h>

#include "core/gpu_state.h"
#include "util/file.h"

namespace gpuvet {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string Fixture(const std::string& name) {
  auto text = ReadFile(std::string(GPUVET_SOURCE_DIR) + "/tests/data/smi-logs/" + name);
  EXPECT_TRUE(text.ok()) << name;
  return text.ok() ? *text : "";
}

Recording MustParse(const std::string& name, SmiImportOptions o = {}) {
  std::string text = Fixture(name);
  auto format = DetectSmiLogFormat(text);
  EXPECT_TRUE(format.has_value()) << name;
  auto r = format == SmiLogFormat::kDmon ? ParseDmonLog(text, o) : ParseQueryCsvLog(text, o);
  EXPECT_TRUE(r.ok()) << name << ": " << r.status().message();
  return r.ok() ? *r : Recording{};
}

TEST(SmiImportTest, DetectsFormats) {
  EXPECT_EQ(DetectSmiLogFormat(Fixture("dmon-puc-2gpu.txt")), SmiLogFormat::kDmon);
  EXPECT_EQ(DetectSmiLogFormat(Fixture("dmon-pucvmet-dt.txt")), SmiLogFormat::kDmon);
  EXPECT_EQ(DetectSmiLogFormat(Fixture("query-gpu-units.csv")), SmiLogFormat::kQueryCsv);
  EXPECT_EQ(DetectSmiLogFormat(Fixture("query-gpu-noheader.csv")), SmiLogFormat::kQueryCsv);
  EXPECT_FALSE(DetectSmiLogFormat("hello world\n").has_value());
  EXPECT_FALSE(DetectSmiLogFormat("").has_value());
}

TEST(SmiImportTest, DmonDefaultColumnsTwoGpusRepeatedHeader) {
  SmiImportOptions o;
  o.interval_s = 2;
  o.source_name = "dmon.log";
  Recording r = MustParse("dmon-puc-2gpu.txt", o);
  ASSERT_EQ(r.samples.size(), 4u);
  EXPECT_EQ(r.meta.producer, "gpuvet import nvidia-smi dmon (dmon.log)");
  ASSERT_EQ(r.meta.gpus.size(), 2u);
  EXPECT_EQ(r.meta.interval_s, 2);
  EXPECT_EQ(r.samples[1].t, 2);  // no timestamps: index x --interval
  EXPECT_EQ(r.samples[3].t, 6);
  const GpuSample& g = r.samples[1].gpus[1];
  EXPECT_EQ(g.gpu, 1);
  EXPECT_EQ(g.power_w, 121);
  EXPECT_EQ(g.temperature_c, 50);
  EXPECT_EQ(g.util_pct, 14);
  EXPECT_EQ(g.mem_util_pct, 4);
  EXPECT_EQ(g.mem_clock_mhz, 12481);
  EXPECT_EQ(g.sm_clock_mhz, 1980);
  EXPECT_FALSE(g.memory_used_bytes.has_value());
  EXPECT_FALSE(g.clock_event_reasons.has_value());
  EXPECT_EQ(r.meta.notes.at("import.ignored_columns"), "mtemp,enc,dec,jpg,ofa");
  EXPECT_EQ(r.meta.notes.at("import.source"), "dmon.log");
}

TEST(SmiImportTest, DmonAllGroupsWithDateTimeAndDashes) {
  Recording r = MustParse("dmon-pucvmet-dt.txt");
  ASSERT_EQ(r.samples.size(), 4u);
  EXPECT_EQ(r.meta.start_unix_s, 1704376475);  // 2024-01-04 13:54:35 (read as UTC)
  EXPECT_EQ(r.meta.interval_s, 1);
  EXPECT_EQ(r.samples[2].t, 2);
  const GpuSample& a = r.samples[1].gpus[0];
  EXPECT_EQ(a.power_w, 301);
  EXPECT_EQ(a.memory_used_bytes, std::optional<uint64_t>(40960ull << 20));
  EXPECT_EQ(a.pcie_rx_bytes_per_s, 217 * kMiB);
  EXPECT_EQ(a.pcie_tx_bytes_per_s, 677 * kMiB);
  EXPECT_EQ(a.clock_event_reasons, std::optional<uint64_t>(clock_reason::kSwPowerCap));
  EXPECT_FALSE(a.ecc_corrected_volatile.has_value());  // '-'
  EXPECT_EQ(r.samples[2].gpus[0].clock_event_reasons,
            std::optional<uint64_t>(clock_reason::kSwThermalSlowdown));
  EXPECT_EQ(r.samples[0].gpus[0].clock_event_reasons, std::optional<uint64_t>(0));
  const GpuSample& none = r.samples[3].gpus[0];  // every value '-'
  EXPECT_FALSE(none.power_w.has_value());
  EXPECT_FALSE(none.util_pct.has_value());
  EXPECT_FALSE(none.clock_event_reasons.has_value());
  EXPECT_EQ(r.meta.notes.at("import.ignored_columns"), "mtemp,enc,dec,bar1,ccpm,pci");
}

TEST(SmiImportTest, DmonTimeOnlyCrossesMidnight) {
  Recording r = MustParse("dmon-u-time-midnight.txt");
  ASSERT_EQ(r.samples.size(), 3u);
  EXPECT_EQ(r.samples[2].t, 2);
  EXPECT_EQ(r.samples[2].gpus.size(), 2u);
  EXPECT_EQ(r.samples[2].gpus[1].util_pct, 45);
  EXPECT_TRUE(r.meta.notes.count("import.clock"));
}

TEST(SmiImportTest, DmonGarbledLinesNameTheLine) {
  std::string head = "# gpu   pwr  gtemp\n# Idx     W      C\n";
  auto wrong_count = ParseDmonLog(head + "    0    63     40\n    1    63\n", {});
  ASSERT_FALSE(wrong_count.ok());
  EXPECT_NE(wrong_count.status().message().find("line 4:"), std::string::npos)
      << wrong_count.status().message();
  auto not_number = ParseDmonLog(head + "    0    6x3     40\n", {});
  ASSERT_FALSE(not_number.ok());
  EXPECT_NE(not_number.status().message().find("line 3: column 'pwr'"), std::string::npos)
      << not_number.status().message();
  auto no_header = ParseDmonLog("    0    63     40\n", {});
  ASSERT_FALSE(no_header.ok());
  EXPECT_NE(no_header.status().message().find("line 1: data before"), std::string::npos);
  auto bad_index = ParseDmonLog(head + "    x    63     40\n", {});
  EXPECT_FALSE(bad_index.ok());
  auto bad_time = ParseDmonLog("#Time gpu sm\n#HH:MM:SS Idx %\n25:99:00 0 1\n", {});
  ASSERT_FALSE(bad_time.ok());
  EXPECT_NE(bad_time.status().message().find("line 3"), std::string::npos);
  auto empty = ParseDmonLog(head, {});
  EXPECT_FALSE(empty.ok());
  // A truncated last line (the recorder was killed mid-write) is garbled, not silently dropped.
  auto truncated = ParseDmonLog(head + "    0    63     40\n    1    6", {});
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("line 4"), std::string::npos);
}

TEST(SmiImportTest, QueryCsvWithUnitsNaAndRepeatedHeader) {
  Recording r = MustParse("query-gpu-units.csv");
  ASSERT_EQ(r.samples.size(), 3u);
  EXPECT_EQ(r.meta.driver_version, "550.90.07");
  EXPECT_NEAR(r.meta.interval_s, 1.0, 0.01);
  ASSERT_EQ(r.meta.gpus.size(), 2u);
  EXPECT_EQ(r.meta.gpus[1].name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(r.meta.gpus[1].pci_bus_id, "00000000:0F:00.0");
  EXPECT_EQ(r.meta.gpus[1].memory_total_bytes, std::optional<uint64_t>(40960ull << 20));
  EXPECT_EQ(r.meta.gpus[1].power_limit_w, 400);
  EXPECT_NEAR(r.samples[1].t, 1.001, 1e-6);
  const GpuSample& a = r.samples[1].gpus[0];
  EXPECT_EQ(a.util_pct, 60);
  EXPECT_EQ(a.mem_util_pct, 22);
  EXPECT_EQ(a.memory_used_bytes, std::optional<uint64_t>(30210ull << 20));
  EXPECT_EQ(a.power_w, 398.70);
  EXPECT_EQ(a.sm_clock_mhz, 1275);
  EXPECT_EQ(a.mem_clock_mhz, 1215);
  EXPECT_EQ(a.temperature_c, 66);
  EXPECT_EQ(a.clock_event_reasons, std::optional<uint64_t>(clock_reason::kSwPowerCap));
  const GpuSample& b = r.samples[1].gpus[1];
  EXPECT_FALSE(b.mem_util_pct.has_value());  // [Not Supported]
  EXPECT_FALSE(b.power_w.has_value());       // [N/A]
  EXPECT_EQ(r.samples[2].gpus[1].clock_event_reasons,
            std::optional<uint64_t>(clock_reason::kGpuIdle));
  EXPECT_EQ(r.meta.notes.at("import.ignored_columns"), "pstate,fan.speed");
  EXPECT_TRUE(r.meta.end_unix_s.has_value());
}

TEST(SmiImportTest, QueryCsvNoUnitsFiveSecondLoop) {
  Recording r = MustParse("query-gpu-nounits.csv");
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_NEAR(r.meta.interval_s, 5.0, 0.01);
  EXPECT_EQ(r.samples[0].gpus[1].power_w, 700);
  EXPECT_EQ(r.samples[1].gpus[0].memory_used_bytes, std::optional<uint64_t>(22010ull << 20));
  EXPECT_EQ(r.meta.gpus[0].memory_total_bytes, std::optional<uint64_t>(81559ull << 20));
}

TEST(SmiImportTest, QueryCsvWithoutHeaderNeedsColumns) {
  std::string text = Fixture("query-gpu-noheader.csv");
  auto missing = ParseQueryCsvLog(text, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--columns"), std::string::npos);
  SmiImportOptions o;
  o.csv_columns =
      "timestamp,index,utilization.gpu,utilization.memory,memory.used,power.draw,temperature.gpu";
  auto r = ParseQueryCsvLog(text, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->samples.size(), 3u);
  EXPECT_EQ(r->meta.interval_s, 2);
  EXPECT_EQ(r->samples[2].t, 4);
  EXPECT_FALSE(r->samples[1].gpus[0].power_w.has_value());
  EXPECT_EQ(r->samples[2].gpus[0].power_w, 26.5);
  EXPECT_EQ(r->samples[2].gpus[0].temperature_c, 52);
}

TEST(SmiImportTest, QueryCsvGarbledLinesNameTheLine) {
  std::string head = "timestamp, index, utilization.gpu [%]\n";
  auto count = ParseQueryCsvLog(head + "2025/07/05 15:01:02.123, 0\n", {});
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.status().message().find("line 2:"), std::string::npos);
  auto value = ParseQueryCsvLog(head +
                                    "2025/07/05 15:01:02.123, 0, 5 %\n2025/07/05 15:01:03.1, 0, "
                                    "lots\n",
                                {});
  ASSERT_FALSE(value.ok());
  EXPECT_NE(value.status().message().find("line 3: field 'utilization.gpu'"), std::string::npos)
      << value.status().message();
  auto stamp = ParseQueryCsvLog(head + "yesterday noon, 0, 5 %\n", {});
  ASSERT_FALSE(stamp.ok());
  EXPECT_NE(stamp.status().message().find("line 2"), std::string::npos) << stamp.status().message();
  auto nvml =
      ParseQueryCsvLog(head + "Failed to initialize NVML: Driver/library version mismatch\n", {});
  ASSERT_FALSE(nvml.ok());
  EXPECT_NE(nvml.status().message().find("line 2"), std::string::npos);
  auto reasons = ParseQueryCsvLog("index, clocks_event_reasons.active\n0, 0xZZ\n", {});
  EXPECT_FALSE(reasons.ok());
}

TEST(SmiImportTest, ImportSmiLogNamesTheFile) {
  auto r = ImportSmiLog("/nonexistent/smi.log", {});
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  auto ok =
      ImportSmiLog(std::string(GPUVET_SOURCE_DIR) + "/tests/data/smi-logs/dmon-puc-2gpu.txt", {});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_NE(ok->meta.producer.find("dmon-puc-2gpu.txt"), std::string::npos);
}

}  // namespace
}  // namespace gpuvet
