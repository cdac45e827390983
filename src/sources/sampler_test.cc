// Tests of the whole sampler on the live machine: host-only sampling, and a real child process
// whose one busy thread must show up in its ProcessSample and as its busiest ThreadSample.
#include "sources/sampler.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "sources/proc_pid_parse.h"
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
  (*s)->SetRootPid(child);
  const uint64_t ticks0 = CpuTicks(child);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const uint64_t ticks1 = CpuTicks(child);
  Sample sample = (*s)->Take();
  Reap(child);

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
  EXPECT_NEAR(sampled_ticks, static_cast<double>(ticks1 - ticks0), 3.0);
  EXPECT_LT(p.cpu_pct, 110.0);  // one spinning thread
  ASSERT_TRUE(p.rss_bytes.has_value());
  EXPECT_GT(*p.rss_bytes, 0u);
  ASSERT_EQ(p.top_threads.size(), 2u);
  EXPECT_EQ(p.top_threads[0].comm, "burner");
  EXPECT_NE(p.top_threads[0].tid, child);
  EXPECT_NEAR(p.top_threads[0].cpu_pct, p.cpu_pct, 100.0 * 2 / hz / sample.interval_s);
  EXPECT_EQ(p.top_threads[1].tid, child);  // the sleeping main thread: at most a stray tick
  EXPECT_LE(p.top_threads[1].cpu_pct, 100.0 * 1 / hz / sample.interval_s + 1e-9);
  EXPECT_GT(p.top_threads[0].cpu_pct, p.top_threads[1].cpu_pct);
  ASSERT_TRUE(p.rchar_per_s.has_value());  // our own child: /proc/PID/io is readable
  ASSERT_TRUE(p.opens_per_s.has_value());
}

}  // namespace
}  // namespace gpuvet
