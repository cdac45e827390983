// Tests of the whole sampler: over a fixture tree with the fake NVML (every part in one Sample,
// rates consistent with the counters advanced between two Takes), on the live machine host-only,
// and with a real child process whose one busy thread must be its busiest ThreadSample.
#include "sources/sampler/sampler.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "sources/host/pid_stat.h"
#include "testing/temp_tree.h"
#include "util/file.h"

namespace gpuvet {
namespace {

// Starts tests/testing/cpu_burner with one spinning thread ("burner") and a sleeping main thread.
pid_t SpawnBurner() {
  char* const argv[] = {const_cast<char*>(GPUVET_CPU_BURNER), const_cast<char*>("1"),
                        const_cast<char*>("20"), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, GPUVET_CPU_BURNER, nullptr, nullptr, argv, environ) != 0) return -1;
  return pid;
}

// utime + stime of `pid` in clock ticks, read directly.
uint64_t CpuTicks(pid_t pid) {
  Result<std::string> text = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (!text.ok()) return 0;
  Result<PidStat> st = ParsePidStat(*text);
  return st.ok() ? st->utime + st->stime : 0;
}

void Reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

constexpr char kNetHeader[] = "Inter-| Receive | Transmit\n face |bytes packets|bytes packets\n";

std::string Stat(int pid, const char* comm, int ppid, int utime, int threads) {
  return std::to_string(pid) + " (" + comm + ") S " + std::to_string(ppid) +
         " 1 1 0 -1 0 0 0 0 0 " + std::to_string(utime) + " 0 0 0 20 0 " + std::to_string(threads) +
         " 0 500 1000 250 0 0\n";
}

// A node with two CPUs, one disk, one NIC, a workload (pid 100 and its child 101) and one GPU
// whose answers change between the two samples.
TEST(SamplerTest, FixtureTreeAndFakeNvml) {
  test::TempTree t("sampler_fixture");
  t.Write("proc/sys/kernel/hostname", "gpu-node-7\n");
  t.Write("proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
  t.Write("sys/devices/system/cpu/online", "0-1\n");
  t.Write("proc/stat",
          "cpu 100 0 100 800 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0\n"
          "cpu1 50 0 50 400 0 0 0 0\nprocs_running 1\n");
  t.Write("proc/meminfo", "MemTotal: 100 kB\nMemAvailable: 50 kB\n");
  t.Write("proc/vmstat", "pgmajfault 0\n");
  t.Write("proc/diskstats", "259 0 nvme0n1 0 0 0 0 0 0 0 0 0 0 0\n");
  t.Write("proc/net/dev", std::string(kNetHeader) + "eth0: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  t.Write("proc/100/stat", Stat(100, "python3", 1, 0, 1));
  t.Write("proc/101/stat", Stat(101, "pt_data_worker", 100, 0, 1));
  const std::string scenario = t.Path("nvml.json");
  std::ofstream(scenario) << R"({"driver_version": "550.90.07", "cuda_driver_version": 12040,
    "gpus": [{"name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "0000:3b:00.0",
      "memory_total_bytes": 85899345920, "gpu_util_pct": [10, 90], "memory_util_pct": 5,
      "energy_mj": [1000, 5000],
      "compute_processes": [{"pid": 101, "used_memory_bytes": 1024}, {"pid": 4242}]}]})";
  const std::string step = t.Path("step");
  std::ofstream(step) << "0\n";
  setenv("GPUVET_FAKE_NVML_SCENARIO", scenario.c_str(), 1);
  setenv("GPUVET_FAKE_NVML_STEP_FILE", step.c_str(), 1);

  SamplerOptions o;
  o.paths = HostPaths(t.root());
  o.nvml.library_path = GPUVET_FAKE_NVML_LIB;
  o.root_pid = 100;
  Result<std::unique_ptr<Sampler>> s = Sampler::Create(o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  const RecordingMeta& m = (*s)->meta();
  EXPECT_EQ(m.host, "gpu-node-7");
  EXPECT_EQ(m.kernel_release, "6.1.0-18-amd64");
  EXPECT_EQ(m.online_cpus, 2);
  EXPECT_EQ(m.driver_version, "550.90.07");
  EXPECT_EQ(m.cuda_version, "12.4");
  ASSERT_EQ(m.gpus.size(), 1u);
  EXPECT_EQ(m.gpus[0].name, "NVIDIA H100 80GB HBM3");

  // Advance every counter, then sample.
  t.Write("proc/stat",
          "cpu 200 0 150 850 0 0 0 0\ncpu0 150 0 50 400 0 0 0 0\n"
          "cpu1 50 0 100 450 0 0 0 0\nprocs_running 3\n");
  t.Write("proc/vmstat", "pgmajfault 10\n");
  t.Write("proc/diskstats", "259 0 nvme0n1 1 0 2048 0 0 0 0 0 0 0 0\n");
  t.Write("proc/net/dev", std::string(kNetHeader) + "eth0: 4096 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  t.Write("proc/100/stat", Stat(100, "python3", 1, 20, 1));
  t.Write("proc/101/stat", Stat(101, "pt_data_worker", 100, 40, 1));
  std::ofstream(step) << "1\n";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Sample x = (*s)->Take();
  unsetenv("GPUVET_FAKE_NVML_STEP_FILE");
  unsetenv("GPUVET_FAKE_NVML_SCENARIO");

  const double dt = x.interval_s;
  EXPECT_GT(dt, 0.019);
  // Shares are ratios of tick deltas: exact whatever the interval.
  EXPECT_DOUBLE_EQ(*x.host.cpu_user_pct, 50.0);
  EXPECT_DOUBLE_EQ(*x.host.cpu_system_pct, 25.0);
  EXPECT_DOUBLE_EQ(*x.host.cpu_idle_pct, 25.0);
  ASSERT_EQ(x.host.core_busy_pct.size(), 2u);
  EXPECT_DOUBLE_EQ(x.host.core_busy_pct[0], 100.0);
  EXPECT_DOUBLE_EQ(x.host.core_busy_pct[1], 50.0);
  EXPECT_EQ(x.host.run_queue, 3.0);
  // Rates are deltas over the measured interval.
  EXPECT_NEAR(*x.host.major_faults_per_s * dt, 10.0, 1e-9);
  ASSERT_EQ(x.host.disks.size(), 1u);
  EXPECT_NEAR(x.host.disks[0].read_bytes_per_s * dt, 2048.0 * 512, 1e-6);
  ASSERT_EQ(x.host.nets.size(), 1u);
  EXPECT_NEAR(x.host.nets[0].rx_bytes_per_s * dt, 4096.0, 1e-9);
  EXPECT_EQ(x.host.mem_available_bytes, 50u * 1024);
  EXPECT_FALSE(x.host.psi_cpu_some_pct.has_value());  // no PSI in the tree: absent, and noted
  EXPECT_TRUE(m.notes.count("sampler.host.psi"));
  // The workload.
  ASSERT_EQ(x.processes.size(), 2u);
  const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  EXPECT_NEAR(x.processes[0].cpu_pct * dt, 100.0 * 20 / hz, 1e-9);
  EXPECT_EQ(x.processes[1].comm, "pt_data_worker");
  EXPECT_NEAR(x.processes[1].cpu_pct * dt, 100.0 * 40 / hz, 1e-9);
  // The GPU at step 1, with only the workload's process.
  ASSERT_EQ(x.gpus.size(), 1u);
  EXPECT_EQ(x.gpus[0].util_pct, 90.0);
  EXPECT_DOUBLE_EQ(*x.gpus[0].energy_j, 5.0);
  ASSERT_EQ(x.gpus[0].processes.size(), 1u);
  EXPECT_EQ(x.gpus[0].processes[0].pid, 101u);
  EXPECT_EQ(x.gpus[0].processes[0].used_memory_bytes, 1024u);
}

// A real shell that opens a file twice and has a short-lived `cat` read 1 MiB: the opens show in
// the fd-table diff, the reaped child's reads in the shell's I/O.
TEST(SamplerTest, RealProcessIo) {
  test::TempTree t("sampler_io");
  const std::string file = t.Path("data.bin");
  std::ofstream(file) << std::string(1 << 20, 'x');
  const std::string script =
      "sleep 0.3; exec 3<'" + file + "' 4<'" + file + "'; cat '" + file + "' >/dev/null; sleep 10";
  char* const argv[] = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"),
                        const_cast<char*>(script.c_str()), nullptr};
  pid_t child = 0;
  ASSERT_EQ(posix_spawn(&child, "/bin/sh", nullptr, nullptr, argv, environ), 0);
  SamplerOptions o;
  o.read_gpus = false;
  o.root_pid = child;
  Result<std::unique_ptr<Sampler>> s = Sampler::Create(o);
  ASSERT_TRUE(s.ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(900));
  Sample x = (*s)->Take();
  Reap(child);
  ASSERT_GE(x.processes.size(), 1u);  // the shell (and maybe its sleep)
  const ProcessSample& sh = x.processes[0];
  EXPECT_EQ(sh.pid, child);
  ASSERT_TRUE(sh.opens_per_s.has_value());
  EXPECT_NEAR(*sh.opens_per_s * x.interval_s, 2.0, 1e-9);  // fds 3 and 4
  ASSERT_TRUE(sh.rchar_per_s.has_value());
  EXPECT_GE(*sh.rchar_per_s * x.interval_s, 1 << 20);
}

TEST(SamplerTest, HostOnlyOnThisMachine) {
  SamplerOptions o;
  o.read_gpus = false;
  Result<std::unique_ptr<Sampler>> s = Sampler::Create(o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  const RecordingMeta& m = (*s)->meta();
  EXPECT_FALSE(m.host.empty());
  EXPECT_FALSE(m.kernel_release.empty());
  EXPECT_GT(m.online_cpus, 0);
  EXPECT_TRUE(m.gpus.empty());
  EXPECT_EQ(m.notes.at("sampler.gpu"), "GPUs not sampled (host only)");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Sample a = (*s)->Take();
  EXPECT_GT(a.interval_s, 0.04);
  EXPECT_GT(a.unix_time, 1.6e9);
  ASSERT_TRUE(a.host.cpu_idle_pct.has_value());
  EXPECT_GE(*a.host.cpu_idle_pct, 0.0);
  EXPECT_LE(*a.host.cpu_idle_pct, 100.0);
  EXPECT_TRUE(a.host.mem_available_bytes.has_value());
  EXPECT_FALSE(a.host.core_busy_pct.empty());
  EXPECT_TRUE(a.gpus.empty());
  EXPECT_TRUE(a.processes.empty());  // no workload followed
  Sample b = (*s)->Take();
  EXPECT_GT(b.unix_time, a.unix_time - 1e-3);
}

TEST(SamplerTest, NegativePidIsRejected) {
  SamplerOptions o;
  o.read_gpus = false;
  o.root_pid = -5;
  EXPECT_FALSE(Sampler::Create(o).ok());
}

TEST(SamplerTest, BusyThreadOfARealChild) {
  const pid_t child = SpawnBurner();
  ASSERT_GT(child, 0);
  SamplerOptions o;
  o.read_gpus = false;
  Result<std::unique_ptr<Sampler>> s = Sampler::Create(o);
  ASSERT_TRUE(s.ok());
  // Let the burner start its thread, then measure over half a second, reading the child's CPU
  // ticks ourselves just inside the sampler's window.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  using Clock = std::chrono::steady_clock;
  const auto a = Clock::now();
  (*s)->SetRootPid(child);
  const uint64_t ticks0 = CpuTicks(child);
  const auto b = Clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto c = Clock::now();
  const uint64_t ticks1 = CpuTicks(child);
  Sample sample = (*s)->Take();
  const auto d = Clock::now();
  Reap(child);
  // Wall time the sampler's window may exceed ours by, in seconds.
  const double slack_s = std::chrono::duration<double>((b - a) + (d - c)).count();

  ASSERT_EQ(sample.processes.size(), 1u);
  const ProcessSample& p = sample.processes[0];
  EXPECT_EQ(p.pid, child);
  EXPECT_EQ(p.ppid, ::getpid());
  EXPECT_EQ(p.comm, "cpu_burner");
  EXPECT_EQ(p.threads, 2);
  // The sampler's CPU time agrees with the kernel's counters over (nearly) the same window,
  // whatever share of a core the loaded test machine gave the burner.
  const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  const double sampled_ticks = p.cpu_pct / 100.0 * sample.interval_s * hz;
  ASSERT_GT(ticks1, ticks0) << "the burner never ran";
  EXPECT_GE(sampled_ticks, static_cast<double>(ticks1 - ticks0) - 1.0);
  EXPECT_LE(sampled_ticks, static_cast<double>(ticks1 - ticks0) + slack_s * hz + 2.0);
  EXPECT_LT(p.cpu_pct, 110.0);  // one spinning thread
  ASSERT_TRUE(p.rss_bytes.has_value());
  EXPECT_GT(*p.rss_bytes, 0u);
  ASSERT_EQ(p.top_threads.size(), 2u);
  EXPECT_EQ(p.top_threads[0].comm, "burner");
  EXPECT_NE(p.top_threads[0].tid, child);
  // Thread and process times are read a few milliseconds apart and rounded separately by the
  // kernel: the burner carries the process's time within a few ticks.
  EXPECT_NEAR(p.top_threads[0].cpu_pct, p.cpu_pct,
              std::max(0.2 * p.cpu_pct, 100.0 * 5 / hz / sample.interval_s));
  EXPECT_EQ(p.top_threads[1].tid, child);  // the sleeping main thread: at most a stray tick
  EXPECT_LE(p.top_threads[1].cpu_pct, 100.0 * 1 / hz / sample.interval_s + 1e-9);
  EXPECT_GT(p.top_threads[0].cpu_pct, p.top_threads[1].cpu_pct);
  ASSERT_TRUE(p.rchar_per_s.has_value());  // our own child: /proc/PID/io is readable
  ASSERT_TRUE(p.opens_per_s.has_value());
}

}  // namespace
}  // namespace gpuvet
