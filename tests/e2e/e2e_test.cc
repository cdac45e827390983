// End-to-end golden tests: for every fixture in tests/fixtures/NAME, run the real binary
//   gpuvet check --root NAME/root [--kernel-log NAME/kernel.log] [--policy NAME/policy.toml]
//                [--nvidia-smi-xml NAME/capture.xml | --nvidia-smi-q NAME/capture.txt]
//                $(cat NAME/args) --now … --format text|json
// with the fake NVML answering from NAME/nvml.json, and compare stdout with NAME/expected.txt and
// NAME/expected.json (paths replaced by <fixture> and <fake-nvml>). The findings listed in
// NAME/README.md as "- `id` severity" must appear in the JSON. GPUVET_UPDATE_GOLDEN=1 rewrites
// the goldens instead of comparing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "core/bottleneck.h"
#include "core/catalogue.h"
#include "core/fleet_catalogue.h"
#include "run_binary.h"

namespace fs = std::filesystem;
using gpuvet::e2e::RunBinary;
using gpuvet::e2e::RunResult;

namespace {

constexpr const char* kNow = "2026-01-01T00:00:00Z";

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteText(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

// Subdirectories of `root` that hold a README.md (one fixture each).
std::vector<std::string> FixturesIn(const fs::path& root) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.is_directory() && fs::exists(e.path() / "README.md")) {
      names.push_back(e.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> Fixtures() { return FixturesIn(GPUVET_FIXTURES_DIR); }

fs::path TraceFixturesDir() { return fs::path(GPUVET_FIXTURES_DIR) / "traces"; }

fs::path BenchFixturesDir() { return fs::path(GPUVET_FIXTURES_DIR) / "bench"; }

// "- `id` severity …" lines of a fixture README, checked against a JSON report's findings.
void ExpectPromisedFindings(const std::string& name, const fs::path& readme_path,
                            const nlohmann::json& report) {
  std::string readme = ReadText(readme_path);
  std::regex line(R"(- `([a-z_]+\.[a-z_]+)` (ok|info|warn|fail|unknown)\b.*)");
  int promised = 0;
  std::istringstream lines(readme);
  for (std::string text; std::getline(lines, text);) {
    std::smatch m;
    if (!std::regex_match(text, m, line)) continue;
    ++promised;
    std::string id = m[1], sev = m[2];
    bool found = false;
    for (const auto& f : report["findings"]) {
      if (f["id"] == id && f["severity"] == sev) found = true;
    }
    EXPECT_TRUE(found) << name << ": README promises " << id << " " << sev;
  }
  EXPECT_GT(promised, 0) << name << ": README lists no expected findings";
}

bool Updating() {
  const char* v = std::getenv("GPUVET_UPDATE_GOLDEN");
  return v && *v && std::string(v) != "0";
}

struct FixtureRun {
  RunResult result;
  std::string scrubbed;
};

// Builds the command line for one fixture and runs it.
FixtureRun RunFixture(const std::string& name, const std::string& format) {
  fs::path dir = fs::path(GPUVET_FIXTURES_DIR) / name;
  std::vector<std::string> argv = {GPUVET_BINARY, "check", "--now", kNow, "--format", format};
  std::vector<std::string> env;
  if (fs::exists(dir / "capture.xml")) {
    argv.insert(argv.end(), {"--nvidia-smi-xml", (dir / "capture.xml").string()});
  } else if (fs::exists(dir / "capture.txt")) {
    argv.insert(argv.end(), {"--nvidia-smi-q", (dir / "capture.txt").string()});
  } else {
    argv.insert(argv.end(), {"--root", (dir / "root").string()});
  }
  if (fs::exists(dir / "nvml.json")) {
    argv.insert(argv.end(), {"--nvml-lib", GPUVET_FAKE_NVML_LIB});
    env.push_back("GPUVET_FAKE_NVML_SCENARIO=" + (dir / "nvml.json").string());
  } else {
    // No driver on this "node": point at a library that does not exist.
    argv.insert(argv.end(), {"--nvml-lib", (dir / "no-driver/libnvidia-ml.so.1").string()});
  }
  if (fs::exists(dir / "kernel.log")) {
    argv.insert(argv.end(), {"--kernel-log", (dir / "kernel.log").string()});
  }
  if (fs::exists(dir / "policy.toml")) {
    argv.insert(argv.end(), {"--policy", (dir / "policy.toml").string()});
  }
  if (fs::exists(dir / "args")) {
    std::istringstream args(ReadText(dir / "args"));
    for (std::string a; args >> a;) argv.push_back(a);
  }
  // Git keeps no permission bits but the executable one: NAME/modes lists "MODE PATH" to apply.
  std::string run_root_copy;  // set when the tree was copied for an unprivileged run
  if (fs::exists(dir / "modes")) {
    std::istringstream modes(ReadText(dir / "modes"));
    for (std::string mode, path; modes >> mode >> path;) {
      fs::permissions(dir / path, static_cast<fs::perms>(std::stoi(mode, nullptr, 8)));
    }
  }
  // Fixtures that model an unprivileged user run under setpriv when the tests run as root. The
  // checkout may sit where nobody cannot reach it (e.g. under /root), so the binary and the tree
  // are copied to a world-readable temporary directory first.
  if (fs::exists(dir / "run_as_nobody") && geteuid() == 0) {
    std::string tmpl = (fs::temp_directory_path() / "gpuvet-e2e-XXXXXX").string();
    std::string tmp = mkdtemp(tmpl.data()) ? tmpl : "";
    if (!tmp.empty()) {
      fs::permissions(tmp, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
      fs::copy_file(GPUVET_BINARY, fs::path(tmp) / "gpuvet");
      fs::copy_file(GPUVET_FAKE_NVML_LIB, fs::path(tmp) / "libnvidia-ml.so.1");
      fs::copy(dir / "root", fs::path(tmp) / "root",
               fs::copy_options::recursive | fs::copy_options::copy_symlinks);
      argv[0] = (fs::path(tmp) / "gpuvet").string();
      for (std::string& a : argv) {
        a = ReplaceAll(a, (dir / "root").string(), tmp + "/root");
        a = ReplaceAll(a, GPUVET_FAKE_NVML_LIB, tmp + "/libnvidia-ml.so.1");
      }
      if (fs::exists(dir / "nvml.json")) {
        fs::copy_file(dir / "nvml.json", fs::path(tmp) / "nvml.json");
        for (std::string& e : env) {
          e = ReplaceAll(e, (dir / "nvml.json").string(), tmp + "/nvml.json");
        }
      }
      // the scrubbed output names the fixture, wherever the copy lives
      run_root_copy = tmp;
    }
    argv.insert(argv.begin(),
                {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"});
  }
  FixtureRun run;
  run.result = RunBinary(argv, env, 60);
  std::string out = run.result.out;
  if (!run_root_copy.empty()) {
    out = ReplaceAll(out, run_root_copy + "/libnvidia-ml.so.1", GPUVET_FAKE_NVML_LIB);
    out = ReplaceAll(out, run_root_copy + "/root", (dir / "root").string());
    fs::remove_all(run_root_copy);
  }
  run.scrubbed =
      ReplaceAll(ReplaceAll(out, dir.string(), "<fixture>"), GPUVET_FAKE_NVML_LIB, "<fake-nvml>");
  return run;
}

class FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureTest, MatchesGoldenOutputs) {
  const std::string name = GetParam();
  fs::path dir = fs::path(GPUVET_FIXTURES_DIR) / name;
  // The fixture's 0600 files must be unreadable to the user gpuvet runs as. Only root can drop to
  // another uid; a developer's own run would read their own files, so it cannot test this.
  if (fs::exists(dir / "run_as_nobody") &&
      (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0)) {
    GTEST_SKIP() << name << " needs root and /usr/bin/setpriv to run gpuvet as nobody (uid "
                 << geteuid() << ")";
  }
  FixtureRun json_run = RunFixture(name, "json");
  ASSERT_FALSE(json_run.result.timed_out) << name << " did not finish in 60 s";
  // Even a wedged NVML (nvml-hang) must not hold the check up: calls are time-bounded.
  EXPECT_LT(json_run.result.seconds, 10) << name;
  ASSERT_TRUE(json_run.result.exit_code == 0 || json_run.result.exit_code == 1)
      << name << " exited " << json_run.result.exit_code << "\nstderr: " << json_run.result.err;
  nlohmann::json report = nlohmann::json::parse(json_run.result.out);
  EXPECT_EQ(report["verdict"]["exit_code"].get<int>(), json_run.result.exit_code);

  FixtureRun text_run = RunFixture(name, "text");
  EXPECT_EQ(text_run.result.exit_code, json_run.result.exit_code);

  if (Updating()) {
    WriteText(dir / "expected.json", json_run.scrubbed);
    WriteText(dir / "expected.txt", text_run.scrubbed);
  } else {
    ASSERT_TRUE(fs::exists(dir / "expected.json"))
        << "no golden for " << name << "; run with GPUVET_UPDATE_GOLDEN=1";
    EXPECT_EQ(json_run.scrubbed, ReadText(dir / "expected.json"))
        << name << ": JSON differs from expected.json (GPUVET_UPDATE_GOLDEN=1 to accept)";
    EXPECT_EQ(text_run.scrubbed, ReadText(dir / "expected.txt"))
        << name << ": text differs from expected.txt (GPUVET_UPDATE_GOLDEN=1 to accept)";
  }

  // The README's promises: "- `id` severity [subject words]".
  ExpectPromisedFindings(name, dir / "README.md", report);
}

std::string GtestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;  // gtest names allow [A-Za-z0-9_]
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest, ::testing::ValuesIn(Fixtures()), GtestName);

// `gpuvet trace` over tests/fixtures/traces/NAME/input with goldens like the check fixtures.
class TraceFixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TraceFixtureTest, MatchesGoldenOutputs) {
  const std::string name = GetParam();
  fs::path dir = TraceFixturesDir() / name;
  std::string scrubbed[2];
  nlohmann::json report;
  const char* formats[2] = {"json", "text"};
  std::vector<std::string> base = {GPUVET_BINARY, "trace", (dir / "input").string()};
  if (fs::exists(dir / "args")) {  // extra flags, whitespace-separated ("--target b200")
    std::istringstream args(ReadText(dir / "args"));
    for (std::string a; args >> a;) base.push_back(a);
  }
  for (int i = 0; i < 2; ++i) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), {"--format", formats[i]});
    RunResult r = RunBinary(argv, {}, 60);
    ASSERT_EQ(r.exit_code, 0) << name << " " << formats[i] << ": " << r.err;
    scrubbed[i] = ReplaceAll(r.out, dir.string(), "<fixture>");
    if (i == 0) report = nlohmann::json::parse(r.out);
  }
  EXPECT_EQ(report["schema"], "gpuvet.trace/v1");
  if (Updating()) {
    WriteText(dir / "expected.json", scrubbed[0]);
    WriteText(dir / "expected.txt", scrubbed[1]);
  } else {
    ASSERT_TRUE(fs::exists(dir / "expected.json"))
        << "no golden for " << name << "; run with GPUVET_UPDATE_GOLDEN=1";
    EXPECT_EQ(scrubbed[0], ReadText(dir / "expected.json")) << name << ": JSON differs";
    EXPECT_EQ(scrubbed[1], ReadText(dir / "expected.txt")) << name << ": text differs";
  }
  ExpectPromisedFindings(name, dir / "README.md", report);
}

INSTANTIATE_TEST_SUITE_P(TraceFixtures, TraceFixtureTest,
                         ::testing::ValuesIn(FixturesIn(TraceFixturesDir())), GtestName);

// `gpuvet trace NAME/a --compare NAME/b` over tests/fixtures/trace-compare/NAME, goldens like the
// trace fixtures; every "- says: `text`" line of NAME/README.md must appear in the JSON answer.
fs::path TraceCompareFixturesDir() { return fs::path(GPUVET_FIXTURES_DIR) / "trace-compare"; }

class TraceCompareFixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TraceCompareFixtureTest, MatchesGoldenOutputs) {
  const std::string name = GetParam();
  fs::path dir = TraceCompareFixturesDir() / name;
  std::string scrubbed[2];
  nlohmann::json report;
  const char* formats[2] = {"json", "text"};
  for (int i = 0; i < 2; ++i) {
    RunResult r = RunBinary({GPUVET_BINARY, "trace", (dir / "a").string(), "--compare",
                             (dir / "b").string(), "--format", formats[i], "--color", "never"},
                            {}, 60);
    ASSERT_EQ(r.exit_code, 0) << name << " " << formats[i] << ": " << r.err;
    scrubbed[i] = ReplaceAll(r.out, dir.string(), "<fixture>");
    if (i == 0) report = nlohmann::json::parse(r.out);
  }
  EXPECT_EQ(report["schema"], "gpuvet.trace_compare/v1");
  if (Updating()) {
    WriteText(dir / "expected.json", scrubbed[0]);
    WriteText(dir / "expected.txt", scrubbed[1]);
  } else {
    ASSERT_TRUE(fs::exists(dir / "expected.json"))
        << "no golden for " << name << "; run with GPUVET_UPDATE_GOLDEN=1";
    EXPECT_EQ(scrubbed[0], ReadText(dir / "expected.json")) << name << ": JSON differs";
    EXPECT_EQ(scrubbed[1], ReadText(dir / "expected.txt")) << name << ": text differs";
  }
  std::string answer = report["answer"];
  std::istringstream lines(ReadText(dir / "README.md"));
  int promised = 0;
  const std::string prefix = "- says: `";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0 || line.back() != '`') continue;
    ++promised;
    std::string text = line.substr(prefix.size(), line.size() - prefix.size() - 1);
    EXPECT_NE(answer.find(text), std::string::npos)
        << name << ": the answer does not say «" << text << "»\nanswer: " << answer;
  }
  EXPECT_GT(promised, 0) << name << ": README lists nothing the answer must say";
}

INSTANTIATE_TEST_SUITE_P(TraceCompareFixtures, TraceCompareFixtureTest,
                         ::testing::ValuesIn(FixturesIn(TraceCompareFixturesDir())), GtestName);

TEST(CliTest, TraceCompareInputErrorsExitTwo) {
  fs::path good = TraceCompareFixturesDir() / "dataloader-in-b" / "a";
  RunResult missing = RunBinary(
      {GPUVET_BINARY, "trace", good.string(), "--compare", "/nonexistent/b.json"}, {}, 30);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("gpuvet trace --compare: "), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("/nonexistent/b.json"), std::string::npos) << missing.err;
  RunResult missing_a = RunBinary(
      {GPUVET_BINARY, "trace", "/nonexistent/a.json", "--compare", good.string()}, {}, 30);
  EXPECT_EQ(missing_a.exit_code, 2);
  EXPECT_NE(missing_a.err.find("/nonexistent/a.json"), std::string::npos) << missing_a.err;
}

TEST(CliTest, TraceCompareOnTheSharedResNetPairNamesTheDataLoader) {
  fs::path base = fs::path(GPUVET_SHARED_DATA_DIR) / "traces/kineto_tb_plugin";
  if (!fs::exists(base)) GTEST_SKIP() << "shared data not present: " << base;
  // workers=0 is DataLoader-bound, workers=4 is not: B must be faster through the DataLoader,
  // and the cuDNN algorithm changes between the runs must not be called the cause.
  RunResult r = RunBinary(
      {GPUVET_BINARY, "trace", (base / "resnet50_2021feb_num_workers_0").string(), "--compare",
       (base / "resnet50_2021feb_num_workers_4").string(), "--format", "json"},
      {}, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  std::string answer = j["answer"];
  EXPECT_NE(answer.find("faster per step"), std::string::npos) << answer;
  EXPECT_NE(answer.find("mostly in the DataLoader"), std::string::npos) << answer;
  EXPECT_NE(answer.find("not the cause"), std::string::npos) << answer;
  EXPECT_LT(j["change_pct"].get<double>(), -15);
}

// `gpuvet bench` over tests/fixtures/bench/NAME with the fake libcuda.so.1 answering from
// NAME/cuda.json (no cuda.json: a node without a driver), NAME/root as sysfs, NAME/policy.toml
// and NAME/args ("{fixture}" stands for the fixture directory); goldens like the check fixtures.
class BenchFixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BenchFixtureTest, MatchesGoldenOutputs) {
  const std::string name = GetParam();
  fs::path dir = BenchFixturesDir() / name;
  // --plan tiny: the fake driver copies every byte on the CPU, so quick-mode buffers would take
  // seconds per run; the optional libraries are switched off so the output does not depend on
  // whether this machine has cuBLASLt or NCCL installed.
  std::vector<std::string> base = {GPUVET_BINARY, "bench", "--now",  kNow,
                                   "--plan",      "tiny",  "--root", (dir / "root").string()};
  std::vector<std::string> env = {"GPUVET_CUBLASLT_LIB=none", "GPUVET_NCCL_LIB=none"};
  if (fs::exists(dir / "cuda.json")) {
    base.insert(base.end(), {"--cuda-lib", GPUVET_FAKE_CUDA_LIB});
    env.push_back("GPUVET_FAKE_CUDA_SCENARIO=" + (dir / "cuda.json").string());
  } else {
    base.insert(base.end(), {"--cuda-lib", (dir / "no-driver/libcuda.so.1").string()});
  }
  if (fs::exists(dir / "policy.toml")) {
    base.insert(base.end(), {"--policy", (dir / "policy.toml").string()});
  }
  if (fs::exists(dir / "args")) {
    std::istringstream args(ReadText(dir / "args"));
    for (std::string a; args >> a;) base.push_back(ReplaceAll(a, "{fixture}", dir.string()));
  }
  std::string scrubbed[2];
  int exit_codes[2] = {-1, -1};
  nlohmann::json report;
  const char* formats[2] = {"json", "text"};
  for (int i = 0; i < 2; ++i) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), {"--format", formats[i]});
    RunResult r = RunBinary(argv, env, 60);
    ASSERT_FALSE(r.timed_out) << name << " did not finish in 60 s";
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1)
        << name << " " << formats[i] << " exited " << r.exit_code << "\nstderr: " << r.err;
    exit_codes[i] = r.exit_code;
    scrubbed[i] = ReplaceAll(ReplaceAll(r.out, dir.string(), "<fixture>"), GPUVET_FAKE_CUDA_LIB,
                             "<fake-cuda>");
    // A hang reports how long the step and the call had been stuck: wall-clock, so scrubbed.
    scrubbed[i] = std::regex_replace(scrubbed[i], std::regex(R"(\b[0-9]+\.[0-9] s\b)"), "<t> s");
    if (i == 0) report = nlohmann::json::parse(r.out);
  }
  EXPECT_EQ(report["schema"], "gpuvet.bench/v1");
  EXPECT_EQ(report["verdict"]["exit_code"].get<int>(), exit_codes[0]);
  EXPECT_EQ(exit_codes[1], exit_codes[0]);
  if (Updating()) {
    WriteText(dir / "expected.json", scrubbed[0]);
    WriteText(dir / "expected.txt", scrubbed[1]);
  } else {
    ASSERT_TRUE(fs::exists(dir / "expected.json"))
        << "no golden for " << name << "; run with GPUVET_UPDATE_GOLDEN=1";
    EXPECT_EQ(scrubbed[0], ReadText(dir / "expected.json")) << name << ": JSON differs";
    EXPECT_EQ(scrubbed[1], ReadText(dir / "expected.txt")) << name << ": text differs";
  }
  ExpectPromisedFindings(name, dir / "README.md", report);
}

INSTANTIATE_TEST_SUITE_P(BenchFixtures, BenchFixtureTest,
                         ::testing::ValuesIn(FixturesIn(BenchFixturesDir())), GtestName);

// `gpuvet analyze` over tests/fixtures/analyze/NAME: make_recordings writes NAME.gpuvet into a
// per-process temp dir; NAME/args holds extra flags; goldens like the other fixtures (the temp dir
// is scrubbed to <recordings>); NAME/README.md promises the verdict as "verdict: `label`". The
// same samples written in schema version 2 (child tables) must give the same JSON.
fs::path AnalyzeFixturesDir() { return fs::path(GPUVET_FIXTURES_DIR) / "analyze"; }

fs::path RecordingsDir() {
  fs::path dir = fs::path(::testing::TempDir()) / (std::to_string(getpid()) + "-gpuvet_recordings");
  fs::create_directories(dir);
  return dir;
}

class AnalyzeFixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AnalyzeFixtureTest, MatchesGoldenOutputs) {
  const std::string name = GetParam();
  fs::path dir = AnalyzeFixturesDir() / name;
  fs::path out = RecordingsDir();
  RunResult made = RunBinary({GPUVET_MAKE_RECORDINGS, out.string(), name}, {}, 60);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  std::vector<std::string> base = {GPUVET_BINARY, "analyze", (out / (name + ".gpuvet")).string(),
                                   "--now", kNow};
  if (fs::exists(dir / "args")) {  // "{fixture}" stands for the fixture directory
    std::istringstream args(ReadText(dir / "args"));
    for (std::string a; args >> a;) base.push_back(ReplaceAll(a, "{fixture}", dir.string()));
  }
  std::string scrubbed[2];
  nlohmann::json report;
  const char* formats[2] = {"json", "text"};
  for (int i = 0; i < 2; ++i) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), {"--format", formats[i]});
    RunResult r = RunBinary(argv, {}, 60);
    ASSERT_EQ(r.exit_code, 0) << name << " " << formats[i] << ": " << r.err;
    scrubbed[i] = ReplaceAll(r.out, out.string(), "<recordings>");
    if (i == 0) report = nlohmann::json::parse(r.out);
  }
  // The same samples in the layout of schema version 2 (child tables): the same report.
  RunResult old =
      RunBinary({GPUVET_MAKE_RECORDINGS, out.string(), "--schema-version", "2", name}, {}, 60);
  ASSERT_EQ(old.exit_code, 0) << old.err;
  {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), {"--format", "json"});
    RunResult r = RunBinary(argv, {}, 60);
    ASSERT_EQ(r.exit_code, 0) << name << " version 2: " << r.err;
    EXPECT_EQ(ReplaceAll(r.out, out.string(), "<recordings>"), scrubbed[0])
        << name << ": a version 2 file gives another report";
  }
  fs::remove_all(out);
  EXPECT_EQ(report["schema"], "gpuvet.analyze/v1");
  if (Updating()) {
    WriteText(dir / "expected.json", scrubbed[0]);
    WriteText(dir / "expected.txt", scrubbed[1]);
  } else {
    ASSERT_TRUE(fs::exists(dir / "expected.json"))
        << "no golden for " << name << "; run with GPUVET_UPDATE_GOLDEN=1";
    EXPECT_EQ(scrubbed[0], ReadText(dir / "expected.json")) << name << ": JSON differs";
    EXPECT_EQ(scrubbed[1], ReadText(dir / "expected.txt")) << name << ": text differs";
  }
  std::smatch m;
  std::string readme = ReadText(dir / "README.md");
  ASSERT_TRUE(std::regex_search(readme, m, std::regex("verdict: `([a-z_]+)`")))
      << name << ": README promises no verdict";
  EXPECT_EQ(report["verdict"]["label"], m[1].str()) << name;
}

// Issue 14: a recording whose periodic stalls coincide with NFS outages in the kernel log names
// the server on the stalls and gives the storage decision; the control (the same samples without
// the kernel events) never mentions NFS. The goldens hold the whole outputs; this says what in
// them is the point.
TEST(AnalyzeCliTest, NfsOutagesDuringTheStallsNameTheServerAndTheControlDoesNot) {
  fs::path out = RecordingsDir();
  RunResult made = RunBinary({GPUVET_MAKE_RECORDINGS, out.string(), "nfs-checkpoint-stalls",
                              "checkpoint-stalls-no-kernel-events"},
                             {}, 60);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  auto analyze = [&](const std::string& name, const char* format) {
    RunResult r = RunBinary({GPUVET_BINARY, "analyze", (out / (name + ".gpuvet")).string(), "--now",
                             kNow, "--format", format},
                            {}, 60);
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    return r.out;
  };
  nlohmann::json nfs = nlohmann::json::parse(analyze("nfs-checkpoint-stalls", "json"));
  EXPECT_EQ(nfs["verdict"]["label"], "periodic_stall");
  EXPECT_EQ(nfs["verdict"]["detail"], "nfs_outage");
  std::string reason = nfs["verdict"]["reason"];
  EXPECT_NE(reason.find("every 10.0 min for 45.0 s (6 stalls"), std::string::npos) << reason;
  EXPECT_NE(reason.find("coinciding with `nfs: server fs1 not responding, still trying` each time"),
            std::string::npos)
      << reason;
  std::string decision = nfs["verdict"]["decision"];
  EXPECT_EQ(decision.rfind("Fix the storage path, not the job", 0), 0u) << decision;
  std::string text = analyze("nfs-checkpoint-stalls", "text");
  EXPECT_NE(text.find("nfs: server fs1 not responding"), std::string::npos) << text;

  nlohmann::json control =
      nlohmann::json::parse(analyze("checkpoint-stalls-no-kernel-events", "json"));
  EXPECT_EQ(control["verdict"]["label"], "periodic_stall");
  EXPECT_NE(control["verdict"]["detail"], "nfs_outage");
  for (const std::string& o :
       {control.dump(), analyze("checkpoint-stalls-no-kernel-events", "text")}) {
    std::string lower = o;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    EXPECT_EQ(lower.find("nfs"), std::string::npos) << o;
  }
  fs::remove_all(out);
}

// Unreadable recordings and bad flags: a message naming the file or flag, exit 2, no crash.
TEST(AnalyzeCliTest, BadInputExitsTwo) {
  fs::path out = RecordingsDir();
  RunResult made = RunBinary({GPUVET_MAKE_RECORDINGS, out.string(), "host-cpu-feeder"}, {}, 60);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  fs::path good = out / "host-cpu-feeder.gpuvet";

  RunResult missing = RunBinary({GPUVET_BINARY, "analyze", (out / "nope.gpuvet").string()}, {}, 60);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.gpuvet"), std::string::npos) << missing.err;

  WriteText(out / "garbled.gpuvet", "this is not a recording\n");
  RunResult garbled =
      RunBinary({GPUVET_BINARY, "analyze", (out / "garbled.gpuvet").string()}, {}, 60);
  EXPECT_EQ(garbled.exit_code, 2);
  EXPECT_NE(garbled.err.find("garbled.gpuvet"), std::string::npos) << garbled.err;

  std::string bytes = ReadText(good);
  for (size_t keep : {bytes.size() / 2, size_t{100}}) {
    WriteText(out / "truncated.gpuvet", bytes.substr(0, keep));
    RunResult cut =
        RunBinary({GPUVET_BINARY, "analyze", (out / "truncated.gpuvet").string()}, {}, 60);
    EXPECT_EQ(cut.exit_code, 2) << "kept " << keep << " bytes: " << cut.out;
    EXPECT_NE(cut.err.find("truncated.gpuvet"), std::string::npos) << cut.err;
  }

  RunResult target =
      RunBinary({GPUVET_BINARY, "analyze", good.string(), "--target", "Z9000"}, {}, 60);
  EXPECT_EQ(target.exit_code, 2);
  EXPECT_NE(target.err.find("H200"), std::string::npos) << target.err;  // lists known GPUs
  EXPECT_EQ(
      RunBinary({GPUVET_BINARY, "analyze", good.string(), "--price-per-gpu-hour", "-1"}, {}, 60)
          .exit_code,
      2);
  EXPECT_EQ(
      RunBinary({GPUVET_BINARY, "analyze", good.string(), "--format", "yaml"}, {}, 60).exit_code,
      2);
  EXPECT_EQ(RunBinary({GPUVET_BINARY, "analyze"}, {}, 60).exit_code, 2);
  fs::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(AnalyzeFixtures, AnalyzeFixtureTest,
                         ::testing::ValuesIn(FixturesIn(AnalyzeFixturesDir())), GtestName);

// Every catalogue entry is triggered (severity other than ok) by at least one fixture.
TEST(CatalogueCoverageTest, EveryCheckFiresInSomeFixture) {
  std::set<std::string> fired;
  std::vector<fs::path> goldens;
  for (const std::string& name : Fixtures()) {
    goldens.push_back(fs::path(GPUVET_FIXTURES_DIR) / name / "expected.json");
  }
  for (const std::string& name : FixturesIn(TraceFixturesDir())) {
    goldens.push_back(TraceFixturesDir() / name / "expected.json");
  }
  for (const std::string& name : FixturesIn(BenchFixturesDir())) {
    goldens.push_back(BenchFixturesDir() / name / "expected.json");
  }
  for (const fs::path& golden : goldens) {
    if (!fs::exists(golden)) continue;
    auto j = nlohmann::json::parse(ReadText(golden));
    for (const auto& f : j["findings"]) {
      if (f["severity"] != "ok") fired.insert(f["id"].get<std::string>());
    }
  }
  for (const gpuvet::CatalogueEntry& e : gpuvet::Catalogue()) {
    EXPECT_TRUE(fired.count(std::string(e.id))) << e.id << " is not triggered by any fixture";
  }
}

// --- Command-line behaviour outside the fixtures ---------------------------------------------

RunResult Gpuvet(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), GPUVET_BINARY);
  return RunBinary(args, env, 60);
}

TEST(CliTest, ChecksListsCatalogue) {
  RunResult r = Gpuvet({"checks"});
  EXPECT_EQ(r.exit_code, 0);
  for (const gpuvet::CatalogueEntry& e : gpuvet::Catalogue()) {
    EXPECT_NE(r.out.find(std::string(e.id)), std::string::npos) << e.id;
  }
  RunResult j = Gpuvet({"checks", "--format", "json"});
  // The check entries come first and are the catalogue; fleet ids and labels follow.
  nlohmann::json list = nlohmann::json::parse(j.out);
  size_t checks = 0;
  for (const nlohmann::json& e : list) checks += e["kind"] == "check";
  EXPECT_EQ(checks, gpuvet::Catalogue().size());
}

TEST(CliTest, ChecksListsFleetIdsAndLabelsAfterTheChecks) {
  RunResult r = Gpuvet({"checks"});
  EXPECT_EQ(r.exit_code, 0);
  // The check section keeps its layout; the new sections follow it.
  EXPECT_EQ(r.out.rfind("ID                           AREA       CHECKS\n", 0), 0u) << r.out;
  size_t fleet = r.out.find("\nFLEET ID ");
  size_t labels = r.out.find("\nLABEL ");
  ASSERT_NE(fleet, std::string::npos) << r.out;
  ASSERT_NE(labels, std::string::npos) << r.out;
  EXPECT_LT(fleet, labels);
  for (const gpuvet::CatalogueEntry& e : gpuvet::Catalogue()) {
    EXPECT_LT(r.out.find(std::string(e.id)), fleet) << e.id;
  }
  for (const gpuvet::FleetFindingInfo& f : gpuvet::FleetFindings()) {
    EXPECT_NE(r.out.find(std::string(f.id), fleet), std::string::npos) << f.id;
  }
  for (const gpuvet::BottleneckInfo& b : gpuvet::Bottlenecks()) {
    EXPECT_NE(r.out.find(std::string(b.id) + " ", labels), std::string::npos) << b.id;
  }

  // JSON: checks, then fleet ids, then every row of the bottleneck table, each with its kind.
  nlohmann::json list = nlohmann::json::parse(Gpuvet({"checks", "--format", "json"}).out);
  ASSERT_EQ(list.size(), gpuvet::Catalogue().size() + gpuvet::FleetFindings().size() +
                             gpuvet::Bottlenecks().size());
  size_t i = 0;
  for (const gpuvet::CatalogueEntry& e : gpuvet::Catalogue()) {
    EXPECT_EQ(list[i]["kind"], "check");
    EXPECT_EQ(list[i++]["id"], std::string(e.id));
  }
  for (const gpuvet::FleetFindingInfo& f : gpuvet::FleetFindings()) {
    EXPECT_EQ(list[i]["kind"], "fleet");
    EXPECT_EQ(list[i++]["id"], std::string(f.id));
  }
  for (const gpuvet::BottleneckInfo& b : gpuvet::Bottlenecks()) {
    EXPECT_EQ(list[i]["kind"], "label");
    EXPECT_EQ(list[i]["id"], std::string(b.id));
    EXPECT_EQ(list[i]["decision"], std::string(b.decision));
    EXPECT_FALSE(list[i++]["evidence"].get<std::string>().empty()) << b.id;
  }
}

TEST(CliTest, Explain) {
  RunResult r = Gpuvet({"explain", "pcie.link_width_reduced"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("What to do"), std::string::npos);
  RunResult bad = Gpuvet({"explain", "pcie.nope"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("did you mean"), std::string::npos);
}

TEST(CliTest, ExplainFleetIdsAndLabels) {
  // Issue 26: an Xid code answers from the Xid catalogue.
  RunResult xid = Gpuvet({"explain", "79"});
  EXPECT_EQ(xid.exit_code, 0) << xid.err;
  EXPECT_NE(xid.out.find("Xid 79"), std::string::npos) << xid.out;
  EXPECT_NE(xid.out.find("fallen off the bus"), std::string::npos) << xid.out;
  EXPECT_EQ(Gpuvet({"explain", "xid79"}).out, xid.out);
  EXPECT_EQ(Gpuvet({"explain", "9999"}).exit_code, 2);
  RunResult fleet = Gpuvet({"explain", "fleet.driver_drift"});
  EXPECT_EQ(fleet.exit_code, 0) << fleet.err;
  EXPECT_NE(fleet.out.find("fleet.driver_drift  (fleet finding)"), std::string::npos) << fleet.out;
  EXPECT_NE(fleet.out.find("What to do"), std::string::npos);

  RunResult label = Gpuvet({"explain", "host_cpu_bound"});
  EXPECT_EQ(label.exit_code, 0) << label.err;
  for (const char* want : {"What it means", "Evidence it needs", "What to do", "Sub-cases",
                           "host_cpu_bound/single_thread_feeder"}) {
    EXPECT_NE(label.out.find(want), std::string::npos) << want << "\n" << label.out;
  }
  RunResult sub = Gpuvet({"explain", "host_cpu_bound/cpu_quota"});
  EXPECT_EQ(sub.exit_code, 0) << sub.err;
  EXPECT_NE(sub.out.find(std::string(gpuvet::FindBottleneck("host_cpu_bound/cpu_quota")->decision)),
            std::string::npos)
      << sub.out;
  EXPECT_EQ(Gpuvet({"explain", "periodic_stall"}).exit_code, 0);
  EXPECT_EQ(Gpuvet({"explain", "insufficient_data"}).exit_code, 0);

  RunResult bad = Gpuvet({"explain", "host_cpu_bound/nope"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("did you mean: host_cpu_bound"), std::string::npos) << bad.err;
  RunResult bad_fleet = Gpuvet({"explain", "fleet.nope"});
  EXPECT_EQ(bad_fleet.exit_code, 2);
  EXPECT_NE(bad_fleet.err.find("fleet.driver_drift"), std::string::npos) << bad_fleet.err;
}

// One answer per label: `explain trace.X` prints the label X's meaning and decision.
TEST(CliTest, ExplainTraceLabelAgreesWithTheLabel) {
  for (const char* label : {"launch_bound", "idle", "host_cpu_bound", "comm_bound"}) {
    RunResult finding = Gpuvet({"explain", std::string("trace.") + label});
    RunResult row = Gpuvet({"explain", label});
    ASSERT_EQ(finding.exit_code, 0) << label << finding.err;
    ASSERT_EQ(row.exit_code, 0) << label << row.err;
    const gpuvet::BottleneckInfo* b = gpuvet::FindBottleneck(label);
    ASSERT_NE(b, nullptr);
    for (const RunResult* r : {&finding, &row}) {
      EXPECT_NE(r->out.find(std::string(b->meaning)), std::string::npos) << label << r->out;
      EXPECT_NE(r->out.find(std::string(b->decision)), std::string::npos) << label << r->out;
    }
  }
}

TEST(CliTest, UsageErrorsExitTwo) {
  fs::path tmp =
      fs::path(::testing::TempDir()) / (std::to_string(getpid()) + "-gpuvet_e2e_bad_policy.toml");
  WriteText(tmp, "[gpu]\nexpected_count = \"eight\"\n");
  RunResult policy = Gpuvet({"check", "--policy", tmp.string()});
  EXPECT_EQ(policy.exit_code, 2);
  EXPECT_NE(policy.err.find(tmp.string() + ":2:"), std::string::npos) << policy.err;

  EXPECT_EQ(Gpuvet({"check", "--kernel-log", "/nonexistent.log"}).exit_code, 2);
  EXPECT_EQ(Gpuvet({"check", "--root", "/nonexistent-root"}).exit_code, 2);
  EXPECT_EQ(Gpuvet({"check", "--only", "pcie.nope"}).exit_code, 2);
  EXPECT_EQ(Gpuvet({"check", "--format", "yaml"}).exit_code, 2);
  EXPECT_EQ(Gpuvet({"check", "--bogus-flag"}).exit_code, 2);
  EXPECT_EQ(Gpuvet({}).exit_code, 2);
}

// A mistyped command names the closest one instead of CLI11's "A subcommand is required".
TEST(CliTest, UnknownCommandSuggestsTheClosest) {
  RunResult typo = Gpuvet({"chek"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_EQ(typo.err, "gpuvet: unknown command 'chek' — did you mean check?\n");
  EXPECT_EQ(typo.out, "");
  RunResult far = Gpuvet({"kubernetes", "--now", "x"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err, "gpuvet: unknown command 'kubernetes'; `gpuvet --help` lists the commands\n");
  EXPECT_EQ(Gpuvet({"checks"}).exit_code, 0);  // a real command is not second-guessed
}

// --version names the version and the commit (git at configure time, "unknown" outside git).
TEST(CliTest, VersionNamesTheCommit) {
  RunResult v = Gpuvet({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_TRUE(std::regex_match(
      v.out, std::regex(R"(gpuvet \d+\.\d+\.\d+ \(commit ([0-9a-f]{7,40}|unknown)\)\n)")))
      << v.out;
}

// A --now that does not parse is a usage error naming the flag and the accepted form, on every
// command that takes it, instead of silently meaning "now". Checked before anything is measured.
TEST(CliTest, BadNowIsAUsageError) {
  for (const char* bad : {"yesterday", "2026-02-30T00:00:00Z", "2026-01-01T00:00:00Zjunk"}) {
    for (std::vector<std::string> args :
         {std::vector<std::string>{"check"}, {"bench"}, {"analyze", "/nonexistent/x.gpuvet"}}) {
      const std::string command = args[0];
      args.insert(args.end(), {"--now", bad});
      RunResult r = Gpuvet(args);
      EXPECT_EQ(r.exit_code, 2) << command << " --now " << bad << ": " << r.out << r.err;
      EXPECT_NE(r.err.find("gpuvet " + command + ": --now: '" + bad + "' is not an ISO 8601 time"),
                std::string::npos)
          << r.err;
      EXPECT_NE(r.err.find("expected the form 2026-01-01T00:00:00Z"), std::string::npos) << r.err;
    }
  }
}

TEST(CliTest, DumpNvmlReplaysToTheSameReport) {
  // A node recorded with `debug dump-nvml` must check exactly like the node itself.
  fs::path dir = fs::path(GPUVET_FIXTURES_DIR) / "ecc-dbe";
  std::string scenario_env = "GPUVET_FAKE_NVML_SCENARIO=" + (dir / "nvml.json").string();
  RunResult dump =
      Gpuvet({"debug", "dump-nvml", "--nvml-lib", GPUVET_FAKE_NVML_LIB}, {scenario_env});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  fs::path recorded =
      fs::path(::testing::TempDir()) / (std::to_string(getpid()) + "-gpuvet_e2e_dumped.json");
  WriteText(recorded, dump.out);
  std::vector<std::string> check = {"check",
                                    "--root",
                                    (dir / "root").string(),
                                    "--nvml-lib",
                                    GPUVET_FAKE_NVML_LIB,
                                    "--format",
                                    "json",
                                    "--now",
                                    kNow};
  RunResult original = Gpuvet(check, {scenario_env});
  RunResult replayed = Gpuvet(check, {"GPUVET_FAKE_NVML_SCENARIO=" + recorded.string()});
  EXPECT_EQ(original.exit_code, 1);
  EXPECT_EQ(replayed.exit_code, original.exit_code);
  EXPECT_EQ(replayed.out, original.out);
}

TEST(CliTest, EnvFileReplacesTheEnvironment) {
  // --env-file checks a job's saved environment against the node; a missing file is a usage error.
  fs::path dir = fs::path(GPUVET_FIXTURES_DIR) / "healthy-8gpu";
  fs::path env =
      fs::path(::testing::TempDir()) / (std::to_string(getpid()) + "-gpuvet_e2e_job.env");
  WriteText(env, "# saved from the job\nexport CUDA_VISIBLE_DEVICES=3,9\nHOME=/root\n");
  std::vector<std::string> check = {"check",
                                    "--root",
                                    (dir / "root").string(),
                                    "--nvml-lib",
                                    GPUVET_FAKE_NVML_LIB,
                                    "--only",
                                    "container",
                                    "--format",
                                    "json",
                                    "--env-file",
                                    env.string()};
  std::string scenario = "GPUVET_FAKE_NVML_SCENARIO=" + (dir / "nvml.json").string();
  RunResult r = Gpuvet(check, {scenario});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  int bad = 0;
  for (const auto& f : j["findings"]) {
    if (f["id"] == "container.visible_devices" && f["severity"] == "fail") ++bad;
  }
  EXPECT_EQ(bad, 1) << r.out;
  check.back() = "/nonexistent.env";
  RunResult missing = Gpuvet(check, {scenario});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--env-file /nonexistent.env"), std::string::npos) << missing.err;
  fs::remove(env);
}

TEST(CliTest, DumpNvmlWithoutDriverIsAnError) {
  RunResult r = Gpuvet({"debug", "dump-nvml", "--nvml-lib", "/nonexistent/libnvidia-ml.so.1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("NVML unavailable"), std::string::npos) << r.err;
}

TEST(CliTest, BenchUsageErrorsExitTwo) {
  fs::path tmp =
      fs::path(::testing::TempDir()) / (std::to_string(getpid()) + "-gpuvet_e2e_baseline.json");
  WriteText(tmp, "{\"schema\": \"gpuvet.bench/v1\", \"measurements\": [\n  {\"id\": ");
  RunResult garbled = Gpuvet({"bench", "--baseline", tmp.string()});
  EXPECT_EQ(garbled.exit_code, 2);
  EXPECT_NE(garbled.err.find(tmp.string() + ": not JSON at byte"), std::string::npos)
      << garbled.err;
  EXPECT_EQ(Gpuvet({"bench", "--baseline", "/nonexistent/baseline.json"}).exit_code, 2);
  EXPECT_EQ(Gpuvet({"bench", "--gpus", "0,x"}).exit_code, 2);
  EXPECT_EQ(Gpuvet({"bench", "--quick", "--full"}).exit_code, 2);
  EXPECT_EQ(Gpuvet({"bench", "--format", "yaml"}).exit_code, 2);
  EXPECT_EQ(Gpuvet({"bench", "--root", "/nonexistent-root"}).exit_code, 2);
  fs::remove(tmp);
}

// A GPU the driver does not report is a usage error naming the GPUs that exist, not a healthy run.
TEST(CliTest, BenchUnknownGpuExitsTwoNamingTheGpus) {
  const fs::path healthy = BenchFixturesDir() / "healthy-h100";
  RunResult r = Gpuvet({"bench", "--plan", "tiny", "--gpus", "5", "--cuda-lib",
                        GPUVET_FAKE_CUDA_LIB, "--root", (healthy / "root").string()},
                       {"GPUVET_FAKE_CUDA_SCENARIO=" + (healthy / "cuda.json").string(),
                        "GPUVET_CUBLASLT_LIB=none", "GPUVET_NCCL_LIB=none"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--gpus 5: no such GPU; the driver reports 1 GPU(s): 0 (NVIDIA H100 80GB "
                       "HBM3, 0000:1b:00.0)"),
            std::string::npos)
      << r.err;
}

// Issue 17: without a driver, --gpus 5 used to pass as a run that measured nothing.
TEST(CliTest, BenchUnknownGpuWithoutADriverExitsTwo) {
  RunResult r =
      Gpuvet({"bench", "--plan", "tiny", "--gpus", "5", "--cuda-lib", "/nonexistent/libcuda.so.1"},
             {"GPUVET_CUBLASLT_LIB=none", "GPUVET_NCCL_LIB=none"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--gpus 5: no such GPU, no CUDA device is visible"), std::string::npos)
      << r.err;
}

// A bench that could run nothing is not a pass: NOTHING MEASURED and exit 1 (no driver or no
// device), in text and in JSON.
TEST(CliTest, BenchThatMeasuredNothingIsNotHealthy) {
  RunResult text = Gpuvet(
      {"bench", "--plan", "tiny", "--color", "never", "--cuda-lib", "/nonexistent/libcuda.so.1"},
      {"GPUVET_CUBLASLT_LIB=none", "GPUVET_NCCL_LIB=none"});
  EXPECT_EQ(text.exit_code, 1) << text.out << text.err;
  EXPECT_NE(text.out.find("verdict: NOTHING MEASURED (no benchmark ran: "), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("HEALTHY"), std::string::npos) << text.out;
  RunResult json = Gpuvet(
      {"bench", "--plan", "tiny", "--format", "json", "--cuda-lib", "/nonexistent/libcuda.so.1"},
      {"GPUVET_CUBLASLT_LIB=none", "GPUVET_NCCL_LIB=none"});
  EXPECT_EQ(json.exit_code, 1);
  nlohmann::json report = nlohmann::json::parse(json.out);
  EXPECT_TRUE(report["verdict"]["nothing_measured"].get<bool>());
  EXPECT_FALSE(report["verdict"]["healthy"].get<bool>());
  EXPECT_EQ(report["verdict"]["exit_code"].get<int>(), 1);
}

TEST(CliTest, TraceInputErrors) {
  RunResult missing = Gpuvet({"trace", "/nonexistent/trace.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/trace.json"), std::string::npos) << missing.err;

  fs::path dir = fs::path(::testing::TempDir()) / (std::to_string(getpid()) + "-gpuvet_e2e_traces");
  fs::remove_all(dir);
  fs::create_directories(dir);
  WriteText(dir / "notes.json", "this is not JSON");
  RunResult garbage = Gpuvet({"trace", (dir / "notes.json").string()});
  EXPECT_EQ(garbage.exit_code, 2);
  EXPECT_NE(garbage.err.find("notes.json"), std::string::npos) << garbage.err;

  // A directory keeps what it can read and reports the rest.
  fs::copy_file(TraceFixturesDir() / "compute-bound/input/rank0.pt.trace.json",
                dir / "rank0.pt.trace.json");
  RunResult mixed = Gpuvet({"trace", dir.string(), "--format", "json"});
  ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
  auto j = nlohmann::json::parse(mixed.out);
  bool skipped = false;
  for (const auto& f : j["findings"]) {
    if (f["id"] == "trace.input" && f["severity"] == "warn" &&
        f["summary"].get<std::string>().find("notes.json") != std::string::npos) {
      skipped = true;
    }
  }
  EXPECT_TRUE(skipped) << mixed.out;

  // A FIFO would block reading; an empty file is not a trace: both a clear refusal, not a hang.
  const fs::path fifo = dir / "pipe.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  RunResult piped = Gpuvet({"trace", fifo.string()});
  EXPECT_EQ(piped.exit_code, 2);
  EXPECT_NE(piped.err.find("FIFO"), std::string::npos) << piped.err;
  WriteText(dir / "empty.json", "");
  RunResult empty = Gpuvet({"trace", (dir / "empty.json").string()});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("empty file"), std::string::npos) << empty.err;
  fs::remove_all(dir);
}

TEST(CliTest, TracesHtaCannotRead) {
  // The 2020 bare-list trace and the H100 doc traces without ProfilerStep (HTA fails on both).
  fs::path base = fs::path(GPUVET_SHARED_DATA_DIR) / "traces/kineto_tb_plugin";
  if (!fs::exists(base)) GTEST_SKIP() << "shared data not present: " << base;
  for (const fs::path& p :
       {base / "resnet50_2020dec_num_workers_0", base / "docs_traces/before_fix_trace.json",
        base / "docs_traces/after_fix_trace.json"}) {
    RunResult r = Gpuvet({"trace", p.string(), "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << p << ": " << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_NE(j["verdict"]["label"], "no_gpu_activity") << p;
  }
}

// A FIFO where a host file is expected is refused with a message, never read. Git cannot store
// a FIFO, so the test copies the pcie-x8 tree and makes them: at proc/pressure/io and at gpu1's
// AER counter file (each used to hang `check` forever), at dev/kmsg (the kernel log: unknown, never
// read as an empty log), and at dev/nvidia0 (device nodes are only checked for existence: it stays
// fine).
TEST(CliTest, FifoInTheHostTreeIsRefusedNotRead) {
  const fs::path fixture = fs::path(GPUVET_FIXTURES_DIR) / "pcie-x8";
  const fs::path tmp =
      fs::path(::testing::TempDir()) / (std::to_string(getpid()) + "-gpuvet_e2e_fifo");
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  fs::copy(fixture / "root", tmp / "root",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const fs::path root = tmp / "root";
  const fs::path aer =
      root / "sys/devices/pci0000:29/0000:29:01.0/0000:2a:00.0/aer_dev_correctable";
  for (const fs::path& p :
       {root / "proc/pressure/io", aer, root / "dev/kmsg", root / "dev/nvidia0"}) {
    ASSERT_TRUE(fs::remove(p)) << p;
    ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0) << p;
  }
  const std::vector<std::string> env = {"GPUVET_FAKE_NVML_SCENARIO=" +
                                        (fixture / "nvml.json").string()};
  RunResult r = RunBinary({GPUVET_BINARY, "check", "--root", root.string(), "--nvml-lib",
                           GPUVET_FAKE_NVML_LIB, "--now", kNow, "--format", "json"},
                          env, 20);
  ASSERT_FALSE(r.timed_out) << "check blocked on a FIFO";
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << "\n" << r.err;
  auto j = nlohmann::json::parse(r.out);
  auto find = [&](const std::string& id, const std::string& subject_part) -> nlohmann::json {
    for (const auto& f : j["findings"]) {
      if (f["id"] == id && f["subject"].get<std::string>().find(subject_part) != std::string::npos)
        return f;
    }
    return nullptr;
  };
  nlohmann::json psi = find("memory.pressure", "host");
  ASSERT_FALSE(psi.is_null()) << r.out;
  EXPECT_EQ(psi["severity"], "unknown");
  const std::string psi_summary = psi["summary"].get<std::string>();
  EXPECT_NE(psi_summary.find("proc/pressure/io: a FIFO (named pipe), not a regular file"),
            std::string::npos)
      << psi_summary;
  nlohmann::json aer_finding = find("pcie.aer_corrected", "0000:2a:00.0");
  ASSERT_FALSE(aer_finding.is_null()) << r.out;
  EXPECT_EQ(aer_finding["severity"], "unknown");
  EXPECT_NE(aer_finding["summary"].get<std::string>().find("aer_dev_correctable: a FIFO"),
            std::string::npos)
      << aer_finding;
  // The other GPUs' AER counters are still read and judged.
  nlohmann::json other = find("pcie.aer_corrected", "0000:18:00.0");
  ASSERT_FALSE(other.is_null());
  EXPECT_EQ(other["severity"], "ok");
  nlohmann::json nodes = find("device.nodes", "");
  ASSERT_FALSE(nodes.is_null()) << r.out;
  EXPECT_EQ(nodes["severity"], "ok") << nodes;
  // A FIFO at the default dev/kmsg is not the kernel log: unknown, not "no Xid events".
  nlohmann::json log_access = find("kernel.log_access", "");
  ASSERT_FALSE(log_access.is_null()) << r.out;
  EXPECT_EQ(log_access["severity"], "unknown") << log_access;
  EXPECT_NE(log_access["summary"].get<std::string>().find("/dev/kmsg: a FIFO (named pipe)"),
            std::string::npos)
      << log_access;

  // The text report says the same in words, and it also ends.
  RunResult text = RunBinary({GPUVET_BINARY, "check", "--root", root.string(), "--nvml-lib",
                              GPUVET_FAKE_NVML_LIB, "--now", kNow},
                             env, 20);
  ASSERT_FALSE(text.timed_out);
  EXPECT_NE(text.out.find("a FIFO (named pipe), not a regular file"), std::string::npos)
      << text.out;

  // A pipe the user names (`--policy <(…)`) is read to its end, not refused.
  const fs::path policy = tmp / "policy.toml";
  ASSERT_EQ(::mkfifo(policy.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(policy) << "[gpu]\nexpected_count = 8\n"; });
  RunResult piped = RunBinary(
      {GPUVET_BINARY, "check", "--root", root.string(), "--nvml-lib", GPUVET_FAKE_NVML_LIB, "--now",
       kNow, "--format", "json", "--policy", policy.string()},
      env, 20);
  writer.join();
  ASSERT_FALSE(piped.timed_out);
  EXPECT_TRUE(piped.exit_code == 0 || piped.exit_code == 1) << piped.err;
  EXPECT_EQ(nlohmann::json::parse(piped.out)["policy"], policy.string());
  fs::remove_all(tmp);
}

TEST(CliTest, TruncatedCaptureIsAnInputError) {
  fs::path src = fs::path(GPUVET_SHARED_DATA_DIR) / "nvidia-smi/telegraf/a100-sxm4-v12.xml";
  if (!fs::exists(src)) GTEST_SKIP() << "shared data not present: " << src;
  std::string xml = ReadText(src);
  fs::path tmp =
      fs::path(::testing::TempDir()) / (std::to_string(getpid()) + "-gpuvet_e2e_truncated.xml");
  WriteText(tmp, xml.substr(0, xml.size() / 2));
  RunResult r = Gpuvet({"check", "--nvidia-smi-xml", tmp.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(tmp.string()), std::string::npos) << r.err;
}

// What each real capture must give: the verdict, and findings as "id severity" (each must appear).
struct CaptureExpectation {
  const char* file;
  int exit_code;
  const char* verdict;
  std::vector<std::string> findings;
};

TEST(CliTest, RealCapturesRunOffline) {
  fs::path dir = fs::path(GPUVET_SHARED_DATA_DIR) / "nvidia-smi/telegraf";
  if (!fs::exists(dir)) GTEST_SKIP() << "shared data not present: " << dir;
  const std::vector<CaptureExpectation> expectations = {
      // `nvidia-smi -q -x -i 0` of a 4-GPU host: the other three were not captured, not lost.
      // MIG is enabled and the driver reports <remapped_rows>N/A: hidden, so unknown (it was
      // silently skipped, and the verdict read "warn").
      {"a100-sxm4-v12.xml",
       0,
       "unknown",
       // 1 of 4 attached GPUs and no sign of -i (issue 26): a GPU may be missing.
       {"driver.gpus_visible warn", "settings.persistence_mode warn", "mig.mode info",
        "pcie.link_width_reduced ok", "ecc.row_remap unknown"}},
      // AWS g5 (virtualization_mode Pass-Through): x8 of x16 with the slot unknown is a warning
      // to check the instance type, not a drain (issue 17).
      {"a10g.xml", 0, "warn", {"pcie.link_width_reduced warn", "driver.gpus_visible ok"}},
      {"dual_a5000-v13.xml", 0, "warn", {"ecc.mode warn", "pcie.link_gen_reduced info"}},
      // A sparse v10 capture: what it lacks is unknown, not healthy and not "not supported".
      {"gtx-1070-ti.xml",
       0,
       "unknown",
       {"pcie.link_gen_reduced unknown", "pcie.link_width_reduced unknown",
        "thermal.margin unknown", "power.limit unknown", "throttle.thermal unknown",
        "ecc.mode unknown", "driver.loaded ok"}},
      // A Dell workstation at x8 of x16: a capture has no slot data, so warn and say how to
      // confirm (the slot may be wired x8), never a fail.
      {"quadro-p2000-v12.xml", 0, "warn", {"pcie.link_width_reduced warn"}},
      {"rtx-3090-v12.xml", 0, "warn", {"power.limit warn", "pcie.link_gen_reduced info"}},
      // AWS g4dn (Pass-Through): as the A10G.
      {"tesla-t4.xml",
       0,
       "warn",
       {"pcie.link_width_reduced warn", "settings.persistence_mode warn"}},
  };
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".xml") continue;
    ++files;
    const std::string name = e.path().filename().string();
    auto it = std::find_if(expectations.begin(), expectations.end(),
                           [&](const CaptureExpectation& x) { return name == x.file; });
    ASSERT_NE(it, expectations.end()) << name << ": add what this capture must give";
    RunResult r = Gpuvet({"check", "--nvidia-smi-xml", e.path().string(), "--format", "json"});
    EXPECT_EQ(r.exit_code, it->exit_code) << name << ": " << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_FALSE(j["gpus"].empty()) << name;
    EXPECT_EQ(j["verdict"]["severity"], it->verdict) << name;
    std::set<std::string> got;
    for (const auto& f : j["findings"]) {
      got.insert(f["id"].get<std::string>() + " " + f["severity"].get<std::string>());
    }
    for (const std::string& want : it->findings) {
      EXPECT_TRUE(got.count(want)) << name << ": expected " << want;
    }
    // Nothing was opened from a capture, so nothing can be "missing from the driver".
    EXPECT_FALSE(got.count("driver.gpus_visible fail")) << name;
    // A reduced width from a capture names how to confirm it; in a VM capture it never says to
    // reseat or drain.
    for (const auto& f : j["findings"]) {
      if (f["id"] != "pcie.link_width_reduced" || f["severity"] != "warn") continue;
      const std::string decision = f["decision"].get<std::string>();
      const bool vm = name == "a10g.xml" || name == "tesla-t4.xml";
      EXPECT_NE(decision.find(vm ? "provider" : "lspci -vv"), std::string::npos) << name;
      if (vm) {
        EXPECT_EQ(decision.find("drain"), std::string::npos) << name << ": " << decision;
      }
    }
  }
  EXPECT_EQ(files, static_cast<int>(expectations.size()));
}

// The real captures: every GPU finding names its board (index, PCI address, serial, UUID) as the
// capture has it, the header prints the capture's own timestamp, and the sparse v10 capture's ten
// "not in the capture" unknowns are listed once.
TEST(CliTest, RealCapturesNameTheirGpusAndTheirTime) {
  fs::path dir = fs::path(GPUVET_SHARED_DATA_DIR) / "nvidia-smi/telegraf";
  if (!fs::exists(dir)) GTEST_SKIP() << "shared data not present: " << dir;
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".xml") continue;
    ++files;
    const std::string name = e.path().filename().string();
    std::smatch m;
    const std::string xml = ReadText(e.path());
    std::string stamp;
    if (std::regex_search(xml, m, std::regex("<timestamp>([^<]*)</timestamp>"))) stamp = m[1];

    RunResult r = Gpuvet({"check", "--nvidia-smi-xml", e.path().string(), "--format", "json"});
    auto j = nlohmann::json::parse(r.out);
    if (stamp.empty()) {
      EXPECT_TRUE(j["gpu_source"]["captured_at"].is_null()) << name;
    } else {
      EXPECT_EQ(j["gpu_source"]["captured_at"], stamp) << name;
    }
    int named = 0;
    for (const auto& f : j["findings"]) {
      const std::string subject = f["subject"].get<std::string>();
      if (subject.rfind("gpu", 0) != 0) continue;
      ASSERT_TRUE(f.contains("gpu")) << name << ": " << f["id"] << " " << subject;
      const auto& g = f["gpu"];
      ASSERT_TRUE(g["index"].is_number()) << name << ": " << subject;
      const auto& gpu = j["gpus"][g["index"].get<int>()];
      EXPECT_EQ(g["pci_bus_id"], gpu["pci_bus_id"]) << name << ": " << subject;
      EXPECT_NE(subject.find(gpu["pci_bus_id"].get<std::string>()), std::string::npos) << subject;
      const std::string serial = gpu["serial"].get<std::string>();
      if (serial.empty()) {
        EXPECT_TRUE(g["serial"].is_null()) << name;
      } else {
        EXPECT_EQ(g["serial"], serial) << name;
      }
      EXPECT_EQ(g["uuid"], gpu["uuid"]) << name;
      ++named;
    }
    EXPECT_GT(named, 0) << name;

    RunResult text = Gpuvet({"check", "--nvidia-smi-xml", e.path().string()});
    if (stamp.empty()) {
      EXPECT_NE(text.out.find("  taken:  not in the capture\n"), std::string::npos) << name;
    } else {
      EXPECT_NE(text.out.find("  taken:  " + stamp + " (the capture's timestamp)\n"),
                std::string::npos)
          << name << "\n"
          << text.out;
    }
    for (const auto& gpu : j["gpus"]) {
      const std::string serial = gpu["serial"].get<std::string>();
      if (!serial.empty() && text.out.find("  WARN ") != std::string::npos) {
        EXPECT_NE(text.out.find("serial " + serial), std::string::npos) << name << "\n" << text.out;
      }
    }
    if (name == "gtx-1070-ti.xml") {
      // Ten unknowns, one block: the shared meaning and decision once, every field listed.
      EXPECT_NE(text.out.find("capture     the 10 unknowns above"), std::string::npos) << text.out;
      EXPECT_NE(text.out.find("  UNKNOWN not in the capture  gpu0 (0000:01:00.0)\n"),
                std::string::npos)
          << text.out;
      EXPECT_NE(text.out.find("pcie_width_max, pcie_gen_max"), std::string::npos) << text.out;
      const std::string decision = "Ask for a full capture";
      EXPECT_EQ(text.out.find(decision), text.out.rfind(decision)) << text.out;
      EXPECT_EQ(text.out.find("UNKNOWN pcie."), std::string::npos) << text.out;
    }
  }
  EXPECT_GT(files, 0);
}

// What each real plain-text `nvidia-smi -q` report must give (../shared/data/nvidia-smi): read
// through --nvidia-smi-xml, which detects the text, so every file also proves the detection.
TEST(CliTest, RealTextCapturesRunOffline) {
  fs::path dir = fs::path(GPUVET_SHARED_DATA_DIR) / "nvidia-smi";
  if (!fs::exists(dir / "gpud")) GTEST_SKIP() << "shared data not present: " << dir;
  const std::vector<CaptureExpectation> expectations = {
      // Remapped rows pending (4 uncorrectable): reset the GPU.
      {"gpud/nvidia-smi-q.535.129.03.A10.txt", 1, "fail", {"ecc.row_remap fail"}},
      // HW power-brake slowdown on all eight GPUs; PCIe replays over budget.
      {"gpud/nvidia-smi-q.535.161.08.H100x8.txt",
       1,
       "fail",
       {"throttle.power_brake fail", "throttle.hw_slowdown fail", "pcie.replay_counter warn",
        "thermal.margin ok"}},
      {"gpud/nvidia-smi-q.535.183.01.H100x8.txt",
       1,
       "fail",
       {"throttle.power_brake fail", "pcie.replay_counter warn"}},
      // Cut off after 91 lines: 1 of 8 GPUs, read as far as it goes, the cut named.
      {"gpud/nvidia-smi-q.535.183.01.H100x8.INVALID.txt",
       0,
       "unknown",
       // Cut short (issue 26): "truncated", not a capture taken with -i.
       {"gpu.query_failed unknown", "driver.gpus_visible unknown", "pcie.replay_counter warn"}},
      {"gpud/nvidia-smi-q.560.35.03.TitanV.txt", 0, "warn", {"settings.persistence_mode warn"}},
      {"thamada_gls/A100SXMx4.nvidia-smi-q.txt", 1, "fail", {"ecc.row_remap fail"}},
      // One uncorrectable row remapped and applied: recorded, not a fault; the 700 W enforced
      // limit under a 900 W request is the Grace Hopper module budget.
      {"thamada_gls/GH200.nvidia-smi-q.txt",
       0,
       "info",
       {"ecc.row_remap info", "power.limit info", "thermal.margin ok"}},
      {"thamada_gls/H100SXMx8.nvidia-smi-q.txt", 0, "ok", {"thermal.margin ok"}},
      {"thamada_gls/H200.nvidia-smi-q.txt", 0, "ok", {"thermal.margin ok"}},
      {"thamada_gls/V100_x8.nvidia-smi-q.txt", 0, "info", {"thermal.margin ok"}},
      {"nvidia_gpu_exporter/windows-x86_64__nvidia-geforce-rtx-2080-super__610.62/"
       "load_query_q.txt",
       0,
       "ok",
       {"throttle.sw_power_cap ok", "thermal.margin ok"}},
  };
  for (const CaptureExpectation& e : expectations) {
    const fs::path file = dir / e.file;
    RunResult r = Gpuvet({"check", "--nvidia-smi-xml", file.string(), "--format", "json"});
    EXPECT_EQ(r.exit_code, e.exit_code) << e.file << ": " << r.err;
    EXPECT_NE(r.err.find("is `nvidia-smi -q` output, not `nvidia-smi -q -x`"), std::string::npos)
        << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["verdict"]["severity"], e.verdict) << e.file;
    EXPECT_EQ(j["gpu_source"]["origin"], "nvidia-smi-q (" + file.string() + ")");
    std::set<std::string> got;
    for (const auto& f : j["findings"]) {
      got.insert(f["id"].get<std::string>() + " " + f["severity"].get<std::string>());
    }
    for (const std::string& want : e.findings) {
      EXPECT_TRUE(got.count(want)) << e.file << ": expected " << want;
    }
  }
  // The same file through --nvidia-smi-q: no detection note.
  RunResult q =
      Gpuvet({"check", "--nvidia-smi-q", (dir / "gpud/nvidia-smi-q.535.129.03.A10.txt").string(),
              "--format", "json"});
  EXPECT_EQ(q.exit_code, 1) << q.err;
  EXPECT_EQ(q.err, "");
  // The plain `nvidia-smi` table is not a -q report: exit 2 saying what to capture.
  for (const char* table : {"gpud/nvidia-smi.550.90.07.txt", "thamada_gls/L4.nvidia-smi.txt"}) {
    for (const char* flag : {"--nvidia-smi-xml", "--nvidia-smi-q"}) {
      RunResult t = Gpuvet({"check", flag, (dir / table).string()});
      EXPECT_EQ(t.exit_code, 2) << table;
      EXPECT_NE(t.err.find("plain `nvidia-smi` summary table"), std::string::npos) << t.err;
      EXPECT_NE(t.err.find("nvidia-smi -q -x > FILE"), std::string::npos) << t.err;
    }
  }
}

// The text fixture and the XML reader agree: an XML capture read under --nvidia-smi-q is detected
// and read as XML, with a note.
TEST(CliTest, CaptureFlagsReadEitherFormat) {
  const std::string xml = std::string(GPUVET_FIXTURES_DIR) + "/offline-capture/capture.xml";
  RunResult r = Gpuvet({"check", "--nvidia-smi-q", xml, "--format", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("is `nvidia-smi -q -x` output, not `nvidia-smi -q`"), std::string::npos)
      << r.err;
  const std::string text = std::string(GPUVET_FIXTURES_DIR) + "/offline-capture-text/capture.txt";
  RunResult both = Gpuvet({"check", "--nvidia-smi-q", text, "--nvidia-smi-xml", xml});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;
  fs::path junk =
      fs::path(::testing::TempDir()) / (std::to_string(getpid()) + "-gpuvet_e2e_junk.txt");
  WriteText(junk, "hello\nworld\n");
  RunResult j = Gpuvet({"check", "--nvidia-smi-xml", junk.string()});
  EXPECT_EQ(j.exit_code, 2);
  EXPECT_NE(j.err.find("neither `nvidia-smi -q -x` XML"), std::string::npos) << j.err;
  fs::remove(junk);
}

TEST(CliTest, CaptureInputErrors) {
  fs::path empty =
      fs::path(::testing::TempDir()) / (std::to_string(getpid()) + "-gpuvet_e2e_empty.xml");
  WriteText(empty, "<nvidia_smi_log></nvidia_smi_log>\n");
  RunResult r = Gpuvet({"check", "--nvidia-smi-xml", empty.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("holds no <gpu> element"), std::string::npos) << r.err;
  WriteText(empty, "<nvidia_smi_log><attached_gpus>8</attached_gpus></nvidia_smi_log>\n");
  r = Gpuvet({"check", "--nvidia-smi-xml", empty.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("attached_gpus says 8"), std::string::npos) << r.err;
  fs::remove(empty);

  // Flags that read a live node do not apply to a capture from another host: say so.
  const std::string capture = std::string(GPUVET_FIXTURES_DIR) + "/offline-capture/capture.xml";
  for (std::vector<std::string> extra :
       {std::vector<std::string>{"--root", std::string(GPUVET_FIXTURES_DIR) + "/no-gpu/root"},
        std::vector<std::string>{"--pid", std::to_string(getpid())},
        std::vector<std::string>{"--env-file", capture}}) {
    std::vector<std::string> args = {"check", "--nvidia-smi-xml", capture};
    args.insert(args.end(), extra.begin(), extra.end());
    r = Gpuvet(args);
    EXPECT_EQ(r.exit_code, 2) << extra[0];
    EXPECT_NE(r.err.find(extra[0] + " reads a live node"), std::string::npos) << r.err;
  }
}

TEST(CliTest, SelectionsThatSelectNothing) {
  // Contradictions and ids of other commands are usage errors.
  for (std::vector<std::string> sel :
       {std::vector<std::string>{"--only", "numa", "--skip", "numa"},
        std::vector<std::string>{"--only", "ecc.mode", "--skip", "ecc"},
        std::vector<std::string>{"--only", "trace"},
        std::vector<std::string>{
            "--only", "numa", "--nvidia-smi-xml",
            std::string(GPUVET_FIXTURES_DIR) + "/offline-capture/capture.xml"}}) {
    std::vector<std::string> args = {"check", "--nvml-lib", "/nonexistent/libnvidia-ml.so.1"};
    args.insert(args.end(), sel.begin(), sel.end());
    RunResult r = Gpuvet(args);
    EXPECT_EQ(r.exit_code, 2) << sel[1];
    EXPECT_NE(r.err.find("selects no check"), std::string::npos) << r.err;
  }
  // On a capture, the kernel-log areas need the capture's kernel log: the error says so.
  const std::string capture = std::string(GPUVET_FIXTURES_DIR) + "/offline-capture/capture.xml";
  RunResult xid = Gpuvet({"check", "--nvidia-smi-xml", capture, "--only", "xid"});
  EXPECT_EQ(xid.exit_code, 2);
  EXPECT_NE(xid.err.find("need the capture's --kernel-log"), std::string::npos) << xid.err;
  // A valid selection with nothing to examine on this node is not "healthy".
  RunResult r = Gpuvet({"check", "--root", std::string(GPUVET_FIXTURES_DIR) + "/no-gpu/root",
                        "--nvml-lib", "/nonexistent/libnvidia-ml.so.1", "--only", "numa"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("verdict: NOTHING CHECKED"), std::string::npos) << r.out;
}

// nvmlInit_v2 or nvmlSystemGetDriverVersion hanging on a node whose module is loaded: the finding
// names the call that hung and advises what to do with a wedged driver, not "load the driver".
// A driver that does not answer fails the node (gpu.unresponsive; issue 17: it used to be an
// unknown driver.loaded, so a wedged node exited 0).
TEST(CliTest, HungNvmlInitAdvisesAWedgedDriverNotAnInstall) {
  for (const char* call : {"nvmlInit_v2", "nvmlSystemGetDriverVersion"}) {
    fs::path scenario = fs::path(::testing::TempDir()) /
                        (std::to_string(getpid()) + "-gpuvet_e2e_hung_" + call + ".json");
    WriteText(scenario, std::string(R"({"delays_ms": {")") + call +
                            R"(": 3000}, "gpus": [{"index": 0, "pci_bus_id": "0000:18:00.0"}]})");
    RunResult r =
        Gpuvet({"check", "--root", std::string(GPUVET_FIXTURES_DIR) + "/healthy-8gpu/root",
                "--nvml-lib", GPUVET_FAKE_NVML_LIB, "--nvml-timeout-ms", "200", "--only",
                "gpu.unresponsive", "--format", "json"},
               {"GPUVET_FAKE_NVML_SCENARIO=" + scenario.string()});
    fs::remove(scenario);
    ASSERT_EQ(r.exit_code, 1) << call << ": " << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["findings"].size(), 1u) << r.out;
    const auto& f = j["findings"][0];
    EXPECT_EQ(f["severity"], "fail") << call;
    const std::string summary = f["summary"].get<std::string>();
    EXPECT_NE(summary.find(call), std::string::npos) << summary;
    EXPECT_NE(summary.find("did not return within 200 ms"), std::string::npos) << summary;
    const std::string decision = f["decision"].get<std::string>();
    EXPECT_EQ(decision.find("modprobe"), std::string::npos) << decision;
    EXPECT_NE(decision.find("nvidia-bug-report.sh"), std::string::npos) << decision;
  }
}

TEST(CliTest, DumpNvmlHelpHasItsOwnExitCodes) {
  RunResult r = Gpuvet({"debug", "dump-nvml", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.find("unhealthy"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 scenario written"), std::string::npos) << r.out;
}

TEST(CliTest, RealKernelLogIsApplicationXidsOnly) {
  fs::path log = fs::path(GPUVET_SHARED_DATA_DIR) / "kmsg/dmesg.decode.iso.log.0";
  if (!fs::exists(log)) GTEST_SKIP() << "shared data not present: " << log;
  RunResult r = Gpuvet({"check", "--kernel-log", log.string(), "--only", "xid,kernel", "--nvml-lib",
                        "/nonexistent/libnvidia-ml.so.1", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  auto evidence = [](const nlohmann::json& f, const std::string& name) -> std::string {
    for (const auto& ev : f["evidence"]) {
      if (ev["name"] == name) return ev["value"].get<std::string>();
    }
    return "";
  };
  int xid13 = 0, xid43 = 0;
  for (const auto& f : j["findings"]) {
    EXPECT_NE(f["severity"], "fail") << f.dump();
    if (f["id"] != "xid.application") continue;
    EXPECT_NE(f["subject"].get<std::string>().find("0000:38:00.0"), std::string::npos);
    if (evidence(f, "xid") == "13") xid13 = std::stoi(evidence(f, "count"));
    if (evidence(f, "xid") == "43") xid43 = std::stoi(evidence(f, "count"));
  }
  EXPECT_EQ(xid13, 629);
  EXPECT_EQ(xid43, 7);
}

}  // namespace
