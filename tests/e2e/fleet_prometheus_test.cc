// The fleet audit through a real Prometheus: the test starts /usr/bin/prometheus on a free
// loopback port (1 s scrapes, its own temp storage) scraping four real `gpuvet exporter`
// processes, each fed by the fake NVML and a copy of the healthy-8gpu fixture tree under its own
// host name: a healthy node, one with a drifted driver, one whose corrected ECC count rises (the
// test rewrites its scenario file; the fake NVML rereads it at every collection's nvmlInit) and
// one with a x8 link. `gpuvet fleet audit --prometheus` must name exactly the three faulty nodes
// and why. Every process is killed on exit. Skips with a message when Prometheus is missing.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "run_binary.h"
#include "testing/temp_tree.h"

extern char** environ;

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kPrometheus = "/usr/bin/prometheus";

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAtomically(const fs::path& p, const std::string& text) {
  fs::path tmp = p.string() + ".tmp";
  std::ofstream(tmp, std::ios::binary) << text;
  fs::rename(tmp, p);
}

// A loopback TCP port that was free a moment ago.
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

// A child process in its own process group, stdout+stderr to a log file; killed (the whole
// group) and reaped by Stop() or the destructor, so no process outlives the test.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
        const std::string& log)
      : log_(log) {
    // Everything the child needs is built before fork: another thread (the ECC writer) may hold
    // the allocator's lock, so the child only calls async-signal-safe functions.
    std::vector<std::string> env_strings;
    for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
    env_strings.insert(env_strings.end(), env.begin(), env.end());
    std::vector<char*> args, envp;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const std::string& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      execve(args[0], args.data(), envp.data());
      _exit(127);
    }
  }
  ~Child() { Stop(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  void Stop() {
    if (pid_ <= 0) return;
    kill(-pid_, SIGTERM);
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  bool Running() const { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }
  std::string Log() const { return ReadText(log_); }

 private:
  pid_t pid_ = -1;
  std::string log_;
};

// One value of an instant query, or -1.
double QueryNumber(int port, const std::string& promql) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(1, 0);
  c.set_read_timeout(2, 0);
  auto res = c.Get("/api/v1/query?query=" + httplib::detail::encode_query_param(promql));
  if (!res || res->status != 200) return -1;
  json j = json::parse(res->body, nullptr, false);
  if (j.is_discarded() || j["data"]["result"].empty()) return -1;
  return std::stod(j["data"]["result"][0]["value"][1].get<std::string>());
}

struct NodeSetup {
  std::string host;
  std::function<void(json&)> edit;
  std::string driver;  // kernel module version in /proc/driver/nvidia/version ("" = unchanged)
};

TEST(FleetPrometheusTest, AuditNamesTheThreeFaultyNodes) {
  if (access(kPrometheus, X_OK) != 0) {
    GTEST_SKIP() << kPrometheus << " is missing: install the Debian package `prometheus` to run "
                 << "the real-Prometheus fleet test";
  }
  const auto started = std::chrono::steady_clock::now();
  gpuvet::test::TempTree tmp("fleet_prom");
  const fs::path fixture = fs::path(GPUVET_FIXTURES_DIR) / "healthy-8gpu";
  const json base = json::parse(ReadText(fixture / "nvml.json"));

  std::vector<NodeSetup> nodes = {
      {"fleet-healthy", [](json&) {}, ""},
      // A whole other driver (library and kernel module agree), not a half-finished upgrade.
      {"fleet-drift", [](json& s) { s["driver_version"] = "535.183.01"; }, "535.183.01"},
      {"fleet-ecc", [](json&) {}, ""},  // rewritten below while the test runs
      {"fleet-x8", [](json& s) { s["gpus"][3]["pcie_width"] = 8; }, ""},
  };
  std::vector<int> ports;
  std::vector<std::unique_ptr<Child>> exporters;
  for (const NodeSetup& n : nodes) {
    fs::path dir = fs::path(tmp.root()) / n.host;
    fs::create_directories(dir);
    fs::copy(fixture / "root", dir / "root",
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    std::ofstream(dir / "root/proc/sys/kernel/hostname") << n.host << "\n";
    if (!n.driver.empty()) {
      const fs::path version = dir / "root/proc/driver/nvidia/version";
      std::string text = ReadText(version);
      text.replace(text.find("550.90.07"), 9, n.driver);
      fs::remove(version);  // a copy of a read-only checkout file may be read-only
      std::ofstream(version) << text;
    }
    json scenario = base;
    n.edit(scenario);
    WriteAtomically(dir / "nvml.json", scenario.dump());
    ports.push_back(FreePort());
    exporters.push_back(std::make_unique<Child>(
        std::vector<std::string>{GPUVET_BINARY, "exporter", "--listen",
                                 "127.0.0.1:" + std::to_string(ports.back()), "--root",
                                 (dir / "root").string(), "--nvml-lib", GPUVET_FAKE_NVML_LIB,
                                 "--collect-interval", "250ms"},
        std::vector<std::string>{"GPUVET_FAKE_NVML_SCENARIO=" + (dir / "nvml.json").string()},
        (dir / "exporter.log").string()));
  }

  // fleet-ecc: gpu5's corrected count climbs by 100 every 250 ms (1,440,000 per hour).
  std::atomic<bool> stop{false};
  std::thread ecc_writer([&] {
    json scenario = base;
    const fs::path path = fs::path(tmp.root()) / "fleet-ecc" / "nvml.json";
    for (int count = 0; !stop; count += 100) {
      scenario["gpus"][5]["ecc_corrected_volatile"] = count;
      scenario["gpus"][5]["ecc_corrected_aggregate"] = count;
      WriteAtomically(path, scenario.dump());
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  });
  struct Joiner {
    std::atomic<bool>& stop;
    std::thread& t;
    ~Joiner() {
      stop = true;
      t.join();
    }
  } joiner{stop, ecc_writer};

  const int prom_port = FreePort();
  std::string targets;
  for (int p : ports)
    targets += (targets.empty() ? "'" : ", '") + ("127.0.0.1:" + std::to_string(p)) + "'";
  tmp.Write("prometheus.yml",
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
            "scrape_configs:\n  - job_name: gpuvet\n    static_configs:\n"
            "      - targets: [" +
                targets + "]\n");
  Child prometheus(
      {kPrometheus, "--config.file=" + tmp.Path("prometheus.yml"),
       "--storage.tsdb.path=" + tmp.Path("tsdb"),
       "--web.listen-address=127.0.0.1:" + std::to_string(prom_port), "--log.level=warn"},
      {}, tmp.Path("prometheus.log"));

  // Ready when every target has been scraped at least 5 times (the ECC series needs points).
  bool ready = false;
  while (std::chrono::steady_clock::now() - started < std::chrono::seconds(22)) {
    if (QueryNumber(prom_port, "count(count_over_time(gpuvet_node_info[1m]) >= 5)") == 4) {
      ready = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  ASSERT_TRUE(ready) << "Prometheus did not scrape all four exporters in time\nprometheus: "
                     << ReadText(tmp.Path("prometheus.log"))
                     << "\nexporter: " << exporters[0]->Log();

  gpuvet::e2e::RunResult r = gpuvet::e2e::RunBinary(
      {GPUVET_BINARY, "fleet", "audit", "--prometheus",
       "http://127.0.0.1:" + std::to_string(prom_port), "--window", "1m", "--format", "json"},
      {}, 20);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;  // fleet-ecc and fleet-x8 are to be quarantined
  json report = json::parse(r.out);
  std::map<std::string, std::set<std::string>> ids;
  std::map<std::string, json> by_node;
  for (const json& n : report["nodes"]) {
    by_node[n["node"]] = n;
    for (const json& f : n["findings"]) ids[n["node"]].insert(f["id"].get<std::string>());
  }
  ASSERT_EQ(by_node.size(), 4u) << r.out;
  EXPECT_EQ(by_node["fleet-healthy"]["verdict"], "ok") << r.out;
  EXPECT_TRUE(ids["fleet-healthy"].empty());
  EXPECT_EQ(ids["fleet-drift"], std::set<std::string>{"fleet.driver_drift"});
  EXPECT_EQ(by_node["fleet-drift"]["findings"][0]["summary"],
            "driver 535.183.01 differs from its pool's 550.90.07 (3 of 4 nodes)");
  EXPECT_EQ(ids["fleet-ecc"], std::set<std::string>{"fleet.ecc_sbe_rate"}) << r.out;
  EXPECT_EQ(by_node["fleet-ecc"]["findings"][0]["severity"], "fail");
  EXPECT_EQ(by_node["fleet-ecc"]["findings"][0]["subject"], "gpu5 (0000:ab:00.0)");
  EXPECT_EQ(ids["fleet-x8"], (std::set<std::string>{"fleet.pcie_downgrade", "fleet.check_failed"}));
  std::set<std::string> quarantined;
  for (const json& q : report["quarantine"]) quarantined.insert(q["node"].get<std::string>());
  EXPECT_EQ(quarantined, (std::set<std::string>{"fleet-ecc", "fleet-x8"}));
  // The same answer drives quarantine (printed, not applied: 2 of 4 nodes is within 0.5).
  gpuvet::e2e::RunResult q = gpuvet::e2e::RunBinary(
      {GPUVET_BINARY, "fleet", "quarantine", "--prometheus",
       "http://127.0.0.1:" + std::to_string(prom_port), "--window", "1m", "--max-fraction", "0.5"},
      {}, 20);
  EXPECT_EQ(q.exit_code, 1) << q.out << q.err;
  EXPECT_NE(q.out.find("2 of 4 nodes to quarantine"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("slurm: scontrol update NodeName=fleet-x8 State=DRAIN 'Reason=gpuvet: "),
            std::string::npos)
      << q.out;
  EXPECT_NE(q.out.find("k8s:   kubectl taint nodes fleet-ecc "
                       "gpuvet.io/quarantine=ecc_sbe_rate:NoSchedule --overwrite"),
            std::string::npos)
      << q.out;
  for (const auto& e : exporters) EXPECT_TRUE(e->Running()) << e->Log();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
}

}  // namespace
