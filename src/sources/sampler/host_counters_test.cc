// Tests of the host counter parsers with real-format text (Linux 6.1 layouts), old-kernel short
// lines, and garbled or truncated input.
#include "sources/sampler/host_counters.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

constexpr char kProcStat[] =
    "cpu  10132153 290696 3084719 46828483 16683 0 25195 0 0 0\n"
    "cpu0 1393280 32966 572056 13343292 6130 0 17875 0 0 0\n"
    "cpu1 1335758 40580 462286 13409432 2548 0 1806 7 0 0\n"
    "cpu3 10 0 5 100 0 0 0 0 0 0\n"
    "intr 199292940 16 0 0\n"
    "ctxt 381690437\n"
    "btime 1700000000\n"
    "processes 1215392\n"
    "procs_running 3\n"
    "procs_blocked 1\n"
    "softirq 1 2 3\n";

TEST(ProcStatTest, ParsesTotalsCoresAndRunQueue) {
  Result<ProcStatCounters> s = ParseProcStat(kProcStat);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(s->total.has_value());
  EXPECT_EQ(s->total->user, 10132153u);
  EXPECT_EQ(s->total->idle, 46828483u);
  EXPECT_EQ(s->total->iowait, 16683u);
  EXPECT_EQ(s->total->fields, 8);
  ASSERT_EQ(s->cores.size(), 4u);
  EXPECT_TRUE(s->cores[0].has_value());
  EXPECT_EQ(s->cores[1]->steal, 7u);
  EXPECT_FALSE(s->cores[2].has_value());  // offline CPU: not listed
  EXPECT_EQ(s->cores[3]->Busy(), 15u);
  EXPECT_EQ(s->cores[3]->Total(), 115u);
  EXPECT_EQ(s->procs_running, 3);
}

TEST(ProcStatTest, OldKernelShortLines) {
  Result<ProcStatCounters> s = ParseProcStat("cpu 1 2 3 4\ncpu0 1 2 3 4\n");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->total->fields, 4);
  EXPECT_FALSE(s->procs_running.has_value());
}

TEST(ProcStatTest, GarbageNamesTheLine) {
  Result<ProcStatCounters> s = ParseProcStat("cpu 1 2 3 4\ncpu0 1 2 x 4\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("line 2"), std::string::npos) << s.status().message();
  EXPECT_FALSE(ParseProcStat("cpu 1 2\n").ok());  // truncated
  EXPECT_FALSE(ParseProcStat("procs_running lots\n").ok());
  EXPECT_FALSE(ParseProcStat("cpu99999999 1 2 3 4\n").ok());
  // An empty file parses to nothing at all (every field absent, not zero).
  Result<ProcStatCounters> empty = ParseProcStat("");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->total.has_value());
  EXPECT_TRUE(empty->cores.empty());
}

constexpr char kDiskstats[] =
    "   7       0 loop0 55 0 2202 12 0 0 0 0 0 40 12 0 0 0 0\n"
    " 259       0 nvme0n1 1227413 351513 94044854 296123 3312541 2381412 203612984 2433162 0 "
    "1394580 2810935 0 0 0 0 168153 81649\n"
    " 259       1 nvme0n1p1 1009 1216 27006 180 2 0 2 0 0 124 180 0 0 0 0 0 0\n"
    "   8       0 sda 100 0 2000 10 50 0 4000 20 0 30 30\n"
    "   8       1 sda1 90 0 1800 9 40 0 3000 15 0 25 24\n"
    " 253       0 dm-0 10 0 20 1 0 0 0 0 0 1 1 0 0 0 0\n";

TEST(DiskstatsTest, Parses14To20Columns) {
  Result<std::vector<DiskCounters>> d = ParseDiskstats(kDiskstats);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->size(), 6u);
  EXPECT_EQ((*d)[1].device, "nvme0n1");
  EXPECT_EQ((*d)[1].sectors_read, 94044854u);
  EXPECT_EQ((*d)[1].sectors_written, 203612984u);
  EXPECT_EQ((*d)[1].io_ticks_ms, 1394580u);
  EXPECT_EQ((*d)[3].device, "sda");  // the 14-column layout of kernels before 4.18
  EXPECT_EQ((*d)[3].io_ticks_ms, 30u);
}

TEST(DiskstatsTest, TruncatedOrGarbled) {
  EXPECT_FALSE(ParseDiskstats("8 0 sda 1 2 3\n").ok());
  Result<std::vector<DiskCounters>> bad = ParseDiskstats("8 0 sda 1 2 3 4 5 6 7 8 9 x 11\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 1"), std::string::npos);
  EXPECT_TRUE(ParseDiskstats("")->empty());
}

TEST(DiskstatsTest, WholeDiskDecisions) {
  for (const char* v : {"loop0", "ram1", "zram0", "dm-0", "md127", "sr0", "fd0"}) {
    EXPECT_TRUE(IsVirtualBlockDevice(v)) << v;
  }
  for (const char* real : {"nvme0n1", "sda", "vda", "xvdb", "mmcblk0", "mdisk", "nbd0"}) {
    EXPECT_FALSE(IsVirtualBlockDevice(real)) << real;
  }
  const std::vector<std::string> all = {"nvme0n1", "nvme0n1p1", "sda",    "sda1",
                                        "mmcblk0", "mmcblk0p2", "nvme1n1"};
  EXPECT_TRUE(IsPartition("nvme0n1p1", all));
  EXPECT_TRUE(IsPartition("sda1", all));
  EXPECT_TRUE(IsPartition("mmcblk0p2", all));
  EXPECT_FALSE(IsPartition("nvme0n1", all));  // "nvme0n" is not a device
  EXPECT_FALSE(IsPartition("nvme1n1", all));
  EXPECT_FALSE(IsPartition("sda", all));
  EXPECT_FALSE(IsPartition("mmcblk0", all));
}

constexpr char kNetDev[] =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
    "drop fifo colls carrier compressed\n"
    "    lo: 9275418   85624    0    0    0     0          0         0  9275418   85624    0    "
    "0    0     0       0          0\n"
    "  eth0: 2478263181 2195946    0    0    0     0          0         0 139585624  957101    "
    "0    0    0     0       0          0\n"
    "eth1:10 1 0 0 0 0 0 0 20 2 0 0 0 0 0 0\n";

TEST(NetDevTest, ParsesBytes) {
  Result<std::vector<NetCounters>> n = ParseNetDev(kNetDev);
  ASSERT_TRUE(n.ok()) << n.status().message();
  ASSERT_EQ(n->size(), 3u);
  EXPECT_EQ((*n)[1].interface, "eth0");
  EXPECT_EQ((*n)[1].rx_bytes, 2478263181u);
  EXPECT_EQ((*n)[1].tx_bytes, 139585624u);
  EXPECT_EQ((*n)[2].interface, "eth1");  // counters glued to the colon (old kernels)
  EXPECT_EQ((*n)[2].tx_bytes, 20u);
}

TEST(NetDevTest, Garbled) {
  EXPECT_FALSE(ParseNetDev("h|\nh|\neth0 1 2 3\n").ok());
  Result<std::vector<NetCounters>> bad = ParseNetDev("h|\nh|\neth0: 1 2 3\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 3"), std::string::npos);
}

TEST(KeyValueTest, FindsExactKey) {
  constexpr char kVmstat[] = "pgmajfault_x 9\npgfault 100\npgmajfault 42\n";
  EXPECT_EQ(ParseKeyValue(kVmstat, "pgmajfault"), 42u);
  EXPECT_EQ(ParseKeyValue(kVmstat, "pgfault"), 100u);
  EXPECT_FALSE(ParseKeyValue(kVmstat, "pgsteal").has_value());
  EXPECT_FALSE(ParseKeyValue("pgmajfault many\n", "pgmajfault").has_value());
  EXPECT_FALSE(ParseKeyValue("pgmajfault", "pgmajfault").has_value());  // truncated
}

}  // namespace
}  // namespace gpuvet
