// Tests of the GPU process owner source: the Slurm (cgroup v1 and v2, environment) and Kubernetes
// (cgroupfs and systemd drivers, containerd/docker/cri-o, every QoS class) cgroup layouts, the
// status and passwd parsers, every parser cut at every byte and fed fixed-seed mutations, and the
// reader over a temp /proc tree (a process gone, an unreadable environment, a uid without a name).
#include "sources/host/gpu_owner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <random>
#include <string>

#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

using namespace std::string_literals;

constexpr char kPodUid[] = "1f2e3d4c-5b6a-4789-8abc-0123456789ab";
constexpr char kCid[] = "3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b";

GpuProcessOwner FromPath(std::string_view path) {
  GpuProcessOwner o;
  OwnerFromCgroupPath(path, o);
  return o;
}

TEST(GpuOwnerTest, SlurmCgroupV1) {
  GpuProcessOwner o = FromPath("/slurm/uid_1000/job_4242/step_0/task_0");
  EXPECT_EQ(o.slurm_job, "4242");
  EXPECT_EQ(o.slurm_job_from, "cgroup");
  EXPECT_EQ(o.cgroup, "/slurm/uid_1000/job_4242/step_0/task_0");
  // Multiple slurmd per host: /slurm_<nodename>/…
  EXPECT_EQ(FromPath("/slurm_gpu-node-01/uid_1000/job_77/step_batch/task_0").slurm_job, "77");
  // The job directory alone (a process of the job's external step).
  EXPECT_EQ(FromPath("/slurm/uid_0/job_9/step_extern").slurm_job, "9");
}

TEST(GpuOwnerTest, SlurmCgroupV2) {
  EXPECT_EQ(FromPath("/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0").slurm_job,
            "4242");
  EXPECT_EQ(FromPath("/system.slice/node01_slurmstepd.scope/job_5/step_0/user/task_1").slurm_job,
            "5");
  // slurmstepd's own cgroup has no job; a "job_" outside a Slurm tree is not Slurm's.
  EXPECT_TRUE(FromPath("/system.slice/slurmstepd.scope/system").slurm_job.empty());
  EXPECT_TRUE(FromPath("/user.slice/job_12/x").slurm_job.empty());
  EXPECT_TRUE(FromPath("/slurm/uid_1/job_12a/step_0").slurm_job.empty());
}

TEST(GpuOwnerTest, KubernetesCgroupfs) {
  GpuProcessOwner o = FromPath("/kubepods/burstable/pod"s + kPodUid + "/" + kCid);
  EXPECT_EQ(o.pod_uid, kPodUid);
  EXPECT_EQ(o.container_id, kCid);
  EXPECT_EQ(o.qos, "burstable");
  EXPECT_EQ(o.container_runtime, "");
  o = FromPath("/kubepods/pod"s + kPodUid + "/" + kCid);
  EXPECT_EQ(o.qos, "guaranteed");
  EXPECT_EQ(o.pod_uid, kPodUid);
  EXPECT_EQ(FromPath("/kubepods/besteffort/pod"s + kPodUid + "/" + kCid).qos, "besteffort");
  // The pod's own cgroup (a pause process): pod known, container not.
  o = FromPath("/kubepods/burstable/pod"s + kPodUid);
  EXPECT_EQ(o.pod_uid, kPodUid);
  EXPECT_EQ(o.container_id, "");
}

TEST(GpuOwnerTest, KubernetesSystemdDriver) {
  std::string uid_ = kPodUid;
  std::replace(uid_.begin(), uid_.end(), '-', '_');
  GpuProcessOwner o = FromPath("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" +
                               uid_ + ".slice/cri-containerd-" + kCid + ".scope");
  EXPECT_EQ(o.pod_uid, kPodUid);  // '_' back to '-'
  EXPECT_EQ(o.container_id, kCid);
  EXPECT_EQ(o.container_runtime, "containerd");
  EXPECT_EQ(o.qos, "burstable");
  o = FromPath("/kubepods.slice/kubepods-pod" + uid_ + ".slice/docker-" + kCid + ".scope");
  EXPECT_EQ(o.qos, "guaranteed");
  EXPECT_EQ(o.container_runtime, "docker");
  o = FromPath("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + uid_ +
               ".slice/crio-" + kCid + ".scope");
  EXPECT_EQ(o.container_runtime, "crio");
  EXPECT_EQ(o.qos, "besteffort");
  // cri-o's monitor is not the container.
  o = FromPath("/kubepods.slice/kubepods-pod" + uid_ + ".slice/crio-conmon-" + kCid + ".scope");
  EXPECT_EQ(o.pod_uid, kPodUid);
  EXPECT_EQ(o.container_id, "");
}

TEST(GpuOwnerTest, NeitherSlurmNorKubernetes) {
  GpuProcessOwner o;
  EXPECT_FALSE(OwnerFromCgroupPath("/user.slice/user-1000.slice/session-3.scope", o));
  EXPECT_FALSE(OwnerFromCgroupPath("/system.slice/docker-" + std::string(kCid) + ".scope", o));
  EXPECT_FALSE(OwnerFromCgroupPath("/kubepods/burstable/podNOT-A-UID/x", o));
  EXPECT_FALSE(OwnerFromCgroupPath("", o));
  EXPECT_FALSE(OwnerFromCgroupPath("/", o));
  EXPECT_TRUE(o.slurm_job.empty() && o.pod_uid.empty() && o.cgroup.empty());
}

TEST(GpuOwnerTest, ProcCgroupV1FindsTheJobInAnyController) {
  // proctrack/cgroup puts the job in freezer; cpu and memory may be elsewhere.
  GpuProcessOwner o;
  OwnerFromProcCgroup(
      "12:cpu,cpuacct:/\n11:memory:/slurm/uid_1000/job_4242/step_0/task_0\n"
      "4:freezer:/slurm/uid_1000/job_4242/step_0\n1:name=systemd:/system.slice/slurmd.service\n",
      o);
  EXPECT_EQ(o.slurm_job, "4242");
  EXPECT_EQ(o.cgroup, "/slurm/uid_1000/job_4242/step_0/task_0");
  GpuProcessOwner plain;
  OwnerFromProcCgroup("0::/user.slice/user-1000.slice/session-3.scope\n", plain);
  EXPECT_TRUE(plain.slurm_job.empty());
  EXPECT_EQ(plain.cgroup, "/user.slice/user-1000.slice/session-3.scope");
  GpuProcessOwner garbled;
  OwnerFromProcCgroup("no colon here\n:\n", garbled);
  EXPECT_TRUE(garbled.cgroup.empty());
}

TEST(GpuOwnerTest, SlurmJobFromEnviron) {
  EXPECT_EQ(SlurmJobFromEnviron("PATH=/bin\0SLURM_JOB_ID=4242\0HOME=/h\0"s), "4242");
  EXPECT_EQ(SlurmJobFromEnviron("SLURM_JOBID=17\0"s), "17");
  EXPECT_EQ(SlurmJobFromEnviron("SLURM_JOB_ID=18\0SLURM_JOBID=17\0"s), "18");
  EXPECT_EQ(SlurmJobFromEnviron("SLURM_JOBID=17\0SLURM_JOB_ID=18\0"s), "18");
  EXPECT_FALSE(SlurmJobFromEnviron("SLURM_JOB_ID=\0"s));
  EXPECT_FALSE(SlurmJobFromEnviron("SLURM_JOB_ID=12;rm\0"s));
  EXPECT_FALSE(SlurmJobFromEnviron("XSLURM_JOB_ID=1\0"s));
  EXPECT_FALSE(SlurmJobFromEnviron(""));
}

TEST(GpuOwnerTest, StatusAndPasswd) {
  GpuProcessOwner o;
  OwnerFromProcStatus(
      "Name:\tpython3\nUmask:\t0022\nState:\tR (running)\nUid:\t1000\t1000\t1000\t1000\n", o);
  EXPECT_EQ(o.comm, "python3");
  ASSERT_TRUE(o.uid.has_value());
  EXPECT_EQ(*o.uid, 1000u);
  GpuProcessOwner bad;
  OwnerFromProcStatus("Uid:\t99999999999\nUid:\t-1\nUid:\n", bad);
  EXPECT_FALSE(bad.uid.has_value());
  const char* passwd =
      "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n"
      "broken\n:x:7:7::/:/bin/sh\n";
  EXPECT_EQ(UserNameOf(passwd, 1000), "alice");
  EXPECT_EQ(UserNameOf(passwd, 0), "root");
  EXPECT_EQ(UserNameOf(passwd, 7), "");
  EXPECT_EQ(UserNameOf(passwd, 4242), "");
}

// Every parser over every prefix and fixed-seed mutations: no crash, no hang, and a result that
// is either empty or the syntax it claims (digits for a job, hex for ids).
TEST(GpuOwnerTest, CutAtEveryByteAndMutated) {
  std::string uid_ = kPodUid;
  std::replace(uid_.begin(), uid_.end(), '-', '_');
  const std::string inputs[] = {
      "11:memory:/slurm/uid_1000/job_4242/step_0/task_0\n0::/system.slice/slurmstepd.scope/"
      "job_4242/step_0/user/task_0\n",
      "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + uid_ +
          ".slice/cri-containerd-" + kCid + ".scope\n",
      "PATH=/bin\0SLURM_JOB_ID=4242\0"s,
      "Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\n",
  };
  auto check = [](std::string_view text) {
    GpuProcessOwner o;
    OwnerFromProcCgroup(text, o);
    OwnerFromProcStatus(text, o);
    for (char c : o.slurm_job) ASSERT_TRUE(c >= '0' && c <= '9') << o.slurm_job;
    for (char c : o.container_id) ASSERT_TRUE(isxdigit(static_cast<unsigned char>(c)));
    if (auto job = SlurmJobFromEnviron(text)) {
      ASSERT_FALSE(job->empty());
    }
    (void)UserNameOf(text, 1000);
  };
  std::mt19937 rng(20261201);
  for (const std::string& in : inputs) {
    for (size_t n = 0; n <= in.size(); ++n) check(std::string_view(in).substr(0, n));
    for (int i = 0; i < 2000; ++i) {
      std::string m = in;
      for (int k = 0; k < 3; ++k) {
        m[rng() % m.size()] = static_cast<char>("/:_-\0\n0az9"[rng() % 10]);
      }
      check(m);
    }
  }
}

TEST(GpuOwnerTest, ReadsOwnersThroughHostPaths) {
  test::TempTree tree("gpu_owner");
  tree.Write("etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n");
  tree.Write("proc/5001/status", "Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\n");
  tree.Write("proc/5001/cgroup", "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n");
  tree.Write("proc/5002/status", "Name:\ttorchrun\nUid:\t2000\t2000\t2000\t2000\n");
  tree.Write("proc/5002/cgroup", "0::/user.slice/user-2000.slice/session-1.scope\n");
  tree.Write("proc/5002/environ", "HOME=/h\0SLURM_JOB_ID=77\0"s);
  tree.Write("proc/5003/status", "Name:\tjupyter\nUid:\t3000\t3000\t3000\t3000\n");
  tree.Write("proc/5003/cgroup", "0::/user.slice\n");
  tree.Write("proc/5003/environ", "HOME=/h\0"s);
  chmod(tree.Path("proc/5003/environ").c_str(), 0);
  HostPaths paths(tree.root());
  auto owners = ReadGpuProcessOwners(paths, {5003, 5001, 9999, 5002, 5001, 0});
  ASSERT_EQ(owners.size(), 4u);
  EXPECT_EQ(owners[0].pid, 5001u);
  EXPECT_EQ(owners[0].slurm_job, "4242");
  EXPECT_EQ(owners[0].slurm_job_from, "cgroup");
  EXPECT_EQ(owners[0].user, "alice");
  EXPECT_EQ(owners[0].comm, "python3");
  EXPECT_EQ(owners[1].slurm_job, "77");
  EXPECT_EQ(owners[1].slurm_job_from, "environ");
  EXPECT_EQ(owners[1].user, "");  // uid 2000 is not in /etc/passwd
  ASSERT_TRUE(owners[1].uid.has_value());
  EXPECT_EQ(owners[1].cgroup, "/user.slice/user-2000.slice/session-1.scope");
  EXPECT_TRUE(owners[2].slurm_job.empty());
  if (geteuid() != 0) {  // root reads a mode-0 file anyway
    EXPECT_NE(owners[2].note.find("environment not readable"), std::string::npos);
  }
  EXPECT_EQ(owners[3].pid, 9999u);
  EXPECT_NE(owners[3].note.find("process not found"), std::string::npos) << owners[3].note;
  EXPECT_FALSE(owners[3].uid.has_value());
}

}  // namespace
}  // namespace gpuvet
