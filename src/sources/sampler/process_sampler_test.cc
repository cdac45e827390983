// Tests of the process-tree sampler over a fixture /proc: tree membership by ppid, CPU, I/O and
// thread rates between two reads, processes born in between, the fd-table diff, cgroup
// throttling, and unreadable files becoming absent fields.
#include "sources/sampler/process_sampler.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

using test::TempTree;

std::string StatLine(int pid, const std::string& comm, int ppid, uint64_t utime, uint64_t stime,
                     int threads, uint64_t start, int64_t rss) {
  return fmt::format("{} ({}) S {} {} {} 0 -1 0 0 0 0 0 {} {} 0 0 20 0 {} 0 {} 1000 {} 0 0 0\n",
                     pid, comm, ppid, pid, pid, utime, stime, threads, start, rss);
}

std::string Io(uint64_t rchar, uint64_t syscr, uint64_t read_bytes, uint64_t write_bytes) {
  return fmt::format(
      "rchar: {}\nwchar: 0\nsyscr: {}\nsyscw: 0\nread_bytes: {}\nwrite_bytes: {}\n"
      "cancelled_write_bytes: 0\n",
      rchar, syscr, read_bytes, write_bytes);
}

double Hz() { return static_cast<double>(::sysconf(_SC_CLK_TCK)); }

const ProcessSample* Find(const std::vector<ProcessSample>& v, int pid) {
  for (const ProcessSample& p : v) {
    if (p.pid == pid) return &p;
  }
  return nullptr;
}

// Root 100 (3 threads) with child 101; 200 is unrelated. cgroup v2 with a 2-core quota on "job".
void WriteFirst(const TempTree& t) {
  t.Write("proc/100/stat", StatLine(100, "trainer", 1, 100, 0, 3, 5000, 1000));
  t.Write("proc/100/io", Io(0, 0, 0, 0));
  t.Write("proc/100/task/100/stat", StatLine(100, "trainer", 1, 50, 0, 3, 5000, 1000));
  t.Write("proc/100/task/110/stat", StatLine(110, "pt_loader", 1, 50, 0, 3, 5001, 1000));
  t.Write("proc/100/task/111/stat", StatLine(111, "pt_decode", 1, 0, 0, 3, 5002, 1000));
  t.Link("proc/100/fd/0", "/dev/null");
  t.Link("proc/100/fd/3", "/data/a.jpg");
  t.Write("proc/100/cgroup", "0::/job\n");
  t.Write("proc/101/stat", StatLine(101, "worker", 100, 0, 0, 1, 6000, 10));
  t.Write("proc/101/io", Io(0, 0, 0, 0));
  t.Link("proc/101/fd/0", "/dev/null");
  t.Write("proc/200/stat", StatLine(200, "sshd", 1, 999, 999, 1, 10, 10));
  t.Write("proc/1/stat", StatLine(1, "init", 0, 5, 5, 1, 1, 10));
  t.Write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  t.Write("sys/fs/cgroup/job/cpu.max", "200000 100000\n");
  t.Write("sys/fs/cgroup/job/cpu.stat", "usage_usec 5\nnr_throttled 10\nthrottled_usec 1000000\n");
}

void WriteSecond(const TempTree& t) {
  t.Write("proc/100/stat", StatLine(100, "trainer", 1, 180, 20, 3, 5000, 2000));
  t.Write("proc/100/io", Io(8000, 40, 2000, 4000));
  t.Write("proc/100/task/100/stat", StatLine(100, "trainer", 1, 60, 0, 3, 5000, 2000));
  t.Write("proc/100/task/110/stat", StatLine(110, "pt_loader", 1, 90, 0, 3, 5001, 2000));
  t.Write("proc/100/task/111/stat", StatLine(111, "pt_decode", 1, 150, 0, 3, 5002, 2000));
  t.Link("proc/100/fd/4", "/data/c.jpg");
  std::remove(t.Path("proc/100/fd/3").c_str());
  t.Link("proc/100/fd/3", "/data/b.jpg");  // same number, another file: a new open
  t.Write("proc/101/stat", StatLine(101, "worker", 100, 150, 50, 1, 6000, 10));
  t.Write("proc/101/io", Io(0, 0, 0, 0));
  t.Write("proc/102/stat", StatLine(102, "decoder", 101, 40, 10, 1, 7000, 10));  // new
  t.Write("proc/102/io", Io(100, 1, 0, 0));
  t.Write("sys/fs/cgroup/job/cpu.stat", "usage_usec 9\nnr_throttled 20\nthrottled_usec 2000000\n");
}

TEST(ProcessSamplerTest, TreeRatesBetweenTwoReads) {
  TempTree t("process_sampler");
  WriteFirst(t);
  ProcessSampler sampler{HostPaths(t.root())};
  sampler.SetRoot(100);
  WriteSecond(t);
  WorkloadSample w;
  std::vector<ProcessSample> ps = sampler.Take(2.0, &w);

  ASSERT_EQ(ps.size(), 3u);
  EXPECT_EQ(ps[0].pid, 100);  // root first, then by pid
  EXPECT_EQ(ps[1].pid, 101);
  EXPECT_EQ(ps[2].pid, 102);
  EXPECT_EQ(Find(ps, 200), nullptr);

  const ProcessSample& root = ps[0];
  EXPECT_EQ(root.comm, "trainer");
  EXPECT_EQ(root.ppid, 1);
  EXPECT_DOUBLE_EQ(root.cpu_pct, 100.0 * 100 / Hz() / 2.0);  // 100 ticks over 2 s
  EXPECT_EQ(root.rss_bytes, 2000u * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(root.threads, 3);
  EXPECT_DOUBLE_EQ(*root.read_bytes_per_s, 1000.0);
  EXPECT_DOUBLE_EQ(*root.write_bytes_per_s, 2000.0);
  EXPECT_DOUBLE_EQ(*root.rchar_per_s, 4000.0);
  EXPECT_DOUBLE_EQ(*root.read_syscalls_per_s, 20.0);
  EXPECT_DOUBLE_EQ(*root.opens_per_s, 1.0);  // fd 3 now another file, fd 4 new: 2 over 2 s
  ASSERT_EQ(root.top_threads.size(), 3u);
  EXPECT_EQ(root.top_threads[0].tid, 111);
  EXPECT_EQ(root.top_threads[0].comm, "pt_decode");
  EXPECT_DOUBLE_EQ(root.top_threads[0].cpu_pct, 100.0 * 150 / Hz() / 2.0);
  EXPECT_EQ(root.top_threads[1].tid, 110);
  EXPECT_EQ(root.top_threads[2].tid, 100);

  EXPECT_DOUBLE_EQ(ps[1].cpu_pct, 100.0 * 200 / Hz() / 2.0);
  ASSERT_EQ(ps[1].top_threads.size(), 1u);  // single-threaded: the process itself
  EXPECT_EQ(ps[1].top_threads[0].tid, 101);
  EXPECT_DOUBLE_EQ(*ps[1].opens_per_s, 0.0);
  // Born during the interval: all its CPU time and I/O count; no fd table in the fixture.
  EXPECT_DOUBLE_EQ(ps[2].cpu_pct, 100.0 * 50 / Hz() / 2.0);
  EXPECT_DOUBLE_EQ(*ps[2].rchar_per_s, 50.0);
  EXPECT_FALSE(ps[2].opens_per_s.has_value());

  EXPECT_DOUBLE_EQ(*w.cgroup_throttled_pct, 50.0);  // 1 s throttled over 2 s
  EXPECT_DOUBLE_EQ(*w.cgroup_nr_throttled_per_s, 5.0);
}

// With the kernel's children files the tree follows them, not a scan of every process.
TEST(ProcessSamplerTest, TreeFromChildrenFiles) {
  TempTree t("process_sampler_children");
  t.Write("proc/100/stat", StatLine(100, "trainer", 1, 10, 0, 2, 5000, 1));
  t.Write("proc/100/task/100/stat", StatLine(100, "trainer", 1, 10, 0, 2, 5000, 1));
  t.Write("proc/100/task/100/children", "101 ");
  t.Write("proc/100/task/105/stat", StatLine(105, "loader", 1, 0, 0, 2, 5000, 1));
  t.Write("proc/100/task/105/children", "103 ");  // forked from a non-main thread
  t.Write("proc/101/stat", StatLine(101, "worker", 100, 0, 0, 1, 5000, 1));
  t.Write("proc/101/task/101/children", "");
  t.Write("proc/103/stat", StatLine(103, "decoder", 105, 0, 0, 1, 5000, 1));
  t.Write("proc/103/task/103/children", "");
  // Claims 100 as its parent but is in no children list: not followed in this mode.
  t.Write("proc/104/stat", StatLine(104, "stray", 100, 0, 0, 1, 5000, 1));
  t.Write("proc/104/task/104/children", "");
  ProcessSampler sampler{HostPaths(t.root())};
  sampler.SetRoot(100);
  WorkloadSample w;
  std::vector<ProcessSample> ps = sampler.Take(1.0, &w);
  ASSERT_EQ(ps.size(), 3u);
  EXPECT_EQ(ps[0].pid, 100);
  EXPECT_EQ(ps[1].pid, 101);
  EXPECT_EQ(ps[2].pid, 103);
}

// A reaped child's I/O moves into its parent's counters: what was already counted while the
// child was alive is not counted again.
TEST(ProcessSamplerTest, ReapedChildIoIsNotCountedTwice) {
  TempTree t("process_sampler_reaped");
  t.Write("proc/100/stat", StatLine(100, "trainer", 1, 0, 0, 1, 5000, 1));
  t.Write("proc/100/io", Io(0, 0, 0, 0));
  t.Write("proc/101/stat", StatLine(101, "worker", 100, 0, 0, 1, 6000, 1));
  t.Write("proc/101/io", Io(1000, 10, 400, 0));
  ProcessSampler sampler{HostPaths(t.root())};
  sampler.SetRoot(100);
  std::remove(t.Path("proc/101/stat").c_str());  // the worker exits and is reaped
  std::remove(t.Path("proc/101/io").c_str());
  t.Write("proc/100/io", Io(1000 + 500, 10 + 5, 400 + 100, 0));
  WorkloadSample w;
  std::vector<ProcessSample> ps = sampler.Take(1.0, &w);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_DOUBLE_EQ(*ps[0].rchar_per_s, 500.0);
  EXPECT_DOUBLE_EQ(*ps[0].read_syscalls_per_s, 5.0);
  EXPECT_DOUBLE_EQ(*ps[0].read_bytes_per_s, 100.0);
}

// Past kMaxFdsResolved descriptors no readlink is done: opens are new descriptor numbers.
TEST(ProcessSamplerTest, HugeFdTablesAreComparedByNumber) {
  TempTree t("process_sampler_fds");
  t.Write("proc/100/stat", StatLine(100, "server", 1, 0, 0, 1, 5000, 1));
  const int n = static_cast<int>(kMaxFdsResolved) + 10;
  for (int fd = 0; fd < n; ++fd) t.Link("proc/100/fd/" + std::to_string(fd), "/data/a");
  ProcessSampler sampler{HostPaths(t.root())};
  sampler.SetRoot(100);
  t.Link("proc/100/fd/" + std::to_string(n), "/data/new");
  t.Link("proc/100/fd/" + std::to_string(n + 1), "/data/new2");
  WorkloadSample w;
  std::vector<ProcessSample> ps = sampler.Take(2.0, &w);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_DOUBLE_EQ(*ps[0].opens_per_s, 1.0);  // 2 new descriptors over 2 s
  EXPECT_TRUE(sampler.notes().count("sampler.process.opens.cap"));
}

TEST(ProcessSamplerTest, RecycledPidIsANewProcess) {
  TempTree t("process_sampler_recycle");
  t.Write("proc/100/stat", StatLine(100, "old", 1, 1000, 0, 1, 5000, 1));
  ProcessSampler sampler{HostPaths(t.root())};
  sampler.SetRoot(100);
  t.Write("proc/100/stat", StatLine(100, "new", 1, 10, 0, 1, 9000, 1));  // other start time
  WorkloadSample w;
  std::vector<ProcessSample> ps = sampler.Take(1.0, &w);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].comm, "new");
  EXPECT_DOUBLE_EQ(ps[0].cpu_pct, 100.0 * 10 / Hz());  // not 10 - 1000 (or a wrap-around)
  EXPECT_FALSE(ps[0].read_bytes_per_s.has_value());    // no io file: absent
  EXPECT_FALSE(w.cgroup_throttled_pct.has_value());    // no cgroup file
  EXPECT_TRUE(sampler.notes().count("sampler.process.io"));
  EXPECT_TRUE(sampler.notes().count("sampler.cgroup"));
}

TEST(ProcessSamplerTest, RootGoneOrGarbled) {
  TempTree t("process_sampler_gone");
  t.Write("proc/1/stat", StatLine(1, "init", 0, 5, 5, 1, 1, 10));
  ProcessSampler sampler{HostPaths(t.root())};
  sampler.SetRoot(4242);
  WorkloadSample w;
  EXPECT_TRUE(sampler.Take(1.0, &w).empty());
  EXPECT_NE(sampler.notes().at("sampler.process").find("4242"), std::string::npos);

  TempTree g("process_sampler_garbled");
  g.Write("proc/7/stat", "7 (x) S 1 2");  // truncated
  ProcessSampler garbled{HostPaths(g.root())};
  garbled.SetRoot(7);
  EXPECT_TRUE(garbled.Take(1.0, &w).empty());
  EXPECT_NE(garbled.notes().at("sampler.process").find("truncated"), std::string::npos);

  ProcessSampler none{HostPaths(g.root())};
  EXPECT_TRUE(none.Take(1.0, &w).empty());  // no root followed
}

TEST(ProcessSamplerTest, ThrottlingCountedWhereTheQuotaIs) {
  TempTree t("process_sampler_cgroup");
  t.Write("proc/5/stat", StatLine(5, "job", 1, 0, 0, 1, 1, 1));
  t.Write("proc/5/cgroup", "0::/slurm/job_1/step_0\n");
  t.Write("sys/fs/cgroup/cgroup.controllers", "cpu\n");
  t.Write("sys/fs/cgroup/slurm/job_1/cpu.max", "400000 100000\n");
  t.Write("sys/fs/cgroup/slurm/job_1/cpu.stat", "nr_throttled 0\nthrottled_usec 0\n");
  t.Write("sys/fs/cgroup/slurm/job_1/step_0/cpu.max", "max 100000\n");
  t.Write("sys/fs/cgroup/slurm/job_1/step_0/cpu.stat", "nr_throttled 0\nthrottled_usec 0\n");
  ProcessSampler sampler{HostPaths(t.root())};
  sampler.SetRoot(5);
  t.Write("sys/fs/cgroup/slurm/job_1/cpu.stat", "nr_throttled 4\nthrottled_usec 250000\n");
  WorkloadSample w;
  sampler.Take(1.0, &w);
  EXPECT_DOUBLE_EQ(*w.cgroup_throttled_pct, 25.0);
  EXPECT_DOUBLE_EQ(*w.cgroup_nr_throttled_per_s, 4.0);

  // cgroup v1: throttled_time in nanoseconds under the cpu,cpuacct mount.
  TempTree v1("process_sampler_cgroup_v1");
  v1.Write("proc/5/stat", StatLine(5, "job", 1, 0, 0, 1, 1, 1));
  v1.Write("proc/5/cgroup", "4:cpu,cpuacct:/job\n");
  v1.Write("sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_quota_us", "100000\n");
  v1.Write("sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_period_us", "100000\n");
  v1.Write("sys/fs/cgroup/cpu,cpuacct/job/cpu.stat",
           "nr_periods 1\nnr_throttled 0\nthrottled_time 0\n");
  ProcessSampler s1{HostPaths(v1.root())};
  s1.SetRoot(5);
  v1.Write("sys/fs/cgroup/cpu,cpuacct/job/cpu.stat",
           "nr_periods 9\nnr_throttled 8\nthrottled_time 500000000\n");
  WorkloadSample w1;
  s1.Take(2.0, &w1);
  EXPECT_DOUBLE_EQ(*w1.cgroup_throttled_pct, 25.0);
  EXPECT_DOUBLE_EQ(*w1.cgroup_nr_throttled_per_s, 4.0);
}

}  // namespace
}  // namespace gpuvet
