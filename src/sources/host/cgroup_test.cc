// Tests of the cgroup source: /proc/PID/cgroup and limit-file parsers with inline strings, and the
// effective-limit walk over v1 and v2 fixture trees (nested limits, private namespace, garbage).
#include "sources/host/cgroup.h"

#include <gtest/gtest.h>

#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(CgroupParseTest, ProcCgroupV2) {
  auto m = ParseProcCgroup("0::/kubepods.slice/pod1/cri-abc.scope\n");
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->has_unified);
  EXPECT_EQ(m->unified_path, "/kubepods.slice/pod1/cri-abc.scope");
  EXPECT_FALSE(m->has_cpu);
  EXPECT_FALSE(m->has_memory);
}

TEST(CgroupParseTest, ProcCgroupV1AndHybrid) {
  const char* text =
      "12:pids:/user.slice\n"
      "4:cpu,cpuacct:/slurm/uid_1000/job_42\n"
      "3:memory:/slurm/uid_1000/job_42/step_0\n"
      "1:name=systemd:/user.slice/a:b\n"
      "0::/user.slice\n";
  auto m = ParseProcCgroup(text);
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->has_cpu);
  EXPECT_EQ(m->cpu_controllers, "cpu,cpuacct");
  EXPECT_EQ(m->cpu_path, "/slurm/uid_1000/job_42");
  EXPECT_TRUE(m->has_memory);
  EXPECT_EQ(m->memory_path, "/slurm/uid_1000/job_42/step_0");
  EXPECT_TRUE(m->has_unified);
  EXPECT_EQ(m->unified_path, "/user.slice");
  // "cpuset" is not "cpu".
  EXPECT_FALSE(ParseProcCgroup("5:cpuset:/x\n")->has_cpu);
}

TEST(CgroupParseTest, ProcCgroupGarbage) {
  EXPECT_FALSE(ParseProcCgroup("not a cgroup line\n").ok());
  EXPECT_FALSE(ParseProcCgroup("x:cpu:/a\n").ok());
  auto bad = ParseProcCgroup("0::/\nbroken\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos);
  EXPECT_TRUE(ParseProcCgroup("").ok());
}

TEST(CgroupParseTest, CpuMax) {
  EXPECT_TRUE(ParseCpuMax("max 100000\n")->unlimited);
  EXPECT_TRUE(ParseCpuMax("max")->unlimited);
  EXPECT_DOUBLE_EQ(ParseCpuMax("200000 100000")->cores, 2.0);
  EXPECT_DOUBLE_EQ(ParseCpuMax("50000 100000\n")->cores, 0.5);
  EXPECT_FALSE(ParseCpuMax("").ok());
  EXPECT_FALSE(ParseCpuMax("200000").ok());
  EXPECT_FALSE(ParseCpuMax("200000 0").ok());
  EXPECT_FALSE(ParseCpuMax("-5 100000").ok());
  EXPECT_FALSE(ParseCpuMax("a b").ok());
  EXPECT_FALSE(ParseCpuMax("1 2 3").ok());
}

TEST(CgroupParseTest, CfsQuota) {
  EXPECT_TRUE(ParseCfsQuota("-1\n", "100000\n")->unlimited);
  EXPECT_DOUBLE_EQ(ParseCfsQuota("400000", "100000")->cores, 4.0);
  EXPECT_FALSE(ParseCfsQuota("0", "100000").ok());
  EXPECT_FALSE(ParseCfsQuota("400000", "0").ok());
  EXPECT_FALSE(ParseCfsQuota("lots", "100000").ok());
}

TEST(CgroupParseTest, MemoryLimits) {
  EXPECT_TRUE(ParseMemoryMax("max\n")->unlimited);
  EXPECT_EQ(ParseMemoryMax("17179869184\n")->bytes, 16 * kGiB);
  EXPECT_FALSE(ParseMemoryMax("16G").ok());
  EXPECT_FALSE(ParseMemoryMax("-1").ok());
  EXPECT_FALSE(ParseMemoryMax("0x10").ok());
  EXPECT_TRUE(ParseV1MemoryLimit("9223372036854771712\n")->unlimited);
  EXPECT_EQ(ParseV1MemoryLimit("8589934592")->bytes, 8 * kGiB);
  EXPECT_FALSE(ParseV1MemoryLimit("").ok());
}

TEST(CgroupReadTest, V2TightestLimitUpTheTree) {
  test::TempTree fx("cgroup");
  fx.Write("proc/self/cgroup", "0::/job.slice/step\n");
  fx.Write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  fx.Write("sys/fs/cgroup/job.slice/cpu.max", "400000 100000\n");
  fx.Write("sys/fs/cgroup/job.slice/memory.max", "8589934592\n");
  fx.Write("sys/fs/cgroup/job.slice/step/cpu.max", "max 100000\n");
  fx.Write("sys/fs/cgroup/job.slice/step/memory.max", "17179869184\n");
  CgroupState s = ReadCgroup(HostPaths(fx.root()), 0);
  EXPECT_EQ(s.version, 2);
  EXPECT_EQ(s.path, "/job.slice/step");
  ASSERT_TRUE(s.cpu_quota_cores.has()) << s.cpu_quota_cores.note;
  EXPECT_DOUBLE_EQ(*s.cpu_quota_cores, 4.0);
  EXPECT_FALSE(s.cpu_unlimited);
  ASSERT_TRUE(s.memory_max_bytes.has()) << s.memory_max_bytes.note;
  EXPECT_EQ(*s.memory_max_bytes, 8 * kGiB);
}

TEST(CgroupReadTest, V2UnlimitedAndPrivateNamespace) {
  test::TempTree fx("cgroup");
  // Inside a container: the file names a host path the container's cgroup fs does not have.
  fx.Write("proc/4242/cgroup", "0::/kubepods.slice/pod/cri.scope\n");
  fx.Write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  fx.Write("sys/fs/cgroup/cpu.max", "max 100000\n");
  fx.Write("sys/fs/cgroup/memory.max", "max\n");
  CgroupState s = ReadCgroup(HostPaths(fx.root()), 4242);
  EXPECT_EQ(s.version, 2);
  EXPECT_TRUE(s.cpu_unlimited);
  EXPECT_TRUE(s.cpu_quota_cores.unsupported());
  EXPECT_TRUE(s.memory_unlimited);
  // The namespace root holds the container's limits.
  fx.Write("sys/fs/cgroup/cpu.max", "150000 100000\n");
  s = ReadCgroup(HostPaths(fx.root()), 4242);
  EXPECT_DOUBLE_EQ(*s.cpu_quota_cores, 1.5);
}

TEST(CgroupReadTest, V1CpuAndMemory) {
  test::TempTree fx("cgroup");
  fx.Write("proc/self/cgroup",
           "4:cpu,cpuacct:/slurm/job_42\n3:memory:/slurm/job_42\n1:name=systemd:/x\n");
  fx.Write("sys/fs/cgroup/cpu,cpuacct/slurm/job_42/cpu.cfs_quota_us", "800000\n");
  fx.Write("sys/fs/cgroup/cpu,cpuacct/slurm/job_42/cpu.cfs_period_us", "100000\n");
  fx.Write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  fx.Write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  fx.Write("sys/fs/cgroup/memory/slurm/job_42/memory.limit_in_bytes", "34359738368\n");
  fx.Write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  CgroupState s = ReadCgroup(HostPaths(fx.root()), 0);
  EXPECT_EQ(s.version, 1);
  EXPECT_EQ(s.path, "/slurm/job_42");
  EXPECT_DOUBLE_EQ(*s.cpu_quota_cores, 8.0);
  EXPECT_EQ(*s.memory_max_bytes, 32 * kGiB);
}

TEST(CgroupReadTest, V1UnlimitedWithCpuMountSymlinkName) {
  test::TempTree fx("cgroup");
  fx.Write("proc/self/cgroup", "4:cpuacct,cpu:/\n3:memory:/\n");
  fx.Write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
  fx.Write("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  fx.Write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  CgroupState s = ReadCgroup(HostPaths(fx.root()), 0);
  EXPECT_EQ(s.version, 1);
  EXPECT_TRUE(s.cpu_unlimited);
  EXPECT_TRUE(s.memory_unlimited);
}

TEST(CgroupReadTest, ErrorsNameTheFile) {
  test::TempTree fx("cgroup");
  fx.Write("proc/self/cgroup", "0::/a\n");
  fx.Write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  fx.Write("sys/fs/cgroup/a/cpu.max", "lots 100000\n");
  fx.Write("sys/fs/cgroup/a/memory.max", "16G\n");
  CgroupState s = ReadCgroup(HostPaths(fx.root()), 0);
  ASSERT_TRUE(s.cpu_quota_cores.error());
  EXPECT_NE(s.cpu_quota_cores.note.find("/a/cpu.max"), std::string::npos) << s.cpu_quota_cores.note;
  ASSERT_TRUE(s.memory_max_bytes.error());
  EXPECT_NE(s.memory_max_bytes.note.find("memory.max"), std::string::npos);

  // A pid that does not exist.
  s = ReadCgroup(HostPaths(fx.root()), 999999);
  EXPECT_TRUE(s.cpu_quota_cores.error());
  EXPECT_EQ(s.cpu_quota_cores.note, "no such process 999999");

  // Garbage in /proc/self/cgroup; ".." in the path does not escape the mount.
  fx.Write("proc/self/cgroup", "garbage\n");
  s = ReadCgroup(HostPaths(fx.root()), 0);
  EXPECT_TRUE(s.cpu_quota_cores.error());
  EXPECT_NE(s.cpu_quota_cores.note.find("cgroup"), std::string::npos);
  fx.Write("proc/self/cgroup", "0::/../../etc\n");
  fx.Write("sys/fs/cgroup/cpu.max", "100000 100000\n");
  s = ReadCgroup(HostPaths(fx.root()), 0);
  EXPECT_DOUBLE_EQ(*s.cpu_quota_cores, 1.0);
}

TEST(CgroupReadTest, NoCgroupFs) {
  test::TempTree fx("cgroup");
  fx.Write("proc/self/cgroup", "0::/\n");
  CgroupState s = ReadCgroup(HostPaths(fx.root()), 0);
  EXPECT_TRUE(s.cpu_quota_cores.unsupported()) << s.cpu_quota_cores.note;
  EXPECT_FALSE(s.cpu_unlimited);
  test::TempTree empty("cgroup");
  s = ReadCgroup(HostPaths(empty.root()), 0);
  EXPECT_EQ(s.version, 0);
  EXPECT_TRUE(s.memory_max_bytes.unsupported());
}

}  // namespace
}  // namespace gpuvet
