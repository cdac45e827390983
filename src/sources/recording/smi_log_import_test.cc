// The nvidia-smi log importers over realistic logs (tests/data/smi-logs): every dmon variant
// (column sets, -o DT / -o T, repeated headers, '-'), query-gpu CSV with and without units and
// header, [N/A]/[Not Supported], repeated header blocks; garbled lines name their line number.
// The streaming reader (two passes over a file a buffer at a time) gives what the in-memory parse
// gives, across buffer boundaries, for logs cut at every byte and mutated; a killed import leaves
// the committed batches readable.
#include "sources/recording/smi_log_import.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "core/gpu_state.h"
#include "sources/recording/recording_store.h"
#include "testing/temp_tree.h"
#include "util/file.h"
#include "util/strings.h"

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
  // Read to its end: finished (analyze must not call it "recording not finished").
  EXPECT_EQ(r.meta.end_unix_s, std::optional<double>(8));
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

// Numbers stored as unsigned integers or ints must fit them: a cast of -2.2e8 MiB or 1e30 is
// undefined (found by fuzz_smi_csv). Such a row is invalid, named by line and column.
TEST(SmiImportTest, NumbersThatDoNotFitTheirFieldAreInvalidRows) {
  std::string head =
      "timestamp, index, memory.used [MiB], ecc.errors.corrected.volatile.total, "
      "clocks.max.sm [MHz]\n";
  std::string t = "2025/07/05 15:01:02.123, 0, ";
  for (const char* row : {"-220201000 MiB, 0, 1980 MHz", "1e30 MiB, 0, 1980 MHz",
                          "100 MiB, -1, 1980 MHz", "100 MiB, 0, 1e12 MHz"}) {
    auto r = ParseQueryCsvLog(head + t + row + "\n", {});
    ASSERT_FALSE(r.ok()) << row;
    EXPECT_NE(r.status().message().find("line 2: field '"), std::string::npos)
        << r.status().message();
  }
  EXPECT_TRUE(ParseQueryCsvLog(head + t + "100 MiB, 0, 1980 MHz\n", {}).ok());
  std::string dmon = "# gpu   fb  sbecc\n# Idx   MB      -\n";
  auto fb = ParseDmonLog(dmon + "    0  -5      0\n", {});
  ASSERT_FALSE(fb.ok());
  EXPECT_NE(fb.status().message().find("line 3: column 'fb': \"-5\" is not a count"),
            std::string::npos)
      << fb.status().message();
  EXPECT_FALSE(ParseDmonLog(dmon + "    0  100  1e20\n", {}).ok());
  EXPECT_TRUE(ParseDmonLog(dmon + "    0  100      0\n", {}).ok());
}

TEST(SmiImportTest, ImportSmiLogNamesTheFile) {
  auto r = ImportSmiLog("/nonexistent/smi.log", {});
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  auto ok =
      ImportSmiLog(std::string(GPUVET_SOURCE_DIR) + "/tests/data/smi-logs/dmon-puc-2gpu.txt", {});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_NE(ok->meta.producer.find("dmon-puc-2gpu.txt"), std::string::npos);
}

// A canonical text of everything the importer fills, to compare two parses exactly.
std::string Canonical(const Recording& r) {
  std::string out;
  char buf[128];
  auto num = [&](const char* k, std::optional<double> v) {
    if (!v) return;
    std::snprintf(buf, sizeof(buf), " %s=%.17g", k, *v);
    out += buf;
  };
  const RecordingMeta& m = r.meta;
  out += m.producer + "|" + m.driver_version;
  num("interval", m.interval_s);
  num("start", m.start_unix_s);
  num("end", m.end_unix_s);
  out += "\n";
  for (const auto& [k, v] : m.notes) out += k + "=" + v + "\n";
  for (const RecordedGpu& g : m.gpus) {
    out += std::to_string(g.index) + " " + g.name + "|" + g.uuid + "|" + g.pci_bus_id;
    num("total",
        g.memory_total_bytes ? std::optional<double>(*g.memory_total_bytes) : std::nullopt);
    num("limit", g.power_limit_w);
    out += "\n";
  }
  for (const Sample& s : r.samples) {
    num("t", s.t);
    num("u", s.unix_time);
    num("i", s.interval_s);
    for (const GpuSample& g : s.gpus) {
      out += " g" + std::to_string(g.gpu);
      num("util", g.util_pct);
      num("mem", g.mem_util_pct);
      num("used", g.memory_used_bytes ? std::optional<double>(*g.memory_used_bytes) : std::nullopt);
      num("power", g.power_w);
      num("temp", g.temperature_c);
      num("sm", g.sm_clock_mhz);
      num("mclk", g.mem_clock_mhz);
      num("reasons",
          g.clock_event_reasons ? std::optional<double>(*g.clock_event_reasons) : std::nullopt);
      num("rx", g.pcie_rx_bytes_per_s);
    }
    out += "\n";
  }
  return out;
}

// "OK <canonical>" or "ERR <code> <message>", for parses that may fail.
std::string Outcome(const Result<Recording>& r) {
  if (!r.ok()) {
    return "ERR " + std::to_string(static_cast<int>(r.status().code())) + " " +
           r.status().message();
  }
  return "OK " + Canonical(*r);
}

// A day-like query CSV: GPU lines of a tick a few ms apart, an occasional missed tick, [N/A].
std::string JitteredCsv(int ticks, int gpus, uint32_t seed) {
  std::string text =
      "timestamp, name, index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n";
  uint32_t state = seed;
  auto next = [&state]() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  char line[200];
  for (int t = 0; t < ticks; ++t) {
    if (next() % 97 == 0) continue;  // a tick nvidia-smi missed
    for (int g = 0; g < gpus; ++g) {
      int ms = static_cast<int>(next() % 40) + g * 3;
      int sec = t % 60, min = (t / 60) % 60, hour = (t / 3600) % 24;
      std::snprintf(line, sizeof(line),
                    "2025/07/%02d %02d:%02d:%02d.%03d, NVIDIA H100 80GB HBM3, %d, %u %%, %u MiB, "
                    "%s\n",
                    5 + t / 86400, hour, min, sec, ms, g, next() % 101, next() % 81000,
                    next() % 50 == 0 ? "[N/A]" : "612.25 W");
      text += line;
    }
  }
  return text;
}

// The interval rule as the whole-log importer computed it: the median of the gaps between
// distinct timestamps that are above a tenth of the largest.
double ReferenceInterval(const Recording& r, const std::string& text) {
  std::vector<double> times;
  size_t pos = text.find('\n') + 1;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    size_t comma = line.find(',');
    size_t space = line.find(' ');
    auto t = smi_import_internal::ParseSmiTimestamp(line.substr(0, space),
                                                    line.substr(space + 1, comma - space - 1));
    if (t && (times.empty() || *t != times.back())) times.push_back(*t);
  }
  std::vector<double> gaps, big;
  for (size_t i = 1; i < times.size(); ++i) {
    if (times[i] > times[i - 1]) gaps.push_back(times[i] - times[i - 1]);
  }
  if (gaps.empty()) return r.meta.interval_s;
  double largest = *std::max_element(gaps.begin(), gaps.end());
  for (double g : gaps) {
    if (g > largest / 10) big.push_back(g);
  }
  std::nth_element(big.begin(), big.begin() + big.size() / 2, big.end());
  return big[big.size() / 2];
}

TEST(SmiImportStreamTest, IntervalIsTheMedianOfTheTickGaps) {
  for (uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    std::string text = JitteredCsv(600 + static_cast<int>(seed) * 37, 1 + seed % 4, seed);
    auto r = ParseQueryCsvLog(text, {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->meta.interval_s, ReferenceInterval(*r, text)) << seed;
    EXPECT_NEAR(r->meta.interval_s, 1.0, 0.05) << seed;
  }
}

TEST(SmiImportStreamTest, LogNumbersReadAsStrtodReadsThem) {
  uint32_t state = 99;  // fixed seed
  auto next = [&state]() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  const std::string chars = "0123456789012345678901234567890123456789..-+eE x";
  for (int i = 0; i < 50000; ++i) {
    std::string s;
    for (int n = 1 + static_cast<int>(next() % 20); n > 0; --n) {
      s += next() % 8 ? chars[next() % 40] : chars[next() % chars.size()];
    }
    std::optional<double> fast = smi_import_internal::ParseLogNumber(s);
    std::optional<double> slow = ParseDouble(s);
    ASSERT_EQ(fast.has_value(), slow.has_value()) << s;
    if (fast) {
      ASSERT_EQ(std::memcmp(&*fast, &*slow, sizeof(double)), 0) << s << " " << *fast;
    }
  }
  EXPECT_TRUE(std::signbit(*smi_import_internal::ParseLogNumber("-0")));
  EXPECT_EQ(smi_import_internal::ParseLogNumber("612.25"), 612.25);
  EXPECT_FALSE(smi_import_internal::ParseLogNumber("-").has_value());
  EXPECT_FALSE(smi_import_internal::ParseLogNumber(".").has_value());
}

TEST(SmiImportStreamTest, FileReadInBuffersGivesTheInMemoryParse) {
  test::TempTree dir("smi_stream");
  // ~0.9 MiB: lines cross the reader's 256 KiB buffer boundaries three times.
  std::string text = JitteredCsv(3000, 4, 42);
  ASSERT_GT(text.size(), size_t{3} << 18);
  dir.Write("day.csv", text);
  SmiImportOptions o;
  o.source_name = dir.Path("day.csv");
  auto memory = ParseQueryCsvLog(text, o);
  auto streamed = ImportSmiLog(dir.Path("day.csv"), {});
  ASSERT_TRUE(memory.ok() && streamed.ok()) << streamed.status().message();
  EXPECT_EQ(Canonical(*streamed), Canonical(*memory));
  EXPECT_GT(streamed->samples.size(), 2900u);
  // Every fixture, each format, through the file reader and in memory.
  for (const char* name :
       {"dmon-puc-2gpu.txt", "dmon-pucvmet-dt.txt", "dmon-u-time-midnight.txt",
        "dmon-a100-bursts.txt", "query-gpu-units.csv", "query-gpu-nounits.csv"}) {
    std::string path = std::string(GPUVET_SOURCE_DIR) + "/tests/data/smi-logs/" + name;
    std::string fixture = Fixture(name);
    SmiImportOptions named;
    named.source_name = path;
    auto format = DetectSmiLogFormat(fixture);
    auto a = format == SmiLogFormat::kDmon ? ParseDmonLog(fixture, named)
                                           : ParseQueryCsvLog(fixture, named);
    EXPECT_EQ(Outcome(ImportSmiLog(path, {})), Outcome(a)) << name;
  }
}

TEST(SmiImportStreamTest, CutAtEveryByteFileAndMemoryAgree) {
  test::TempTree dir("smi_cut");
  for (const char* name : {"dmon-pucvmet-dt.txt", "query-gpu-units.csv"}) {
    const std::string text = Fixture(name);
    const bool dmon = DetectSmiLogFormat(text) == SmiLogFormat::kDmon;
    SmiImportOptions o;
    o.format = dmon ? SmiLogFormat::kDmon : SmiLogFormat::kQueryCsv;
    o.source_name = dir.Path("cut.log");
    for (size_t cut = 0; cut <= text.size(); ++cut) {
      std::string_view part = std::string_view(text).substr(0, cut);
      auto r = dmon ? ParseDmonLog(part, o) : ParseQueryCsvLog(part, o);
      if (!r.ok()) {
        EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << name << " " << cut;
        EXPECT_FALSE(r.status().message().empty());
      }
      if (cut % 5 == 0 || cut == text.size()) {  // the file reader on a fifth of the cuts
        dir.Write("cut.log", part);
        auto f = ImportSmiLog(dir.Path("cut.log"), o);
        std::string expect =
            r.ok() ? Outcome(r)
                   : Outcome(InvalidInput(o.source_name + ": " + r.status().message()));
        EXPECT_EQ(Outcome(f), expect) << name << " " << cut;
      }
    }
  }
}

TEST(SmiImportStreamTest, MutationsNeverCrash) {
  const std::string alphabet = "0123456789.,- #%[]\n\r\t/:xXabN/Agpu\xff\xe9\x00";
  uint32_t state = 4242;  // fixed seed
  auto next = [&state]() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (const char* name : {"dmon-pucvmet-dt.txt", "dmon-u-time-midnight.txt", "query-gpu-units.csv",
                           "query-gpu-nounits.csv"}) {
    const std::string text = Fixture(name);
    for (int round = 0; round < 400; ++round) {
      std::string doc = text;
      for (int m = 0, n = 1 + static_cast<int>(next() % 6); m < n; ++m) {
        size_t at = next() % doc.size();
        char c = alphabet[next() % (alphabet.size() + 1)];
        switch (next() % 3) {
          case 0:
            doc[at] = c;
            break;
          case 1:
            doc.insert(doc.begin() + static_cast<long>(at), c);
            break;
          default:
            doc.erase(at, 1 + next() % 8);
        }
        if (doc.empty()) doc = "x";
      }
      for (auto parse : {ParseDmonLog, ParseQueryCsvLog}) {
        auto r = parse(doc, {});
        if (!r.ok()) {
          EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << name << " " << round;
        } else {
          for (const Sample& s : r->samples) {
            EXPECT_TRUE(std::isfinite(s.t));
            EXPECT_TRUE(std::is_sorted(
                s.gpus.begin(), s.gpus.end(),
                [](const GpuSample& a, const GpuSample& b) { return a.gpu < b.gpu; }));
          }
        }
      }
    }
  }
}

TEST(SmiImportStreamTest, ALineLongerThanTheCapIsRefused) {
  test::TempTree dir("smi_long");
  std::string text = "timestamp, index, utilization.gpu [%]\n2025/07/05 15:01:02.123, 0, 5 %\n" +
                     std::string(kSmiMaxLineBytes + 10, '7') + "\n";
  dir.Write("long.csv", text);
  auto f = ImportSmiLog(dir.Path("long.csv"), {});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(f.status().message().find("long.csv: line 3: longer than 1048576 bytes"),
            std::string::npos)
      << f.status().message();
  auto m = ParseQueryCsvLog(text, {});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("line 3: longer than"), std::string::npos);
}

// A sink that does something to the input file when the second pass is about to start.
class BetweenPasses : public SmiSampleSink {
 public:
  BetweenPasses(std::function<void()> act) : act_(std::move(act)) {}
  Status Begin(const RecordingMeta&) override {
    act_();
    return Status::Ok();
  }
  Status Add(const Sample&) override {
    ++samples;
    return Status::Ok();
  }
  Status End(std::optional<double>) override { return Status::Ok(); }
  int samples = 0;

 private:
  std::function<void()> act_;
};

TEST(SmiImportStreamTest, AFileThatGrowsOrShrinksBetweenThePasses) {
  test::TempTree dir("smi_change");
  const std::string text = Fixture("query-gpu-units.csv");
  dir.Write("log.csv", text);
  // Appended to (a running `nvidia-smi -l`): imported as far as the first pass read.
  BetweenPasses grow([&] {
    std::FILE* f = std::fopen(dir.Path("log.csv").c_str(), "a");
    std::fputs("2025/07/05 15:01:09.000, 0, x, y\n", f);
    std::fclose(f);
  });
  ASSERT_TRUE(StreamSmiLog(dir.Path("log.csv"), {}, &grow).ok());
  EXPECT_EQ(grow.samples, 3);
  // Truncated: refused, not half-read.
  dir.Write("log.csv", text);
  BetweenPasses shrink([&] { ASSERT_EQ(truncate(dir.Path("log.csv").c_str(), 100), 0); });
  Status s = StreamSmiLog(dir.Path("log.csv"), {}, &shrink);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("changed while it was imported"), std::string::npos) << s.message();
}

TEST(SmiImportStreamTest, ARefusedLogLeavesAnExistingRecordingAlone) {
  test::TempTree dir("smi_refused");
  dir.Write("out.gpuvet", "keep me");
  dir.Write("bad.csv", Fixture("query-gpu-units.csv") + "2025/07/05 15:01:09.000, 0, x\n");
  SmiRecordingSink sink(dir.Path("out.gpuvet"));
  Status s = StreamSmiLog(dir.Path("bad.csv"), {}, &sink);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bad.csv: line "), std::string::npos) << s.message();
  EXPECT_EQ(*ReadFile(dir.Path("out.gpuvet")), "keep me");
}

// Forwards to the recording sink and kills its own process after `kill_after` samples: what a
// `kill -9` mid-import leaves behind.
class KillingSink : public SmiSampleSink {
 public:
  KillingSink(SmiRecordingSink* inner, int kill_after) : inner_(inner), kill_after_(kill_after) {}
  Status Begin(const RecordingMeta& meta) override { return inner_->Begin(meta); }
  Status Add(const Sample& s) override {
    if (Status st = inner_->Add(s); !st.ok()) return st;
    if (inner_->samples() == kill_after_) raise(SIGKILL);
    return Status::Ok();
  }
  Status End(std::optional<double> e) override { return inner_->End(e); }

 private:
  SmiRecordingSink* inner_;
  int kill_after_;
};

TEST(SmiImportStreamTest, KilledMidImportLeavesTheCommittedBatches) {
  test::TempTree dir("smi_kill");
  dir.Write("day.csv", JitteredCsv(3000, 2, 7));
  auto whole = ImportSmiLog(dir.Path("day.csv"), {});
  ASSERT_TRUE(whole.ok());
  for (int kill_after : {50, 250, 1000}) {
    std::string out = dir.Path("killed-" + std::to_string(kill_after) + ".gpuvet");
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      SmiRecordingSink sink(out, 100);
      KillingSink killing(&sink, kill_after);
      StreamSmiLog(dir.Path("day.csv"), {}, &killing);
      _exit(3);  // not reached: the sink kills the process first
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
    auto rec = ReadRecording(out);
    ASSERT_TRUE(rec.ok()) << rec.status().message();
    // Every committed batch of 100 and nothing of the one being written; no end time.
    EXPECT_EQ(rec->samples.size(), static_cast<size_t>(kill_after / 100 * 100)) << kill_after;
    EXPECT_FALSE(rec->meta.end_unix_s.has_value());
    EXPECT_EQ(rec->meta.gpus.size(), 2u);
    EXPECT_EQ(rec->meta.interval_s, whole->meta.interval_s);
    for (size_t i = 0; i < rec->samples.size(); ++i) {
      EXPECT_EQ(rec->samples[i].unix_time, whole->samples[i].unix_time) << i;
    }
  }
}

TEST(SmiImportStreamTest, TheRecordingSinkWritesWhatTheParseGives) {
  test::TempTree dir("smi_sink");
  dir.Write("day.csv", JitteredCsv(1500, 3, 9));
  auto whole = ImportSmiLog(dir.Path("day.csv"), {});
  ASSERT_TRUE(whole.ok());
  SmiRecordingSink sink(dir.Path("day.gpuvet"), 64);
  ASSERT_TRUE(StreamSmiLog(dir.Path("day.csv"), {}, &sink).ok());
  EXPECT_EQ(sink.samples(), static_cast<int64_t>(whole->samples.size()));
  auto rec = ReadRecording(dir.Path("day.gpuvet"));
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  ASSERT_EQ(rec->samples.size(), whole->samples.size());
  EXPECT_EQ(rec->meta.end_unix_s, whole->meta.end_unix_s);
  EXPECT_EQ(rec->meta.notes.at("import.source"), dir.Path("day.csv"));
  EXPECT_EQ(rec->samples.back().gpus[2].power_w, whole->samples.back().gpus[2].power_w);
}

}  // namespace
}  // namespace gpuvet
