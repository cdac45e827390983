// Issue 16 through the real binary: bytes that are not UTF-8 in every kind of input are data
// (the JSON and Prometheus outputs stay valid, never an internal error), numbers that do not fit
// skip their record with a message, policies that would switch a check off are refused with
// file:line:column, and damaged inputs are errors or warnings, never silent successes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_binary.h"

namespace gpuvet::e2e {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFffd = "\xEF\xBF\xBD";

RunResult Gpuvet(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), GPUVET_BINARY);
  return RunBinary(args, env, 60);
}

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteText(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string ReplaceFirst(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// The strict parser: throws on invalid UTF-8 and on anything but one JSON document.
nlohmann::json ParseStrict(const std::string& text) { return nlohmann::json::parse(text); }

class HardeningE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / (std::to_string(getpid()) + "-gpuvet_hardening");
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path Fixture(const std::string& name) { return fs::path(GPUVET_FIXTURES_DIR) / name; }

  // `check` of healthy-8gpu with extra flags, JSON out.
  RunResult CheckHealthy(std::vector<std::string> extra, const std::string& format = "json") {
    fs::path fx = Fixture("healthy-8gpu");
    std::vector<std::string> args = {"check",
                                     "--now",
                                     "2026-01-01T00:00:00Z",
                                     "--root",
                                     (fx / "root").string(),
                                     "--nvml-lib",
                                     GPUVET_FAKE_NVML_LIB,
                                     "--format",
                                     format};
    args.insert(args.end(), extra.begin(), extra.end());
    return Gpuvet(args, {"GPUVET_FAKE_NVML_SCENARIO=" + (fx / "nvml.json").string()});
  }

  fs::path dir_;
};

// The JSON parses strictly, the bad byte is quoted as U+FFFD, the textfile stays UTF-8, and the
// text output is produced too.
TEST_F(HardeningE2eTest, KernelLogBytesThatAreNotUtf8) {
  fs::path log = dir_ / "kernel.log";
  // A stray Latin-1 byte in a process name, a cut sequence and a lone continuation byte.
  WriteText(log,
            "[  100.000000] NVRM: Xid (PCI:0000:18:00): 13, pid=4242, name=pyth\xf6n, Graphics "
            "SM Warp Exception\n"
            "[  101.000000] Out of memory: Killed process 77 (tr\xe2\x82) total-vm:1kB\n"
            "[  102.000000] \x80\xff garbage line\n");
  fs::path prom = dir_ / "gpuvet.prom";
  RunResult r = CheckHealthy({"--kernel-log", log.string(), "--textfile", prom.string()});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << r.err;
  nlohmann::json j = ParseStrict(r.out);
  EXPECT_NE(r.out.find(std::string("pyth") + kFffd + "n"), std::string::npos);
  // The textfile is UTF-8 too (the exposition format requires it).
  std::string text = ReadText(prom);
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.find('\xf6'), std::string::npos);
  RunResult plain = CheckHealthy({"--kernel-log", log.string()}, "text");
  EXPECT_TRUE(plain.exit_code == 0 || plain.exit_code == 1) << plain.err;
  EXPECT_EQ(plain.out.find('\xf6'), std::string::npos);
}

TEST_F(HardeningE2eTest, EnvFileBytesThatAreNotUtf8) {
  fs::path env = dir_ / "job.env";
  WriteText(env, "CUDA_VISIBLE_DEVICES=0,\xff\xfe\nNVIDIA_VISIBLE_DEVICES=all\n");
  RunResult r = CheckHealthy({"--only", "container", "--env-file", env.string()});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << r.err;
  ParseStrict(r.out);
  // A line that is not KEY=VALUE is quoted in the error: still valid JSON.
  WriteText(env, "CUDA_\xff=1\n");
  RunResult bad = CheckHealthy({"--only", "container", "--env-file", env.string()});
  ASSERT_TRUE(bad.exit_code == 0 || bad.exit_code == 1) << bad.exit_code << bad.err;
  ParseStrict(bad.out);
}

TEST_F(HardeningE2eTest, CaptureBytesThatAreNotUtf8) {
  std::string xml = ReadText(Fixture("offline-capture") / "capture.xml");
  size_t name = xml.find("<product_name>");
  ASSERT_NE(name, std::string::npos);
  xml.insert(name + 14, "\xc0\xaf\xed\xa0\x80 ");
  WriteText(dir_ / "capture.xml", xml);
  RunResult r = Gpuvet({"check", "--nvidia-smi-xml", (dir_ / "capture.xml").string(), "--format",
                        "json", "--now", "2026-01-01T00:00:00Z"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << r.err;
  ParseStrict(r.out);
  EXPECT_NE(r.out.find(kFffd), std::string::npos);

  std::string txt = ReadText(Fixture("offline-capture-text") / "capture.txt");
  size_t product = txt.find("Product Name");
  ASSERT_NE(product, std::string::npos);
  size_t colon = txt.find(": ", product);
  txt.insert(colon + 2, "\xf8\x88\x80\x80\x80");
  WriteText(dir_ / "capture.txt", txt);
  RunResult t = Gpuvet({"check", "--nvidia-smi-q", (dir_ / "capture.txt").string(), "--format",
                        "json", "--now", "2026-01-01T00:00:00Z"});
  ASSERT_TRUE(t.exit_code == 0 || t.exit_code == 1) << t.exit_code << t.err;
  ParseStrict(t.out);
}

TEST_F(HardeningE2eTest, MalformedXmlIsAnInputErrorNeverFindings) {
  std::string xml = ReadText(Fixture("offline-capture") / "capture.xml");
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {xml + "<nvidia_smi_log><gpu/></nvidia_smi_log>", "a second top-level element"},
      {xml + "junk pasted after the capture", "text outside the root element"},
      {ReplaceFirst(xml, "<product_name>", "<product_name>A & B "), "'&' starts no entity"},
      {ReplaceFirst(xml, "<product_name>", std::string("<product_name>\x01")),
       "control character 0x01"},
      {xml.substr(0, xml.size() / 2), "malformed nvidia-smi XML at byte"},
  };
  for (const Case& c : cases) {
    WriteText(dir_ / "bad.xml", c.text);
    RunResult r = Gpuvet({"check", "--nvidia-smi-xml", (dir_ / "bad.xml").string()});
    EXPECT_EQ(r.exit_code, 2) << c.message << "\n" << r.out;
    EXPECT_TRUE(r.out.empty()) << "findings on malformed input: " << r.out.substr(0, 200);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("at byte"), std::string::npos) << r.err;
  }
}

TEST_F(HardeningE2eTest, TraceAndCsvLogBytesThatAreNotUtf8) {
  fs::path trace_in = Fixture("traces/compute-bound/input/rank0.pt.trace.json");
  std::string trace = ReadText(trace_in);
  size_t kernel = trace.find("\"cat\":\"kernel\"");
  ASSERT_NE(kernel, std::string::npos);
  size_t nm = trace.find("\"name\":\"", kernel);
  ASSERT_NE(nm, std::string::npos);
  trace.insert(nm + 8, "\xff\xfe");
  WriteText(dir_ / "t.json", trace);
  RunResult r = Gpuvet({"trace", (dir_ / "t.json").string(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ParseStrict(r.out);

  std::string csv =
      ReadText(fs::path(GPUVET_SOURCE_DIR) / "tests/data/smi-logs/query-gpu-units.csv");
  size_t line2 = csv.find('\n');
  ASSERT_NE(line2, std::string::npos);
  size_t comma = csv.find(", ", line2 + 1);
  csv.insert(comma + 2, "\xe9");
  WriteText(dir_ / "log.csv", csv);
  RunResult imp =
      Gpuvet({"import", (dir_ / "log.csv").string(), "-o", (dir_ / "log.gpuvet").string()});
  if (imp.exit_code == 0) {
    RunResult a = Gpuvet({"analyze", (dir_ / "log.gpuvet").string(), "--format", "json"});
    ASSERT_TRUE(a.exit_code == 0 || a.exit_code == 1) << a.exit_code << a.err;
    ParseStrict(a.out);
  } else {
    // A damaged row may be refused, but as an input error with a message.
    EXPECT_EQ(imp.exit_code, 2) << imp.err;
    EXPECT_FALSE(imp.err.empty());
  }
}

TEST_F(HardeningE2eTest, FleetReportsWithNumbersThatDoNotFitAreSkipped) {
  fs::path src = fs::path(GPUVET_FIXTURES_DIR) / "fleet/day/reports";
  fs::path reports = dir_ / "reports";
  fs::copy(src, reports, fs::copy_options::recursive);
  std::string check = ReadText(src / "gpu-node-03/check-2026-01-01T230000Z.json");
  WriteText(reports / "gpu-node-03/check-2026-01-01T231000Z.json",
            ReplaceFirst(check, "\"gen\": 1", "\"gen\": 1e999999"));
  WriteText(reports / "gpu-node-03/check-2026-01-01T232000Z.json",
            ReplaceFirst(check, "\"width\": 16", "\"width\": 123456789012345678901234567890"));
  RunResult r = Gpuvet({"fleet", "audit", "--reports", reports.string(), "--now",
                        "2026-01-02T00:00:00Z", "--format", "json"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << r.err;
  nlohmann::json j = ParseStrict(r.out);
  int overflow = 0, huge = 0;
  for (const auto& s : j["skipped"]) {
    std::string why = s.dump();
    if (why.find("231000Z") != std::string::npos && why.find("does not fit") != std::string::npos)
      ++overflow;
    if (why.find("232000Z") != std::string::npos &&
        why.find("gpus[0].pcie.width: 1.2345678901234568e+29 does not fit") != std::string::npos)
      ++huge;
  }
  EXPECT_EQ(overflow, 1) << j["skipped"].dump(1);
  EXPECT_EQ(huge, 1) << j["skipped"].dump(1);
  // The rest of the fleet is still judged.
  EXPECT_GE(j["nodes"].size(), 8u);
}

// Every refusal names the file, line and column, then says what was expected.
TEST_F(HardeningE2eTest, PoliciesThatWouldSwitchChecksOffAreRefused) {
  struct Case {
    std::string toml, where, what;
  };
  const Case cases[] = {
      {"[thresholds]\npcie_replay_ber = nan\n",
       ":2:19: ", "'thresholds.pcie_replay_ber' must be a finite number"},
      {"[thresholds]\nmemory_available_min_pct = nan\n",
       ":2:28: ", "'thresholds.memory_available_min_pct' must be a finite number"},
      {"[thresholds]\nretired_pages_fail = -3\n",
       ":2:22: ", "'thresholds.retired_pages_fail' must be between 1 and 100000, got -3"},
      {"[fleet]\nthermal_share_warn = 0.5\nthermal_share_fail = 0.2\n",
       ":2:22: ", "thermal_share_warn"},
      {"[severity]\n\"ecc.mode\" = \"critical\"\n", ":2:14: ",
       "severity for 'ecc.mode' must be one of \"ok\", \"info\", \"warn\", \"fail\", \"unknown\""},
      {"# \xff\n", ":1:3: ", "byte 0xff is not UTF-8"},
  };
  for (const Case& c : cases) {
    WriteText(dir_ / "policy.toml", c.toml);
    RunResult r = CheckHealthy({"--policy", (dir_ / "policy.toml").string()});
    EXPECT_EQ(r.exit_code, 2) << c.toml << r.out;
    std::string where = (dir_ / "policy.toml").string() + c.where;
    size_t at = r.err.find(where);
    ASSERT_NE(at, std::string::npos) << c.toml << r.err;
    EXPECT_NE(r.err.find(c.what, at + where.size()), std::string::npos) << c.toml << r.err;
  }
}

}  // namespace
}  // namespace gpuvet::e2e
