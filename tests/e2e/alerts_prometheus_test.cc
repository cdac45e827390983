// The shipped alerting rules (deploy/prometheus/gpuvet-alerts.yml) in a real Prometheus
// (/usr/bin/prometheus, 1 s scrapes and rule evaluations, every `for:` shortened to 0s) scraping
// two real `gpuvet exporter`s fed by the fake NVML: on one, the first Xid 79 the GPU ever had is
// appended to its kernel log (the counter series starts at 1, which increase() alone never
// sees); on the other, the exporter comes back without a driver (every GPU gone, so a count of
// gpuvet_gpu_info is empty, not 0). GpuvetXidCritical and GpuvetGpuMissing must fire, read from
// /api/v1/alerts, and neither before its event. The DCGM compatibility rules are loaded too and
// must publish dcgm-exporter's names and labels. Skips with a message when Prometheus is missing.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "exporter_process.h"
#include "testing/temp_tree.h"

extern char** environ;

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kPrometheus = "/usr/bin/prometheus";
using Clock = std::chrono::steady_clock;

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Prometheus as a child with its output in a log file; SIGTERM then SIGKILL on destruction.
class PrometheusProcess {
 public:
  PrometheusProcess(const std::vector<std::string>& argv, const std::string& log) : log_(log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~PrometheusProcess() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  PrometheusProcess(const PrometheusProcess&) = delete;
  PrometheusProcess& operator=(const PrometheusProcess&) = delete;
  std::string Log() const { return ReadText(log_); }

 private:
  pid_t pid_ = -1;
  std::string log_;
};

json GetJson(int port, const std::string& path) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(1, 0);
  c.set_read_timeout(2, 0);
  auto res = c.Get(path);
  if (!res || res->status != 200) return json();
  return json::parse(res->body, nullptr, false);
}

// The value of an instant query for `instance`, or -1 when it has none.
double QueryFor(int port, const std::string& promql, const std::string& instance) {
  json j = GetJson(port, "/api/v1/query?query=" + httplib::detail::encode_query_param(promql));
  if (j.is_discarded() || !j.contains("data")) return -1;
  for (const json& r : j["data"]["result"]) {
    if (r["metric"].value("instance", "") == instance) {
      return std::stod(r["value"][1].get<std::string>());
    }
  }
  return -1;
}

// Firing alerts named `name`, from /api/v1/alerts.
std::vector<json> Firing(int port, const std::string& name) {
  std::vector<json> out;
  json j = GetJson(port, "/api/v1/alerts");
  if (j.is_discarded() || !j.contains("data")) return out;
  for (const json& a : j["data"]["alerts"]) {
    if (a["labels"].value("alertname", "") == name && a.value("state", "") == "firing") {
      out.push_back(a);
    }
  }
  return out;
}

// A loopback port that was free a moment ago (for Prometheus, which prints no port).
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// Polls `done` every 200 ms until it is true or `deadline` passes.
bool WaitFor(Clock::time_point deadline, const std::function<bool()>& done) {
  while (Clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return done();
}

TEST(AlertsPrometheusTest, FirstXidAndVanishedGpusFire) {
  if (access(kPrometheus, X_OK) != 0) {
    GTEST_SKIP() << kPrometheus << " is missing: install the Debian package `prometheus` to run "
                 << "the real-Prometheus alert test";
  }
  const auto started = Clock::now();
  gpuvet::test::TempTree tmp("alerts_prom");
  const fs::path fixture = fs::path(GPUVET_FIXTURES_DIR) / "healthy-8gpu";
  fs::copy(fixture / "root", tmp.Path("root"),
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const std::string scenario = "GPUVET_FAKE_NVML_SCENARIO=" + (fixture / "nvml.json").string();
  // One kernel log per node: only the Xid node's gets the Xid.
  for (const char* name : {"xid.log", "gone.log"}) {
    tmp.Write(name,
              "kern  :info  : 2026-01-01T09:59:58,000001+00:00 nvidia-modeset: Loading NVIDIA "
              "Kernel Mode Setting Driver for UNIX platforms  550.90.07\n");
  }
  const std::string kernel_log = tmp.Path("xid.log");

  auto exporter = [&](int port, const std::vector<std::string>& env, const std::string& log) {
    return std::make_unique<gpuvet::e2e::ExporterProcess>(
        std::vector<std::string>{GPUVET_BINARY, "exporter", "--listen",
                                 "127.0.0.1:" + std::to_string(port), "--root", tmp.Path("root"),
                                 "--nvml-lib", GPUVET_FAKE_NVML_LIB, "--kernel-log", log,
                                 "--collect-interval", "250ms"},
        env, 20);
  };
  // Port 0: each exporter picks a free port and prints it; the "gone" node comes back on its own.
  auto xid_node = exporter(0, {scenario}, kernel_log);
  auto gone_node = exporter(0, {scenario}, tmp.Path("gone.log"));
  ASSERT_GT(xid_node->port(), 0) << xid_node->stderr_text();
  ASSERT_GT(gone_node->port(), 0) << gone_node->stderr_text();
  const int xid_port = xid_node->port(), gone_port = gone_node->port();
  const std::string xid_instance = "127.0.0.1:" + std::to_string(xid_port);
  const std::string gone_instance = "127.0.0.1:" + std::to_string(gone_port);

  // The shipped rules with every `for:` at 0s, so the test waits for evaluations, not minutes.
  const std::string rules = std::regex_replace(
      ReadText(fs::path(GPUVET_SOURCE_DIR) / "deploy/prometheus/gpuvet-alerts.yml"),
      std::regex("for: [0-9]+[smh]"), "for: 0s");
  tmp.Write("gpuvet-alerts.yml", rules);
  // The DCGM compatibility rules too, over the real exporter's labels.
  const std::string dcgm_rules =
      (fs::path(GPUVET_SOURCE_DIR) / "deploy/prometheus/gpuvet-dcgm-compat.yml").string();
  tmp.Write("prometheus.yml",
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
            "  evaluation_interval: 1s\n"
            "rule_files: ['" +
                tmp.Path("gpuvet-alerts.yml") + "', '" + dcgm_rules +
                "']\n"
                "scrape_configs:\n  - job_name: gpuvet\n    static_configs:\n"
                "      - targets: ['" +
                xid_instance + "', '" + gone_instance + "']\n");
  const int prom_port = FreePort();
  PrometheusProcess prometheus(
      {kPrometheus, "--config.file=" + tmp.Path("prometheus.yml"),
       "--storage.tsdb.path=" + tmp.Path("tsdb"),
       "--web.listen-address=127.0.0.1:" + std::to_string(prom_port), "--log.level=warn"},
      tmp.Path("prometheus.log"));

  // Both nodes remembered with 8 GPUs, and several scrapes of each before anything happens.
  const bool ready = WaitFor(started + std::chrono::seconds(25), [&] {
    return QueryFor(prom_port, "instance:gpuvet_gpu_info:count", xid_instance) == 8 &&
           QueryFor(prom_port, "instance:gpuvet_gpu_info:count", gone_instance) == 8 &&
           QueryFor(prom_port, "DCGM_FI_DEV_COUNT", xid_instance) == 8 &&
           QueryFor(prom_port, "count_over_time(gpuvet_node_info[1m])", xid_instance) >= 3 &&
           QueryFor(prom_port, "count_over_time(gpuvet_node_info[1m])", gone_instance) >= 3;
  });
  ASSERT_TRUE(ready) << "Prometheus did not scrape both exporters in time\n" << prometheus.Log();
  // dcgm-exporter's names and labels from the real exposition (healthy-8gpu: 8 x H100).
  EXPECT_EQ(
      QueryFor(prom_port,
               "count by (instance) (DCGM_FI_DEV_SM_CLOCK{device=\"nvidia3\",modelName=~\"NVIDIA "
               "H100.*\",UUID=~\"GPU-.+\",Hostname!=\"\",DCGM_FI_DRIVER_VERSION!=\"\"})",
               xid_instance),
      1)
      << GetJson(prom_port, "/api/v1/query?query=DCGM_FI_DEV_SM_CLOCK").dump(1);
  EXPECT_TRUE(Firing(prom_port, "GpuvetXidCritical").empty());
  EXPECT_TRUE(Firing(prom_port, "GpuvetGpuMissing").empty());

  // The first Xid 79 of GPU 0 (0000:18:00.0); the other node restarts with no driver at all.
  std::ofstream(kernel_log, std::ios::app)
      << "kern  :crit  : 2026-01-01T10:30:00,000001+00:00 NVRM: Xid (PCI:0000:18:00): 79, "
         "pid=0, name=, GPU has fallen off the bus.\n";
  EXPECT_EQ(gone_node->Stop(), 0) << gone_node->stderr_text();
  gone_node = exporter(gone_port, {"GPUVET_FAKE_NVML_SCENARIO="}, tmp.Path("gone.log"));
  ASSERT_GT(gone_node->port(), 0) << gone_node->stderr_text();

  std::vector<json> xid, missing;
  WaitFor(started + std::chrono::seconds(50), [&] {
    xid = Firing(prom_port, "GpuvetXidCritical");
    missing = Firing(prom_port, "GpuvetGpuMissing");
    return !xid.empty() && !missing.empty();
  });
  ASSERT_EQ(xid.size(), 1u) << GetJson(prom_port, "/api/v1/alerts").dump(1);
  EXPECT_EQ(xid[0]["labels"]["instance"], xid_instance);
  EXPECT_EQ(xid[0]["labels"]["xid"], "79");
  EXPECT_EQ(xid[0]["labels"]["gpu"], "0");
  EXPECT_EQ(xid[0]["labels"]["severity"], "critical");
  ASSERT_EQ(missing.size(), 1u) << GetJson(prom_port, "/api/v1/alerts").dump(1);
  EXPECT_EQ(missing[0]["labels"]["instance"], gone_instance);
  EXPECT_EQ(missing[0]["annotations"]["summary"],
            gone_instance + " reports 0 GPUs, fewer than in the last day");
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(40));
}

}  // namespace
