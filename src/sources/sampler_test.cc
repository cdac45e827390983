// Tests of the whole sampler on the live machine: host-only sampling, and a real child process
// whose one busy thread must show up in its ProcessSample and as its busiest ThreadSample.
#include "sources/sampler.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace gpuvet {
namespace {

// Forks a child whose second thread ("burner") spins and whose main thread sleeps. Returns its pid.
pid_t SpawnBurner() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::thread burner([] {
      pthread_setname_np(pthread_self(), "burner");
      volatile uint64_t x = 0;
      while (true) x = x + 1;
    });
    burner.detach();
    while (true) ::pause();
  }
  return pid;
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
  (*s)->SetRootPid(child);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  Sample sample = (*s)->Take();
  Reap(child);

  ASSERT_EQ(sample.processes.size(), 1u);
  const ProcessSample& p = sample.processes[0];
  EXPECT_EQ(p.pid, child);
  EXPECT_EQ(p.ppid, ::getpid());
  EXPECT_EQ(p.threads, 2);
  // Two cores shared with other work: the spinning thread gets at least a fifth of one.
  EXPECT_GT(p.cpu_pct, 20.0);
  EXPECT_LT(p.cpu_pct, 110.0);
  ASSERT_TRUE(p.rss_bytes.has_value());
  EXPECT_GT(*p.rss_bytes, 0u);
  ASSERT_EQ(p.top_threads.size(), 2u);
  EXPECT_EQ(p.top_threads[0].comm, "burner");
  EXPECT_NE(p.top_threads[0].tid, child);
  EXPECT_GT(p.top_threads[0].cpu_pct, 20.0);
  EXPECT_EQ(p.top_threads[1].tid, child);  // the sleeping main thread
  EXPECT_LT(p.top_threads[1].cpu_pct, 5.0);
  ASSERT_TRUE(p.rchar_per_s.has_value());  // our own child: /proc/PID/io is readable
  ASSERT_TRUE(p.opens_per_s.has_value());
}

}  // namespace
}  // namespace gpuvet
