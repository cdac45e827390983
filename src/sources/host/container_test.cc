// Tests of the container sources: environment parsing and the sources it is read from, container
// detection on docker-, podman- and Kubernetes-like trees and bare metal, and the device cgroup
// (v1 devices.list, v2 with the open() probe injected).
#include "sources/host/container.h"

#include <errno.h>
#include <gtest/gtest.h>

#include <string>

#include "sources/host/dev_nodes.h"
#include "sources/host/device_cgroup.h"
#include "sources/host/gpu_environment.h"
#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

using Vars = std::map<std::string, std::string>;
using namespace std::string_literals;

// --- environment ---

TEST(EnvironmentTest, ParsesEnvironFormatKeepingOnlyGpuVariables) {
  std::string text =
      "PATH=/usr/bin\0CUDA_VISIBLE_DEVICES=0,1\0AWS_SECRET_ACCESS_KEY=s3cr3t\0"
      "NVIDIA_VISIBLE_DEVICES=\0container=podman\0"s;
  auto vars = ParseEnvironment(text, "/proc/1/environ");
  ASSERT_TRUE(vars.ok()) << vars.status().message();
  EXPECT_EQ(*vars, (Vars{{"CUDA_VISIBLE_DEVICES", "0,1"},
                         {"NVIDIA_VISIBLE_DEVICES", ""},
                         {"container", "podman"}}));
}

TEST(EnvironmentTest, ParsesEnvFileLines) {
  auto vars = ParseEnvironment(
      "# job environment\n\nexport CUDA_VISIBLE_DEVICES=\"2,3\"\r\nNVIDIA_VISIBLE_DEVICES='void'\n"
      "HOME=/root\nCUDA_DEVICE_ORDER\n",
      "job.env");
  ASSERT_TRUE(vars.ok()) << vars.status().message();
  EXPECT_EQ(*vars, (Vars{{"CUDA_VISIBLE_DEVICES", "2,3"}, {"NVIDIA_VISIBLE_DEVICES", "void"}}));
  EXPECT_TRUE(ParseEnvironment("", "empty")->empty());
}

TEST(EnvironmentTest, GarbledLineNamesFileAndLine) {
  auto vars = ParseEnvironment("CUDA_VISIBLE_DEVICES=0\n=oops\n", "job.env");
  ASSERT_FALSE(vars.ok());
  EXPECT_EQ(vars.status().message(), "job.env:2: '=oops' is not a KEY=VALUE line");
  EXPECT_FALSE(ParseEnvironment("9LIVES=1\n", "x").ok());
  EXPECT_FALSE(ParseEnvironment("\xff\xfe binary\n", "x").ok());
}

TEST(EnvironmentTest, ReadsFromFixtureProcessAndEnvFile) {
  test::TempTree tree("gpu_env");
  tree.Write("proc/self/environ", "CUDA_VISIBLE_DEVICES=1\0"s);
  tree.Write("proc/4242/environ", "NVIDIA_VISIBLE_DEVICES=all\0"s);
  tree.Write("job.env", "CUDA_VISIBLE_DEVICES=7\n");
  HostPaths paths(tree.root());
  GpuEnvironment self = ReadGpuEnvironment(paths, 0, "");
  EXPECT_EQ(self.source, "/proc/self/environ");
  ASSERT_TRUE(self.vars.has());
  EXPECT_EQ(self.vars->at("CUDA_VISIBLE_DEVICES"), "1");
  GpuEnvironment pid = ReadGpuEnvironment(paths, 4242, "");
  EXPECT_EQ(pid.source, "/proc/4242/environ");
  EXPECT_EQ(pid.vars->at("NVIDIA_VISIBLE_DEVICES"), "all");
  GpuEnvironment file = ReadGpuEnvironment(paths, 4242, tree.Path("job.env"));
  EXPECT_EQ(file.source, "--env-file " + tree.Path("job.env"));
  EXPECT_EQ(file.vars->at("CUDA_VISIBLE_DEVICES"), "7");
  // A tree without the file: not checkable here, said so.
  GpuEnvironment missing = ReadGpuEnvironment(paths, 77, "");
  EXPECT_TRUE(missing.vars.unsupported());
  // A missing --env-file is an error (the CLI refuses it earlier with a usage error).
  GpuEnvironment bad_file = ReadGpuEnvironment(paths, 0, tree.Path("nope.env"));
  EXPECT_TRUE(bad_file.vars.error());
}

TEST(EnvironmentTest, LiveDefaultIsOwnEnvironment) {
  ::setenv("CUDA_VISIBLE_DEVICES", "5", 1);
  GpuEnvironment env = ReadGpuEnvironment(HostPaths(), 0, "");
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(env.source, "environment of gpuvet");
  ASSERT_TRUE(env.vars.has());
  EXPECT_EQ(env.vars->at("CUDA_VISIBLE_DEVICES"), "5");
}

// --- container detection ---

ContainerState Detect(const test::TempTree& tree, int pid = 0, Vars vars = {}) {
  GpuEnvironment env;
  env.vars = Reading<Vars>::Of(std::move(vars));
  ContainerState c;
  DetectContainer(HostPaths(tree.root()), pid, env, &c);
  return c;
}

constexpr const char* kOverlayMountinfo =
    "622 540 0:52 / / rw,relatime master:300 - overlay overlay rw,lowerdir=/var/lib/docker/"
    "overlay2/l/ABC,upperdir=/var/lib/docker/overlay2/x/diff,workdir=/var/lib/docker/overlay2/x/"
    "work\n"
    "623 622 0:55 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n";

TEST(ContainerDetectTest, DockerLike) {
  test::TempTree tree("ctr_docker");
  tree.Write(".dockerenv", "");
  tree.Write("proc/1/cgroup",
             "12:devices:/docker/3f1c2a\n11:memory:/docker/3f1c2a\n0::/docker/3f1c2a\n");
  tree.Write("proc/self/mountinfo", kOverlayMountinfo);
  ContainerState c = Detect(tree);
  EXPECT_TRUE(c.in_container);
  EXPECT_EQ(c.runtime, "docker");
  ASSERT_EQ(c.evidence.size(), 3u);
  EXPECT_EQ(c.evidence[0], "/.dockerenv exists");
  EXPECT_EQ(c.evidence[1], "/proc/1/cgroup: 12:devices:/docker/3f1c2a");
  EXPECT_EQ(c.evidence[2], "/proc/self/mountinfo: / is an overlay mount");
}

TEST(ContainerDetectTest, PodmanLike) {
  test::TempTree tree("ctr_podman");
  tree.Write("run/.containerenv", "engine=\"podman-4.9.3\"\nname=\"trainer\"\n");
  tree.Write("proc/1/cgroup", "0::/\n");  // private cgroup namespace: nothing to see
  ContainerState c = Detect(tree, 0, {{"container", "podman"}});
  EXPECT_TRUE(c.in_container);
  EXPECT_EQ(c.runtime, "podman");
  ASSERT_EQ(c.evidence.size(), 2u);
  EXPECT_EQ(c.evidence[0], "/run/.containerenv exists (engine=\"podman-4.9.3\")");
  EXPECT_EQ(c.evidence[1], "container=podman in the environment");
}

TEST(ContainerDetectTest, KubernetesLikeWinsOverTheEngine) {
  test::TempTree tree("ctr_k8s");
  tree.Write("proc/1/cgroup",
             "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b.slice/"
             "cri-containerd-9f8e.scope\n");
  tree.Write("proc/self/mountinfo", kOverlayMountinfo);
  ContainerState c = Detect(tree, 0, {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}});
  EXPECT_TRUE(c.in_container);
  EXPECT_EQ(c.runtime, "kubernetes");
  EXPECT_EQ(c.evidence.size(), 3u);
}

TEST(ContainerDetectTest, ProcessInAPodSeenFromTheHost) {
  test::TempTree tree("ctr_pid");
  tree.Write("proc/1/cgroup", "0::/init.scope\n");
  tree.Write("proc/4242/cgroup", "0::/kubepods.slice/kubepods-pod77.slice/crio-abc.scope\n");
  ContainerState c = Detect(tree, 4242);
  EXPECT_EQ(c.runtime, "kubernetes");
  ASSERT_EQ(c.evidence.size(), 1u);
  EXPECT_EQ(c.evidence[0].rfind("/proc/4242/cgroup: ", 0), 0u) << c.evidence[0];
}

TEST(ContainerDetectTest, BareMetal) {
  test::TempTree tree("ctr_bare");
  tree.Write("proc/1/cgroup", "0::/init.scope\n");
  tree.Write("proc/self/cgroup", "0::/user.slice/user-1000.slice/session-4.scope\n");
  tree.Write("proc/self/mountinfo",
             "26 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro\n");
  ContainerState c = Detect(tree);
  EXPECT_FALSE(c.in_container);
  EXPECT_EQ(c.runtime, "");
  EXPECT_TRUE(c.evidence.empty());
  EXPECT_FALSE(Detect(test::TempTree("ctr_empty")).in_container);  // nothing readable at all
}

TEST(ContainerDetectTest, CgroupPathRuntimes) {
  EXPECT_EQ(RuntimeFromCgroupPath("/system.slice/docker-3f1c.scope"), "docker");
  EXPECT_EQ(RuntimeFromCgroupPath("/machine.slice/libpod-3f1c.scope/container"), "podman");
  EXPECT_EQ(RuntimeFromCgroupPath("/system.slice/crio-3f1c.scope"), "cri-o");
  EXPECT_EQ(RuntimeFromCgroupPath("/lxc.payload.c1"), "lxc");
  EXPECT_EQ(RuntimeFromCgroupPath("/system.slice/docker.service"), "");
  EXPECT_EQ(RuntimeFromCgroupPath("/"), "");
  EXPECT_FALSE(MountinfoHasOverlayRoot("garbage\n1 2 3\n"));
  EXPECT_FALSE(MountinfoHasOverlayRoot(
      "30 26 0:27 / /var/lib/docker/overlay2/x/merged rw - overlay overlay rw\n"));
}

// --- device cgroup ---

TEST(DeviceCgroupTest, ParsesAndEvaluatesDevicesList) {
  auto rules = ParseDevicesList("c 1:3 rwm\nc 195:0 rw\nc 195:255 rwm\nc 509:* r\nb *:* m\n");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  ASSERT_EQ(rules->size(), 5u);
  EXPECT_EQ(AllowingRule(*rules, 195, 0)->text, "c 195:0 rw");
  EXPECT_EQ(AllowingRule(*rules, 195, 1), nullptr);
  EXPECT_EQ(AllowingRule(*rules, 509, 0), nullptr);  // read-only is not enough for CUDA
  auto all = ParseDevicesList("a *:* rwm\n");
  EXPECT_NE(AllowingRule(*all, 195, 7), nullptr);
  auto bad = ParseDevicesList("c 1:3 rwm\nx 195 rwm\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "devices.list:2: 'x 195 rwm' is not a device rule");
  EXPECT_FALSE(ParseDevicesList("c 195:0 rwx\n").ok());
}

TEST(DeviceCgroupTest, DeviceNumbersFromNames) {
  auto majors = ParseProcDevices(
      "Character devices:\n  1 mem\n195 nvidia-frontend\n509 nvidia-uvm\n\nBlock devices:\n"
      "259 blkext\n");
  EXPECT_EQ(majors.at("nvidia-uvm"), 509);
  EXPECT_EQ(majors.count("blkext"), 0u);
  EXPECT_EQ(NvidiaDeviceNumber("nvidia3", majors), (std::pair<int, int>{195, 3}));
  EXPECT_EQ(NvidiaDeviceNumber("nvidiactl", majors), (std::pair<int, int>{195, 255}));
  EXPECT_EQ(NvidiaDeviceNumber("nvidia-uvm-tools", majors), (std::pair<int, int>{509, 1}));
  EXPECT_EQ(NvidiaDeviceNumber("nvidia-uvm", {}), (std::pair<int, int>{-1, -1}));
  EXPECT_EQ(NvidiaDeviceNumber("nvidia-caps", majors), (std::pair<int, int>{-1, -1}));
}

std::vector<DeviceNode> Nodes(const test::TempTree& tree) {
  return ReadDeviceNodes(HostPaths(tree.root()), {0, 1});
}

TEST(DeviceCgroupTest, V1DeniedNodes) {
  test::TempTree tree("devcg_v1");
  for (const char* n : {"nvidiactl", "nvidia-uvm", "nvidia0", "nvidia1"}) {
    tree.Write(std::string("dev/") + n, "");
  }
  tree.Write("proc/devices", "Character devices:\n195 nvidia-frontend\n509 nvidia-uvm\n");
  tree.Write("proc/self/cgroup", "12:devices:/docker/3f1c\n11:memory:/docker/3f1c\n");
  // After a daemon-reload systemd rewrote the rules: only the default devices remain.
  tree.Write("sys/fs/cgroup/devices/docker/3f1c/devices.list",
             "c 1:3 rwm\nc 1:5 rwm\nc 195:255 rwm\nc 509:0 rwm\n");
  DeviceCgroupState d = ReadDeviceCgroup(HostPaths(tree.root()), 0, Nodes(tree));
  EXPECT_EQ(d.version, 1);
  EXPECT_EQ(d.path, "/sys/fs/cgroup/devices/docker/3f1c");
  ASSERT_EQ(d.nodes.size(), 4u);
  EXPECT_EQ(d.nodes[0].path, "/dev/nvidiactl");
  EXPECT_EQ(d.nodes[0].v1_verdict, "allowed");
  EXPECT_EQ(d.nodes[0].v1_rule, "c 195:255 rwm");
  EXPECT_EQ(d.nodes[1].v1_verdict, "allowed");
  EXPECT_EQ(d.nodes[2].path, "/dev/nvidia0");
  EXPECT_EQ(d.nodes[2].v1_verdict, "denied");
  EXPECT_EQ(d.nodes[2].major, 195);
  EXPECT_EQ(d.nodes[2].minor, 0);
  EXPECT_EQ(d.nodes[2].probe_errno, -1);  // fixture files are never probed
}

TEST(DeviceCgroupTest, V1PrivateNamespaceFallsBackToMountRoot) {
  test::TempTree tree("devcg_v1ns");
  tree.Write("dev/nvidia0", "");
  tree.Write("proc/self/cgroup", "12:devices:/\n");
  tree.Write("sys/fs/cgroup/devices/devices.list", "a *:* rwm\n");
  DeviceCgroupState d = ReadDeviceCgroup(HostPaths(tree.root()), 0, Nodes(tree));
  EXPECT_EQ(d.path, "/sys/fs/cgroup/devices");
  ASSERT_EQ(d.nodes.size(), 1u);
  EXPECT_EQ(d.nodes[0].v1_verdict, "allowed");
  tree.Write("sys/fs/cgroup/devices/devices.list", "c 195 rwm\n");
  d = ReadDeviceCgroup(HostPaths(tree.root()), 0, Nodes(tree));
  ASSERT_TRUE(d.v1_rules.error());
  EXPECT_NE(d.v1_rules.note.find("devices.list:1"), std::string::npos) << d.v1_rules.note;
  EXPECT_EQ(d.nodes[0].v1_verdict, "");
}

int DenyProbe(const std::string&) { return EPERM; }
int AllowProbe(const std::string&) { return 0; }

TEST(DeviceCgroupTest, V2ProbesRealCharacterDevices) {
  test::TempTree tree("devcg_v2");
  tree.Write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  tree.Write("proc/self/cgroup", "0::/\n");
  // A real character device stands in for /dev/nvidia0; a regular file for /dev/nvidia1.
  tree.Link("dev/nvidia0", "/dev/null");
  tree.Write("dev/nvidia1", "");
  DeviceCgroupState d = ReadDeviceCgroup(HostPaths(tree.root()), 0, Nodes(tree), DenyProbe);
  EXPECT_EQ(d.version, 2);
  EXPECT_NE(d.note.find("eBPF"), std::string::npos);
  ASSERT_EQ(d.nodes.size(), 2u);
  EXPECT_EQ(d.nodes[0].probe_errno, EPERM);
  EXPECT_EQ(d.nodes[0].major, 1);  // /dev/null's own numbers, from st_rdev
  EXPECT_EQ(d.nodes[0].minor, 3);
  EXPECT_EQ(d.nodes[1].probe_errno, -1);
  d = ReadDeviceCgroup(HostPaths(tree.root()), 0, Nodes(tree), AllowProbe);
  EXPECT_EQ(d.nodes[0].probe_errno, 0);
  // The real probe opens /dev/null read-write.
  EXPECT_EQ(OpenProbe("/dev/null"), 0);
  EXPECT_EQ(OpenProbe(tree.Path("dev/absent")), ENOENT);
}

}  // namespace
}  // namespace gpuvet
