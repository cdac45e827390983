// Tests of the host sources other than PCI and cgroup (their own files): meminfo and PSI, system
// info, CPU lists and governors, device nodes and /proc/PID — parsers with inline strings, readers
// over a fixture tree — and ReadHostState assembling them all.
#include "sources/host/host_source.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "sources/host/cpu_sources.h"
#include "sources/host/dev_nodes.h"
#include "sources/host/meminfo.h"
#include "sources/host/process_info.h"
#include "sources/host/system_info.h"
#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

// --- meminfo and PSI ---

TEST(MeminfoTest, ParsesKilobytes) {
  MemInfo m = ParseMeminfo(
      "MemTotal:       263736528 kB\nMemFree:         1000 kB\nMemAvailable:   131868264 kB\n"
      "SwapTotal:             0 kB\nSwapFree:              0 kB\nHugePages_Total:       0\n",
      "/proc/meminfo");
  EXPECT_EQ(*m.total_bytes, 263736528ull * 1024);
  EXPECT_EQ(*m.available_bytes, 131868264ull * 1024);
  EXPECT_EQ(*m.swap_total_bytes, 0u);
  EXPECT_TRUE(m.swap_free_bytes.has());
}

TEST(MeminfoTest, MissingAndGarbled) {
  MemInfo m = ParseMeminfo(
      "MemTotal: 1024 kB\nMemFree: 12 kB\nSwapTotal: lots kB\nSwapFree: 1 MB\n", "/proc/meminfo");
  EXPECT_TRUE(m.total_bytes.has());
  EXPECT_TRUE(m.available_bytes.unsupported());  // kernels before 3.14
  ASSERT_TRUE(m.swap_total_bytes.error());
  EXPECT_NE(m.swap_total_bytes.note.find("/proc/meminfo:3"), std::string::npos)
      << m.swap_total_bytes.note;
  EXPECT_TRUE(m.swap_free_bytes.error());
  m = ParseMeminfo("MemTotal: 99999999999999999999 kB\n", "/proc/meminfo");
  EXPECT_TRUE(m.total_bytes.error());
  m = ParseMeminfo(std::string("\0\xff garbage", 10), "/proc/meminfo");
  EXPECT_TRUE(m.total_bytes.unsupported());
}

TEST(PsiTest, ParsesSomeAndFull) {
  auto f = ParsePsiFile(
      "some avg10=0.00 avg60=1.50 avg300=0.25 total=123456\n"
      "full avg10=0.00 avg60=7.25 avg300=0.00 total=42\n");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_DOUBLE_EQ(f->some->avg60, 1.5);
  EXPECT_EQ(f->some->total_us, 123456u);
  EXPECT_DOUBLE_EQ(f->full->avg60, 7.25);
  auto cpu_old = ParsePsiFile("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
  ASSERT_TRUE(cpu_old.ok());
  EXPECT_FALSE(cpu_old->full.has_value());
}

TEST(PsiTest, Garbage) {
  EXPECT_FALSE(ParsePsiLine("avg10=0.00 avg60=x avg300=0.00 total=0").ok());
  EXPECT_FALSE(ParsePsiLine("avg10=0.00 avg300=0.00 total=0").ok());
  EXPECT_FALSE(ParsePsiLine("avg10=0.00 avg60=500 avg300=0.00 total=0").ok());
  EXPECT_FALSE(ParsePsiLine("avg10 avg60 avg300 total").ok());
  auto bad = ParsePsiFile("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nhalf avg10=1\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos);
  EXPECT_FALSE(ParsePsiFile("").ok());
}

TEST(PsiTest, ReadsFilesAndAbsence) {
  test::TempTree fx("host");
  EXPECT_TRUE(ReadPsi(HostPaths(fx.root())).memory_full.unsupported());
  fx.Write("proc/pressure/cpu", "some avg10=0.00 avg60=41.00 avg300=0.00 total=1\n");
  fx.Write("proc/pressure/memory",
           "some avg10=0.00 avg60=2.00 avg300=0.00 total=1\n"
           "full avg10=0.00 avg60=1.00 avg300=0.00 total=1\n");
  fx.Write("proc/pressure/io", "garbage\n");
  PsiState p = ReadPsi(HostPaths(fx.root()));
  EXPECT_DOUBLE_EQ(p.cpu_some->avg60, 41.0);
  EXPECT_DOUBLE_EQ(p.memory_full->avg60, 1.0);
  ASSERT_TRUE(p.io_full.error());
  EXPECT_NE(p.io_full.note.find("pressure/io"), std::string::npos);
}

// --- system info ---

TEST(SystemInfoTest, ModuleVersionVariants) {
  EXPECT_EQ(*ParseNvidiaModuleVersion(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Thu May 23 12:44:35 "
                "UTC 2024\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
            "550.90.07");
  EXPECT_EQ(*ParseNvidiaModuleVersion(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release "
                "Build  (dvs-builder@U16-I3-B03-4-3)  Fri Aug 16 21:42:42 UTC 2024\n"),
            "560.35.03");
  EXPECT_EQ(*ParseNvidiaModuleVersion(
                "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  535.183.01  Release\n"),
            "535.183.01");
  EXPECT_FALSE(ParseNvidiaModuleVersion("NVRM version: NVIDIA UNIX Kernel Module\n").ok());
  EXPECT_FALSE(ParseNvidiaModuleVersion("something else entirely").ok());
  EXPECT_FALSE(ParseNvidiaModuleVersion("").ok());
}

TEST(SystemInfoTest, UptimeAndReader) {
  EXPECT_DOUBLE_EQ(*ParseUptime("12345.67 54321.00\n"), 12345.67);
  EXPECT_FALSE(ParseUptime("").ok());
  EXPECT_FALSE(ParseUptime("-1 0").ok());
  EXPECT_FALSE(ParseUptime("soon").ok());

  test::TempTree fx("host");
  fx.Write("proc/sys/kernel/hostname", "gpu-node-7\n");
  fx.Write("proc/sys/kernel/osrelease", "6.1.0-21-amd64\n");
  fx.Write("proc/uptime", "100.5 200.0\n");
  SystemInfo info = ReadSystemInfo(HostPaths(fx.root()));
  EXPECT_EQ(*info.hostname, "gpu-node-7");
  EXPECT_EQ(*info.kernel_release, "6.1.0-21-amd64");
  EXPECT_DOUBLE_EQ(*info.uptime_s, 100.5);
  EXPECT_TRUE(info.nvidia_module_version.unsupported());
  EXPECT_EQ(info.nvidia_module_version.note,
            "nvidia kernel module not loaded (/proc/driver/nvidia/version absent)");
  fx.Write("proc/driver/nvidia/version", "NVRM version: garbled\n");
  info = ReadSystemInfo(HostPaths(fx.root()));
  ASSERT_TRUE(info.nvidia_module_version.error());
  EXPECT_NE(info.nvidia_module_version.note.find("driver/nvidia/version"), std::string::npos);
}

// --- CPUs ---

TEST(CpuSourcesTest, OnlineAndGovernors) {
  EXPECT_EQ(*ParseOnlineCpuCount("0-63\n"), 64);
  EXPECT_EQ(*ParseOnlineCpuCount("0-3,8-11"), 8);
  EXPECT_FALSE(ParseOnlineCpuCount("").ok());
  EXPECT_FALSE(ParseOnlineCpuCount("0-x").ok());
  EXPECT_EQ(*ParseGovernor("performance\n"), "performance");
  EXPECT_FALSE(ParseGovernor("").ok());
  EXPECT_FALSE(ParseGovernor("perf ormance").ok());

  test::TempTree fx("host");
  CpuFreqState none = ReadCpuFreq(HostPaths(fx.root()));
  EXPECT_TRUE(none.governors.empty());
  EXPECT_FALSE(none.note.empty());
  fx.Write("sys/devices/system/cpu/online", "0-3\n");
  fx.Write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
  fx.Write("sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
  fx.Write("sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", "powersave\n");
  fx.Write("sys/devices/system/cpu/cpu3/online", "0\n");  // offline: no cpufreq
  fx.Write("sys/devices/system/cpu/cpufreq/boost", "1\n");
  HostPaths paths(fx.root());
  EXPECT_EQ(*ReadOnlineCpus(paths), 4);
  CpuFreqState s = ReadCpuFreq(paths);
  ASSERT_EQ(s.governors.size(), 2u);
  EXPECT_EQ(s.governors["performance"], std::vector<int>({0}));
  EXPECT_EQ(s.governors["powersave"], std::vector<int>({1, 2}));
  EXPECT_TRUE(s.note.empty()) << s.note;
  fx.Write("sys/devices/system/cpu/online", "garbage");
  EXPECT_TRUE(ReadOnlineCpus(paths).error());
}

// --- device nodes ---

TEST(DevNodesTest, ExistenceAndAccess) {
  test::TempTree fx("host");
  fx.Write("dev/nvidiactl", "");
  fx.Write("dev/nvidia0", "");
  fx.Write("dev/nvidia1", "");
  ::chmod((fx.root() + "/dev/nvidia1").c_str(), 0000);
  std::vector<DeviceNode> nodes = ReadDeviceNodes(HostPaths(fx.root()), {0, 1, 1, -1, 2});
  ASSERT_EQ(nodes.size(), 5u);
  EXPECT_EQ(nodes[0].path, "/dev/nvidiactl");
  EXPECT_TRUE(nodes[0].exists);
  EXPECT_FALSE(nodes[0].is_char_device);
  EXPECT_TRUE(nodes[0].readable && nodes[0].writable);
  EXPECT_EQ(nodes[1].path, "/dev/nvidia-uvm");
  EXPECT_FALSE(nodes[1].exists);
  EXPECT_EQ(nodes[3].path, "/dev/nvidia1");
  EXPECT_TRUE(nodes[3].exists);
  EXPECT_EQ(nodes[3].mode, 0u);
  if (::geteuid() != 0) {
    EXPECT_FALSE(nodes[3].readable);  // root ignores the mode
  }
  EXPECT_EQ(nodes[4].path, "/dev/nvidia2");
  EXPECT_FALSE(nodes[4].exists);
}

// --- processes ---

TEST(ProcessInfoTest, StatusAndMaps) {
  auto st = ParseProcStatus(
      "Name:\tpython3\nUmask:\t0022\nPid:\t4242\nCpus_allowed:\tff\n"
      "Cpus_allowed_list:\t0-7\n");
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->name, "python3");
  EXPECT_EQ(st->pid, 4242);
  EXPECT_EQ(st->cpus_allowed.size(), 8u);
  EXPECT_FALSE(ParseProcStatus("Name:\tx\n").ok());
  EXPECT_FALSE(ParseProcStatus("Pid:\tabc\nCpus_allowed_list:\t0\n").ok());
  EXPECT_FALSE(ParseProcStatus("Cpus_allowed_list:\t9-2\n").ok());

  GpuMappings m = ScanMapsForGpu(
      "7f00-7f01 rw-s 00000000 00:05 100 /dev/nvidiactl\n"
      "7f01-7f02 rw-s 00000000 00:05 100 /dev/nvidiactl\n"
      "7f02-7f03 rw-s 00000000 00:05 101 /dev/nvidia0\n"
      "7f03-7f04 r-xp 00000000 08:01 200 /usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07\n"
      "7f04-7f05 r-xp 00000000 08:01 201 /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 (deleted)\n"
      "7f05-7f06 r-xp 00000000 08:01 202 /usr/lib/libcudart.so.12\n"
      "7f06-7f07 rw-p 00000000 00:00 0 \n"
      "7f07-7f08 rw-p 00000000 00:00 0 [heap]\n"
      "7f08-7f09 r--p 00000000 08:01 203 /home/u/my lib/libcuda.so.1\n"
      "7f09-7f0a r--p 00000000 08:01 204 /dev/nvidia-uvm\n"
      "short line\n");
  EXPECT_TRUE(m.maps_gpu);
  ASSERT_EQ(m.evidence.size(), kMaxGpuEvidence);
  EXPECT_EQ(m.evidence[0], "/dev/nvidiactl");
  EXPECT_EQ(m.evidence[3], "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
  EXPECT_EQ(m.evidence[4], "/home/u/my lib/libcuda.so.1");
  EXPECT_FALSE(
      ScanMapsForGpu("7f06-7f07 r-xp 00000000 08:01 202 /usr/lib/libcudart.so.12\n").maps_gpu);
  EXPECT_FALSE(ScanMapsForGpu("").maps_gpu);
}

TEST(ProcessInfoTest, Reader) {
  test::TempTree fx("host");
  fx.Write("proc/self/status", "Name:\tgpuvet\nPid:\t77\nCpus_allowed_list:\t0-3\n");
  fx.Write("proc/self/maps", "");
  fx.Write("proc/4242/status", "Name:\tpython3\nPid:\t4242\nCpus_allowed_list:\t32-63\n");
  fx.Write("proc/4242/maps", "7f02-7f03 rw-s 00000000 00:05 101 /dev/nvidia0\n");
  HostPaths paths(fx.root());
  ProcessState self = ReadProcess(paths, 0);
  EXPECT_EQ(self.pid, 77);
  EXPECT_EQ(self.comm, "gpuvet");
  EXPECT_FALSE(*self.maps_gpu);
  ProcessState p = ReadProcess(paths, 4242);
  EXPECT_EQ(p.pid, 4242);
  EXPECT_EQ(p.cpus_allowed->front(), 32);
  EXPECT_TRUE(*p.maps_gpu);
  EXPECT_EQ(p.gpu_evidence, std::vector<std::string>({"/dev/nvidia0"}));
  ProcessState gone = ReadProcess(paths, 31337);
  EXPECT_EQ(gone.cpus_allowed.note, "no such process 31337");
  EXPECT_EQ(gone.maps_gpu.note, "no such process 31337");
  fx.Write("proc/4242/status", "Name:\tx\nCpus_allowed_list:\tnope\n");
  p = ReadProcess(paths, 4242);
  ASSERT_TRUE(p.cpus_allowed.error());
  EXPECT_NE(p.cpus_allowed.note.find("4242/status"), std::string::npos);
}

// --- everything together ---

TEST(HostSourceTest, ReadsAFixtureTree) {
  test::TempTree fx("host");
  fx.Write("proc/sys/kernel/hostname", "node1\n");
  fx.Write("proc/sys/kernel/osrelease", "6.1.0\n");
  fx.Write("proc/uptime", "60.0 100.0\n");
  fx.Write("proc/driver/nvidia/version",
           "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Thu May 23 2024\n");
  fx.Write("proc/meminfo", "MemTotal: 1000 kB\nMemAvailable: 500 kB\n");
  fx.Write("proc/4242/status", "Name:\tpython3\nPid:\t4242\nCpus_allowed_list:\t0-1\n");
  fx.Write("proc/4242/maps", "");
  fx.Write("proc/4242/cgroup", "0::/\n");
  fx.Write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  fx.Write("sys/devices/system/cpu/online", "0-1\n");
  const std::string gpu = "sys/devices/pci0000:00/0000:3b:00.0";
  fx.Write(gpu + "/vendor", "0x10de\n");
  fx.Write(gpu + "/class", "0x030200\n");
  fs::create_directories(fx.root() + "/sys/bus/pci/devices");
  fs::create_symlink("../../../devices/pci0000:00/0000:3b:00.0",
                     fx.root() + "/sys/bus/pci/devices/0000:3b:00.0");
  fx.Write("dev/nvidiactl", "");
  fx.Write("dev/nvidia0", "");
  fx.Write("kern.log", "");

  HostOptions options;
  options.pid = 4242;
  options.kernel_log_file = fx.root() + "/kern.log";
  HostState h = ReadHostState(HostPaths(fx.root()), options);
  EXPECT_EQ(h.hostname, "node1");
  EXPECT_EQ(h.kernel_release, "6.1.0");
  EXPECT_EQ(*h.nvidia_module_version, "550.90.07");
  EXPECT_EQ(*h.online_cpus, 2);
  ASSERT_TRUE(h.pci_gpus.has());
  ASSERT_EQ(h.pci_gpus->size(), 1u);
  EXPECT_EQ(h.cgroup.version, 2);
  EXPECT_TRUE(h.cgroup.cpu_unlimited);
  EXPECT_EQ(*h.meminfo.available_bytes, 500u * 1024);
  EXPECT_TRUE(h.psi.cpu_some.unsupported());
  EXPECT_TRUE(h.cpufreq.governors.empty());
  // No minors given: 0..n-1 of the PCI GPUs.
  ASSERT_EQ(h.device_nodes.size(), 3u);
  EXPECT_EQ(h.device_nodes[2].path, "/dev/nvidia0");
  EXPECT_TRUE(h.device_nodes[2].exists);
  EXPECT_TRUE(h.process_is_target);
  EXPECT_EQ(h.process.comm, "python3");

  options.gpu_minors = {3};
  options.pid = 0;
  h = ReadHostState(HostPaths(fx.root()), options);
  EXPECT_FALSE(h.process_is_target);
  ASSERT_EQ(h.device_nodes.size(), 3u);
  EXPECT_EQ(h.device_nodes[2].path, "/dev/nvidia3");
}

TEST(HostSourceTest, EmptyTreeDoesNotCrash) {
  test::TempTree fx("host");
  HostOptions options;
  options.kernel_log_file = fx.root() + "/absent.log";
  HostState h = ReadHostState(HostPaths(fx.root()), options);
  EXPECT_TRUE(h.pci_gpus.unsupported());
  EXPECT_TRUE(h.nvidia_module_version.unsupported());
  EXPECT_TRUE(h.online_cpus.error());
  EXPECT_TRUE(h.meminfo.total_bytes.error());
  EXPECT_TRUE(h.process.cpus_allowed.error());
  EXPECT_EQ(h.device_nodes.size(), 2u);
}

}  // namespace
}  // namespace gpuvet
