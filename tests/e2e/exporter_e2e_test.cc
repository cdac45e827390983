// End-to-end tests of `gpuvet exporter` and `gpuvet check --textfile` through the real binary,
// the fake NVML and fixture trees: a golden exposition (volatile values scrubbed), promtool on the
// exposition and on the alert rules, the HTTP surface, and load with slow clients.
// GPUVET_UPDATE_GOLDEN=1 rewrites the golden instead of comparing.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "exporter_process.h"
#include "run_binary.h"

namespace fs = std::filesystem;
using gpuvet::e2e::ExporterProcess;
using gpuvet::e2e::RunBinary;
using gpuvet::e2e::RunResult;

namespace {

constexpr const char* kPromtool = "/usr/bin/promtool";

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path Fixture(const std::string& name) { return fs::path(GPUVET_FIXTURES_DIR) / name; }

fs::path TempDir() {
  const char* base = std::getenv("GPUVET_TEST_TMPDIR");
  fs::path dir = fs::path(base != nullptr ? base : ::testing::TempDir()) /
                 ("exporter_e2e_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

// The environment of a child: the fake NVML scenario, and (under ASan) a small quarantine so the
// RSS measured is the program's, not the sanitizer's hold on freed memory.
std::vector<std::string> ChildEnv(const fs::path& scenario) {
  std::string asan = std::getenv("ASAN_OPTIONS") != nullptr ? std::getenv("ASAN_OPTIONS") : "";
  return {"GPUVET_FAKE_NVML_SCENARIO=" + scenario.string(),
          "ASAN_OPTIONS=" + asan + (asan.empty() ? "" : ":") +
              "quarantine_size_mb=1:thread_local_quarantine_size_kb=64"};
}

// Waits up to 20 s until the exporter's first collection has completed (it serves before that,
// stale). /readyz says "no collection has ..." until then.
void WaitCollected(int port) {
  httplib::Client client("127.0.0.1", port);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < end) {
    auto r = client.Get("/readyz");
    if (r && r->body.find("no collection has") == std::string::npos) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// An exporter over a fixture: its nvml.json, root/, and kernel.log / policy.toml when present.
// With `wait_collected`, returns once its first collection has completed.
std::unique_ptr<ExporterProcess> StartExporter(const std::string& fixture,
                                               std::vector<std::string> extra = {},
                                               bool wait_collected = true) {
  fs::path dir = Fixture(fixture);
  std::vector<std::string> argv = {
      GPUVET_BINARY,           "exporter",   "--listen",          "127.0.0.1:0", "--root",
      (dir / "root").string(), "--nvml-lib", GPUVET_FAKE_NVML_LIB};
  if (fs::exists(dir / "kernel.log")) {
    argv.insert(argv.end(), {"--kernel-log", (dir / "kernel.log").string()});
  }
  if (fs::exists(dir / "policy.toml")) {
    argv.insert(argv.end(), {"--policy", (dir / "policy.toml").string()});
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto p = std::make_unique<ExporterProcess>(argv, ChildEnv(dir / "nvml.json"));
  if (wait_collected && p->port() > 0) WaitCollected(p->port());
  return p;
}

// Replaces the values of series that change from run to run.
std::string Scrub(std::string text) {
  static const std::regex volatile_values(
      R"(^(gpuvet_exporter_(collection_duration_seconds|last_success_timestamp_seconds)) .*$)",
      std::regex::multiline);
  return std::regex_replace(text, volatile_values, "$1 <scrubbed>");
}

// `promtool check metrics` on `text`: returns "" when it passes, else its complaint.
std::string PromtoolCheckMetrics(const std::string& text) {
  fs::path file = TempDir() / "exposition.prom";
  std::ofstream(file, std::ios::binary) << text;
  RunResult r = RunBinary(
      {"/bin/sh", "-c", std::string(kPromtool) + " check metrics < " + file.string()}, {});
  return r.exit_code == 0 ? "" : r.out + r.err;
}

#define REQUIRE_PROMTOOL()                                                         \
  if (!fs::exists(kPromtool)) {                                                    \
    GTEST_SKIP() << "promtool not installed (Debian package prometheus): skipped"; \
  }

TEST(ExporterE2E, ServesTheGoldenExposition) {
  auto exporter = StartExporter("xid79-off-bus");
  ASSERT_GT(exporter->port(), 0) << exporter->stderr_text();
  httplib::Client client("127.0.0.1", exporter->port());
  auto res = client.Get("/metrics");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  std::string got = Scrub(res->body);
  fs::path golden = fs::path(GPUVET_E2E_DIR) / "exporter" / "xid79-off-bus.metrics";
  if (std::getenv("GPUVET_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden, std::ios::binary) << got;
  } else {
    EXPECT_EQ(got, ReadText(golden)) << "GPUVET_UPDATE_GOLDEN=1 rewrites " << golden;
  }
  // The gzip answer (what Prometheus asks for) is the same text in one gzip member.
  auto gz = client.Get("/metrics", {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(gz);
  EXPECT_EQ(gz->get_header_value("Content-Encoding"), "gzip");
  std::string unzipped = Scrub(gz->body);  // cpp-httplib's client inflated it
  size_t at = unzipped.find("gpuvet_exporter_scrapes_total 2\n");
  ASSERT_NE(at, std::string::npos) << unzipped;
  unzipped.replace(at, std::strlen("gpuvet_exporter_scrapes_total 2"),
                   "gpuvet_exporter_scrapes_total 1");
  EXPECT_EQ(unzipped, got);
  EXPECT_EQ(exporter->Stop(), 0) << exporter->stderr_text();
  EXPECT_NE(exporter->stderr_text().find("gpuvet exporter: stopped"), std::string::npos);
}

// A short --nvml-timeout-ms only where the fixture's NVML hangs: on a healthy one, a loaded CI
// machine running the sanitized build can take longer than 200 ms to answer nvmlInit (stop 22's
// CI failed that way), which the exporter rightly reports as a hang.
const char* HangTimeoutMs(std::string_view fixture) {
  return fixture == "nvml-hang" ? "200" : "20000";
}

TEST(ExporterE2E, ExpositionPassesPromtool) {
  REQUIRE_PROMTOOL();
  for (const char* fixture : {"xid79-off-bus", "healthy-8gpu", "no-driver", "nvml-hang"}) {
    auto exporter = StartExporter(fixture, {"--nvml-timeout-ms", HangTimeoutMs(fixture)});
    ASSERT_GT(exporter->port(), 0) << fixture << ": " << exporter->stderr_text();
    httplib::Client client("127.0.0.1", exporter->port());
    auto res = client.Get("/metrics");
    ASSERT_TRUE(res) << fixture;
    EXPECT_EQ(PromtoolCheckMetrics(res->body), "") << fixture;
  }
}

TEST(ExporterE2E, AlertRulesPassPromtool) {
  REQUIRE_PROMTOOL();
  fs::path rules = fs::path(GPUVET_SOURCE_DIR) / "deploy" / "prometheus" / "gpuvet-alerts.yml";
  ASSERT_TRUE(fs::exists(rules)) << rules;
  RunResult r = RunBinary({kPromtool, "check", "rules", rules.string()}, {});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("SUCCESS"), std::string::npos) << r.out;
  // Unit tests of the rules: each alert fires on the series it is about, and only then.
  r = RunBinary({"/bin/sh", "-c",
                 "cd " + rules.parent_path().string() + " && " + kPromtool +
                     " test rules gpuvet-alerts.test.yml"},
                {});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(ExporterE2E, IsReadOnlyAndAnswersHealth) {
  auto exporter = StartExporter("healthy-8gpu");
  ASSERT_GT(exporter->port(), 0) << exporter->stderr_text();
  httplib::Client client("127.0.0.1", exporter->port());
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200) << health->body;
  auto ready = client.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200) << ready->body;
  auto index = client.Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_NE(index->body.find("/metrics"), std::string::npos);
  auto head = client.Head("/metrics");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  for (const char* path : {"/metrics", "/healthz", "/readyz", "/livez", "/"}) {
    auto post = client.Post(path, "x", "text/plain");
    ASSERT_TRUE(post) << path;
    EXPECT_EQ(post->status, 405) << path;
    EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
    auto del = client.Delete(path);
    ASSERT_TRUE(del);
    EXPECT_EQ(del->status, 405) << path;
  }
  auto missing = client.Get("/debug/pprof");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  auto put = client.Put("/admin", "x", "text/plain");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 404);
}

// Readiness says why the values are not fresh; liveness stays 200 (a 503 liveness probe would
// restart the pod in a loop on a node whose GPU is wedged or absent).
TEST(ExporterE2E, ReadinessIs503WithTheReasonWhenNvmlHangsLivenessStays200) {
  auto exporter = StartExporter("nvml-hang", {"--nvml-timeout-ms", "200"});
  ASSERT_GT(exporter->port(), 0) << exporter->stderr_text();
  httplib::Client client("127.0.0.1", exporter->port());
  auto ready = client.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503);
  EXPECT_NE(ready->body.find("did not return within 200 ms"), std::string::npos) << ready->body;
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200) << health->body;
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("\ngpuvet_exporter_stale 1\n"), std::string::npos)
      << "the very first collection hung: nothing served is from a successful one";
}

// NVML blocks in nvmlInit for 30 s at start-up and the per-call timeout is 10 minutes: the
// exporter still serves at once (stale, unready, alive) and SIGTERM ends it within a second.
TEST(ExporterE2E, ServesAndStopsWithinASecondWhileTheFirstCollectionBlocks) {
  auto exporter = StartExporter("nvml-init-hang", {"--nvml-timeout-ms", "600000"},
                                /*wait_collected=*/false);
  ASSERT_GT(exporter->port(), 0) << exporter->stderr_text();
  httplib::Client client("127.0.0.1", exporter->port());
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200) << health->body;
  // Until the collector thread has begun its first collection, readiness says none has run; on a
  // loaded machine that can take a while, so wait for the in-flight state, unready all along.
  std::string reason;
  for (int i = 0; i < 200 && reason.find("completed yet") == std::string::npos; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto ready = client.Get("/readyz");
    ASSERT_TRUE(ready);
    EXPECT_EQ(ready->status, 503) << ready->body;
    reason = ready->body;
    EXPECT_EQ(reason.rfind("no collection has", 0), 0u) << reason;
  }
  EXPECT_NE(reason.find("no collection has completed yet (the first one has run for"),
            std::string::npos)
      << reason;
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("\ngpuvet_exporter_stale 1\n"), std::string::npos) << metrics->body;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(exporter->Stop(5), 0) << exporter->stderr_text();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  EXPECT_LT(ms, 1000) << "SIGTERM took " << ms << " ms";
  EXPECT_NE(exporter->stderr_text().find("abandoned"), std::string::npos)
      << exporter->stderr_text();
}

// The DaemonSet's probes: /readyz once a collection succeeded, /livez whenever the server
// answers, so a node whose GPU hangs or has no driver is never restarted in a loop.
TEST(ExporterE2E, KubernetesProbes) {
  struct Case {
    const char* fixture;
    int ready;
  };
  for (const Case& c :
       {Case{"healthy-8gpu", 200}, Case{"nvml-hang", 503}, Case{"no-driver", 503}}) {
    auto exporter = StartExporter(c.fixture, {"--nvml-timeout-ms", HangTimeoutMs(c.fixture)});
    ASSERT_GT(exporter->port(), 0) << c.fixture << ": " << exporter->stderr_text();
    httplib::Client client("127.0.0.1", exporter->port());
    auto ready = client.Get("/readyz");
    ASSERT_TRUE(ready) << c.fixture;
    EXPECT_EQ(ready->status, c.ready) << c.fixture << ": " << ready->body;
    auto live = client.Get("/livez");
    ASSERT_TRUE(live) << c.fixture;
    EXPECT_EQ(live->status, 200) << c.fixture;
    EXPECT_EQ(live->body, "ok\n");
  }
}

TEST(ExporterE2E, RejectsBadFlagsAndBusyPorts) {
  RunResult r = RunBinary({GPUVET_BINARY, "exporter", "--listen", "nowhere"}, {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--listen must be"), std::string::npos) << r.err;
  r = RunBinary({GPUVET_BINARY, "exporter", "--collect-interval", "5x"}, {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--collect-interval"), std::string::npos) << r.err;

  auto first = StartExporter("healthy-8gpu");
  ASSERT_GT(first->port(), 0);
  r = RunBinary({GPUVET_BINARY, "exporter", "--listen",
                 "127.0.0.1:" + std::to_string(first->port()), "--nvml-lib", GPUVET_FAKE_NVML_LIB},
                ChildEnv(Fixture("healthy-8gpu") / "nvml.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot listen on 127.0.0.1:" + std::to_string(first->port())),
            std::string::npos)
      << r.err;
}

TEST(ExporterE2E, StopsOnSigtermRightAfterItPrintsTheAddress) {
  for (int i = 0; i < 3; ++i) {
    auto exporter = StartExporter("healthy-8gpu");
    ASSERT_GT(exporter->port(), 0) << exporter->stderr_text();
    EXPECT_EQ(exporter->Stop(5), 0) << exporter->stderr_text();
  }
}

// Opens a TCP connection to the exporter and returns the socket (sends nothing).
int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

TEST(ExporterE2E, ConcurrentScrapesWithSlowAndSlowLorisClientsDoNotStallOrGrowMemory) {
  auto exporter = StartExporter("healthy-8gpu");
  ASSERT_GT(exporter->port(), 0) << exporter->stderr_text();
  const int port = exporter->port();

  // Slow clients: three connect and send nothing; two send a request and never read the reply.
  std::vector<int> slow;
  for (int i = 0; i < 3; ++i) slow.push_back(Connect(port));
  for (int i = 0; i < 2; ++i) {
    int fd = Connect(port);
    const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    ASSERT_EQ(write(fd, req, sizeof(req) - 1), static_cast<ssize_t>(sizeof(req) - 1));
    slow.push_back(fd);
  }
  for (int fd : slow) ASSERT_GE(fd, 0);
  // Slow-loris clients: 20 connections (more than cpp-httplib's old pool of 16 workers) that
  // each trickle a request header one byte every 100 ms, reconnecting when dropped.
  std::atomic<bool> loris_stop{false};
  std::thread loris([&] {
    std::vector<int> fds(20, -1);
    const std::string header = "GET /metrics HTTP/1.1\r\nX-Slow: ";
    std::vector<size_t> sent(fds.size(), 0);
    while (!loris_stop) {
      for (size_t i = 0; i < fds.size(); ++i) {
        if (fds[i] < 0) {
          fds[i] = Connect(port);
          sent[i] = 0;
        }
        const char c = sent[i] < header.size() ? header[sent[i]] : 'a';
        if (fds[i] >= 0 && send(fds[i], &c, 1, MSG_NOSIGNAL) != 1) {
          close(fds[i]);
          fds[i] = -1;
        }
        ++sent[i];
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (int fd : fds) {
      if (fd >= 0) close(fd);
    }
  });

  auto scrape_many = [port](int count, std::atomic<int>* failures, std::atomic<long>* worst_ms) {
    httplib::Client client("127.0.0.1", port);
    client.set_keep_alive(true);
    for (int i = 0; i < count; ++i) {
      auto start = std::chrono::steady_clock::now();
      auto res = client.Get("/metrics");
      long ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - start)
                    .count();
      if (!res || res->status != 200 ||
          res->body.find("gpuvet_exporter_scrapes_total") == std::string::npos) {
        ++*failures;
      }
      long prev = worst_ms->load();
      while (ms > prev && !worst_ms->compare_exchange_weak(prev, ms)) {
      }
    }
  };
  auto run = [&](int threads, int per_thread, std::atomic<int>* failures,
                 std::atomic<long>* worst_ms) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back(scrape_many, per_thread, failures, worst_ms);
    for (std::thread& t : pool) t.join();
  };

  std::atomic<int> failures{0};
  std::atomic<long> worst_ms{0};
  run(4, 100, &failures, &worst_ms);  // warm-up: allocator pools, thread stacks
  const long rss_warm = exporter->RssKib();
  run(4, 600, &failures, &worst_ms);
  const long rss_end = exporter->RssKib();
  EXPECT_EQ(failures.load(), 0);
  // A stalled scrape would wait for a slow client's 5 s read timeout.
  EXPECT_LT(worst_ms.load(), 3000) << "a scrape waited behind slow clients";
  ASSERT_GT(rss_warm, 0);
  EXPECT_LT(rss_end - rss_warm, 4096)
      << "RSS grew from " << rss_warm << " KiB to " << rss_end << " KiB over 2400 scrapes";
  for (int fd : slow) close(fd);
  loris_stop = true;
  loris.join();

  httplib::Client client("127.0.0.1", port);
  auto res = client.Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_NE(res->body.find("gpuvet_exporter_scrapes_total 2803\n"), std::string::npos)
      << "every scrape counted once (2800, the two slow readers and this one)";
  EXPECT_EQ(exporter->Stop(), 0) << exporter->stderr_text();
}

TEST(CheckTextfile, WritesTheCheckSeriesAtomically) {
  fs::path dir = TempDir();
  fs::path out = dir / "gpuvet.prom";
  fs::path f = Fixture("xid79-off-bus");
  RunResult r = RunBinary(
      {GPUVET_BINARY, "check", "--root", (f / "root").string(), "--kernel-log",
       (f / "kernel.log").string(), "--policy", (f / "policy.toml").string(), "--nvml-lib",
       GPUVET_FAKE_NVML_LIB, "--now", "2026-01-01T00:00:00Z", "--textfile", out.string()},
      ChildEnv(f / "nvml.json"));
  EXPECT_EQ(r.exit_code, 1) << r.err;  // the fixture fails
  std::string text = ReadText(out);
  EXPECT_NE(text.find("gpuvet_check_timestamp_seconds 1767225600\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gpuvet_check_status{check=\"gpu.lost\",subject=\"gpu6 (0000:ba:00.0)\"} 3"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gpuvet_node_info{hostname="), std::string::npos);
  EXPECT_EQ(text.find("gpuvet_gpu_power_watts"), std::string::npos) << "check series only";
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos)
        << "temporary file left behind: " << e.path();
  }
  if (fs::exists(kPromtool)) {
    EXPECT_EQ(PromtoolCheckMetrics(text), "");
  }

  r = RunBinary({GPUVET_BINARY, "check", "--textfile", (dir / "no/such/dir/x.prom").string()}, {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
}

}  // namespace

namespace {

// The Slurm HealthCheckProgram wrapper against a fake `scontrol` that records its argv (one
// "[arg]" per argument, a line per call) and answers `show node` with $FAKE_REASON.
class SlurmHealthCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        TempDir() /
        ("slurm_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
    log_ = dir_ / "scontrol.log";
    fs::path fake = dir_ / "scontrol";
    std::ofstream(fake) << "#!/bin/sh\n"
                           "for a in \"$@\"; do printf '[%s]' \"$a\" >> \"$FAKE_SCONTROL_LOG\"; "
                           "done\n"
                           "echo >> \"$FAKE_SCONTROL_LOG\"\n"
                           "if [ \"$1\" = show ] && [ -n \"$FAKE_REASON\" ]; then\n"
                           "  echo \"NodeName=node1 State=IDLE+DRAIN\"\n"
                           "  echo \"   Reason=$FAKE_REASON\"\n"
                           "fi\n";
    fs::permissions(fake, fs::perms::owner_all);
  }

  // Runs the wrapper over `fixture` with the current drain reason `reason` and returns the
  // scontrol calls made.
  std::string Run(const std::string& fixture, const std::string& reason,
                  const std::string& extra_args = "") {
    fs::path f = Fixture(fixture);
    std::string args = "--root " + (f / "root").string() + " --nvml-lib " + GPUVET_FAKE_NVML_LIB;
    if (fs::exists(f / "kernel.log")) args += " --kernel-log " + (f / "kernel.log").string();
    if (fs::exists(f / "policy.toml")) args += " --policy " + (f / "policy.toml").string();
    args += extra_args;
    fs::remove(log_);
    std::vector<std::string> env = ChildEnv(f / "nvml.json");
    env.insert(env.end(), {"GPUVET=" + std::string(GPUVET_BINARY), "GPUVET_ARGS=" + args,
                           "SCONTROL=" + (dir_ / "scontrol").string(), "GPUVET_NODE_NAME=node1",
                           "FAKE_SCONTROL_LOG=" + log_.string(), "FAKE_REASON=" + reason,
                           "GPUVET_TEXTFILE=" + (dir_ / "gpuvet.prom").string()});
    fs::path script = fs::path(GPUVET_SOURCE_DIR) / "deploy" / "slurm" / "gpuvet-healthcheck.sh";
    RunResult r = RunBinary({"/bin/sh", script.string()}, env);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    err_ = r.err;
    return ReadText(log_);
  }

  fs::path dir_, log_;
  std::string err_;
};

TEST_F(SlurmHealthCheck, DrainsWithTheFailingChecksAsReason) {
  std::string calls = Run("xid79-off-bus", "");
  EXPECT_EQ(calls,
            "[show][node][node1]\n"
            "[update][NodeName=node1][State=DRAIN][Reason=gpuvet: driver.gpus_visible host; "
            "gpu.count_expected host; gpu.lost gpu6 (0000:ba:00.0); pcie.link_width_reduced pci "
            "0000:db:00.0 upstream bridge 0000:da:01.0; pcie.aer_uncorrected pci 0000:db:00.0 "
            "up]\n")  // cut at REASON_MAX (200) characters
      << err_;
  EXPECT_TRUE(fs::exists(dir_ / "gpuvet.prom"));
}

TEST_F(SlurmHealthCheck, LeavesOtherPeoplesDrainsAlone) {
  EXPECT_EQ(Run("xid79-off-bus", "bad DIMM [admin@2026-01-01T00:00:00]"), "[show][node][node1]\n");
  EXPECT_EQ(Run("healthy-8gpu", "bad DIMM [admin@2026-01-01T00:00:00]"), "[show][node][node1]\n");
}

TEST_F(SlurmHealthCheck, ResumesOnlyItsOwnDrainWhenChecksPass) {
  EXPECT_EQ(Run("healthy-8gpu", "gpuvet: gpu.lost gpu6 [root@2026-01-01T00:00:00]"),
            "[show][node][node1]\n[update][NodeName=node1][State=RESUME]\n");
  EXPECT_EQ(Run("healthy-8gpu", ""), "[show][node][node1]\n");
}

// Issue 17: a node gpuvet drained for ECC used to be resumed as soon as its NVML hung, because a
// hang read as a pass with unknowns (exit 0). A hang now fails and keeps the node drained, and
// even a pass with unknowns (a policy lowering gpu.unresponsive) never resumes: only a clean pass.
TEST_F(SlurmHealthCheck, ResumesOnlyOnACleanPass) {
  const std::string ecc_drain = "gpuvet: ecc.volatile_dbe gpu2 [root@2026-01-01T00:00:00]";
  std::string calls = Run("nvml-hang", ecc_drain, " --nvml-timeout-ms 300");
  EXPECT_EQ(calls.find("State=RESUME"), std::string::npos) << calls;
  EXPECT_NE(calls.find("[State=DRAIN][Reason=gpuvet: gpu.unresponsive"), std::string::npos)
      << calls;

  fs::path lowered = dir_ / "lowered.toml";
  std::ofstream(lowered) << "[severity]\n\"gpu.unresponsive\" = \"unknown\"\n";
  calls = Run("nvml-hang", ecc_drain, " --nvml-timeout-ms 300 --policy " + lowered.string());
  EXPECT_EQ(calls, "[show][node][node1]\n") << "a pass with unknowns must not resume";
  EXPECT_NE(err_.find("not resuming node1 until a clean pass"), std::string::npos) << err_;
  EXPECT_NE(err_.find("gpu.unresponsive gpu2"), std::string::npos) << err_;

  EXPECT_EQ(Run("healthy-8gpu", ecc_drain),
            "[show][node][node1]\n[update][NodeName=node1][State=RESUME]\n");
}

// Issue 26: a GPU the driver counts but NVML cannot open (nvmlDeviceGetHandleByIndex answering
// UNKNOWN, GPU_IS_LOST or RESET_REQUIRED) used to read as "unknown" and pass: now each drains,
// with the finding of its code in the reason, and never resumes a gpuvet drain.
TEST_F(SlurmHealthCheck, DrainsOnAGpuNvmlCannotOpen) {
  for (const auto& [fixture, finding] : std::vector<std::pair<std::string, std::string>>{
           {"nvml-handle-unknown", "gpu.unresponsive gpu4"},
           {"nvml-handle-lost", "gpu.lost gpu4"},
           {"nvml-handle-reset", "gpu.reset_required gpu4"}}) {
    std::string calls = Run(fixture, "");
    EXPECT_NE(calls.find("[State=DRAIN][Reason=gpuvet: "), std::string::npos)
        << fixture << ": " << calls << err_;
    EXPECT_NE(calls.find(finding), std::string::npos) << fixture << ": " << calls;
    calls = Run(fixture, "gpuvet: gpu.lost gpu4 [root@2026-01-01T00:00:00]");
    EXPECT_EQ(calls.find("State=RESUME"), std::string::npos) << fixture << ": " << calls;
  }
}

TEST_F(SlurmHealthCheck, NeverDrainsWhenGpuvetCannotRun) {
  EXPECT_EQ(Run("xid79-off-bus", "", " --no-such-flag"), "");
  EXPECT_NE(err_.find("could not run (exit 2)"), std::string::npos) << err_;
}

}  // namespace

namespace {

fs::path DeployDir() { return fs::path(GPUVET_SOURCE_DIR) / "deploy"; }

// Every gpuvet_* name used by the dashboard and the alert rules is in the metric contract, so a
// renamed metric cannot silently empty a panel or disarm an alert.
TEST(DeployAssets, UseOnlyMetricsOfTheContract) {
  std::string contract = ReadText(fs::path(GPUVET_SOURCE_DIR) / "docs" / "metrics.md");
  ASSERT_FALSE(contract.empty());
  const std::regex name(R"(gpuvet_[a-z_]+)");
  for (const fs::path& file : {DeployDir() / "grafana" / "gpuvet-dashboard.json",
                               DeployDir() / "prometheus" / "gpuvet-alerts.yml"}) {
    std::string text = ReadText(file);
    ASSERT_FALSE(text.empty()) << file;
    int used = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), name), end; it != end; ++it) {
      ++used;
      const std::string n = it->str();
      EXPECT_TRUE(contract.find("`" + n + "`") != std::string::npos ||
                  contract.find("`" + n + "{") != std::string::npos)
          << it->str() << " in " << file << " is not in docs/metrics.md";
    }
    EXPECT_GT(used, 5) << file;
  }
}

TEST(DeployAssets, DashboardIsValidJsonWithQueriesOnEveryPanel) {
  nlohmann::json dash =
      nlohmann::json::parse(ReadText(DeployDir() / "grafana" / "gpuvet-dashboard.json"));
  ASSERT_TRUE(dash.contains("panels"));
  std::set<int> ids;
  for (const auto& panel : dash["panels"]) {
    EXPECT_TRUE(ids.insert(panel["id"].get<int>()).second) << "duplicate panel id";
    ASSERT_TRUE(panel.contains("targets")) << panel["title"];
    for (const auto& target : panel["targets"]) {
      EXPECT_NE(target["expr"].get<std::string>().find("gpuvet_"), std::string::npos);
    }
  }
}

TEST(DeployAssets, ShellAndSystemdFilesPassTheirCheckers) {
  fs::path script = DeployDir() / "slurm" / "gpuvet-healthcheck.sh";
  RunResult r = RunBinary({"/bin/sh", "-n", script.string()}, {});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (fs::exists("/usr/bin/shellcheck")) {
    r = RunBinary({"/usr/bin/shellcheck", "-s", "sh", script.string()}, {});
    EXPECT_EQ(r.exit_code, 0) << r.out;
  }
  if (!fs::exists("/usr/bin/systemd-analyze")) {
    GTEST_SKIP() << "systemd-analyze not installed: unit files not verified";
  }
  fs::path dir = TempDir() / "units";
  fs::create_directories(dir);
  for (const char* unit : {"gpuvet-exporter.service", "gpuvet-check.service"}) {
    // The binary is not installed here: point ExecStart at a program that exists.
    std::string text = ReadText(DeployDir() / "systemd" / unit);
    text = std::regex_replace(text, std::regex("/usr/local/bin/gpuvet"), "/bin/true");
    std::ofstream(dir / unit) << text;
    r = RunBinary({"/usr/bin/systemd-analyze", "verify", (dir / unit).string()}, {});
    EXPECT_EQ(r.out + r.err, "") << unit;
  }
}

}  // namespace
