// Tests of the owner groups per GPU: processes of one job or pod together, unknown processes
// each alone, PIDs without a host-side entry, the one-line description.
#include "core/gpu_owner.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

GpuProcessOwner Owner(uint32_t pid, std::string job, std::string user, std::string comm) {
  GpuProcessOwner o;
  o.pid = pid;
  o.slurm_job = std::move(job);
  o.user = std::move(user);
  o.comm = std::move(comm);
  return o;
}

TEST(GpuOwnerGroupsTest, GroupsByOwnerInPidOrder) {
  GpuState g;
  g.compute_processes = Reading<std::vector<GpuProcess>>::Of(
      {{5003, 1}, {5001, 10}, {5002, 100}, {6000, 1000}, {6001, 0}, {7000, 0}});
  std::vector<GpuProcessOwner> owners = {Owner(5001, "4242", "alice", "python3"),
                                         Owner(5002, "4242", "alice", "python3"),
                                         Owner(5003, "4242", "alice", "pt_data_worker"),
                                         Owner(6000, "", "", ""), Owner(6001, "", "", "")};
  owners[3].note = "process not found";
  auto groups = GpuOwnerGroups(g, owners);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].job, "4242");
  EXPECT_EQ(groups[0].pids, (std::vector<uint32_t>{5001, 5002, 5003}));
  EXPECT_EQ(groups[0].comms, (std::vector<std::string>{"python3", "pt_data_worker"}));
  EXPECT_EQ(groups[0].used_memory_bytes, 111u);
  EXPECT_EQ(DescribeOwner(groups[0]), "job 4242 (alice)");
  // Nothing known: each process alone, with its note.
  EXPECT_EQ(groups[1].pids, (std::vector<uint32_t>{6000}));
  EXPECT_EQ(groups[1].note, "process not found");
  EXPECT_EQ(groups[2].pids, (std::vector<uint32_t>{6001}));
  EXPECT_EQ(groups[3].pids, (std::vector<uint32_t>{7000}));  // no host-side entry at all
  EXPECT_EQ(groups[3].note, kOwnerNotRead);
  EXPECT_EQ(DescribeOwner(groups[3]), "");
}

TEST(GpuOwnerGroupsTest, DescribesPodsAndUsers) {
  GpuOwnerGroup g;
  g.pod_uid = "1f2e3d4c-5b6a-4789-8abc-0123456789ab";
  g.container_id = "3a4b5c6d7e8f9a0b1c2d";
  g.user = "uid 1000";
  EXPECT_EQ(DescribeOwner(g),
            "pod 1f2e3d4c-5b6a-4789-8abc-0123456789ab container 3a4b5c6d7e8f (uid 1000)");
  GpuOwnerGroup plain;
  plain.user = "bob";
  EXPECT_EQ(DescribeOwner(plain), "(bob)");
  GpuProcessOwner o;
  o.uid = 1000;
  EXPECT_EQ(OwnerUser(o), "uid 1000");
  o.user = "alice";
  EXPECT_EQ(OwnerUser(o), "alice");
  EXPECT_EQ(OwnerUser(GpuProcessOwner{}), "");
}

TEST(GpuOwnerGroupsTest, NoProcessList) {
  GpuState g;
  EXPECT_TRUE(GpuOwnerGroups(g, {}).empty());
  g.compute_processes = Reading<std::vector<GpuProcess>>::Of({});
  EXPECT_TRUE(GpuOwnerGroups(g, {}).empty());
}

}  // namespace
}  // namespace gpuvet
