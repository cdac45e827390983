// Tests of the host sampler over fixture trees: two reads with the counters advanced between them
// give exact shares and rates; missing, garbled and backwards-running files give absent fields
// and notes, never zeros.
#include "sources/sampler/host_sampler.h"

#include <gtest/gtest.h>

#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

using test::TempTree;

constexpr char kNetHeader[] =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
    "drop fifo colls carrier compressed\n";

void WriteFirst(const TempTree& t) {
  t.Write("proc/stat",
          "cpu 100 0 50 800 40 5 5 0 0 0\n"
          "cpu0 50 0 25 400 20 0 0 0 0 0\n"
          "cpu1 50 0 25 400 20 5 5 0 0 0\n"
          "procs_running 2\n");
  t.Write("proc/pressure/cpu",
          "some avg10=0.00 avg60=0.00 avg300=0.00 total=1000000\n"
          "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
  t.Write("proc/pressure/io",
          "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
          "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
  t.Write("proc/meminfo", "MemTotal: 2000 kB\nMemFree: 10 kB\nMemAvailable: 1000 kB\n");
  t.Write("proc/vmstat", "pgfault 5\npgmajfault 10\n");
  t.Write("proc/diskstats",
          " 7 0 loop0 1 0 8 0 0 0 0 0 0 0 0 0 0 0 0\n"
          " 259 0 nvme0n1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
          " 259 1 nvme0n1p1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  t.Write("proc/net/dev", std::string(kNetHeader) +
                              "lo: 5 1 0 0 0 0 0 0 5 1 0 0 0 0 0 0\n"
                              "eth0: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  t.Write("sys/block/nvme0n1/size", "1000\n");
  t.Write("sys/block/loop0/size", "8\n");
}

void WriteSecond(const TempTree& t) {
  t.Write("proc/stat",
          "cpu 160 0 70 900 50 10 10 0 0 0\n"
          "cpu0 150 0 25 400 20 0 0 0 0 0\n"
          "cpu1 50 0 25 500 20 5 5 0 0 0\n"
          "procs_running 7\n");
  t.Write("proc/pressure/cpu",
          "some avg10=0.00 avg60=0.00 avg300=0.00 total=1500000\n"
          "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
  t.Write("proc/pressure/io",
          "some avg10=0.00 avg60=0.00 avg300=0.00 total=200000\n"
          "full avg10=0.00 avg60=0.00 avg300=0.00 total=100000\n");
  t.Write("proc/meminfo", "MemTotal: 2000 kB\nMemFree: 10 kB\nMemAvailable: 900 kB\n");
  t.Write("proc/vmstat", "pgfault 5\npgmajfault 30\n");
  t.Write("proc/diskstats",
          " 7 0 loop0 9 0 800 0 0 0 0 0 0 0 0 0 0 0 0\n"
          " 259 0 nvme0n1 10 0 4096 0 5 0 2048 0 0 500 0 0 0 0 0\n"
          " 259 1 nvme0n1p1 10 0 4096 0 5 0 2048 0 0 500 0 0 0 0 0\n");
  t.Write("proc/net/dev", std::string(kNetHeader) +
                              "lo: 500 1 0 0 0 0 0 0 500 1 0 0 0 0 0 0\n"
                              "eth0: 2000 0 0 0 0 0 0 0 4000 0 0 0 0 0 0 0\n");
}

TEST(HostSamplerTest, RatesBetweenTwoReads) {
  TempTree t("host_sampler");
  WriteFirst(t);
  HostSampler sampler{HostPaths(t.root())};
  HostSample first = sampler.Take(0);  // baseline: no rates yet
  EXPECT_FALSE(first.cpu_user_pct.has_value());
  EXPECT_EQ(first.mem_available_bytes, 1024000u);
  WriteSecond(t);
  HostSample s = sampler.Take(2.0);

  EXPECT_DOUBLE_EQ(*s.cpu_user_pct, 30.0);
  EXPECT_DOUBLE_EQ(*s.cpu_system_pct, 15.0);  // system + irq + softirq
  EXPECT_DOUBLE_EQ(*s.cpu_idle_pct, 50.0);
  EXPECT_DOUBLE_EQ(*s.cpu_iowait_pct, 5.0);
  EXPECT_DOUBLE_EQ(*s.cpu_steal_pct, 0.0);
  ASSERT_EQ(s.core_busy_pct.size(), 2u);
  EXPECT_DOUBLE_EQ(s.core_busy_pct[0], 100.0);
  EXPECT_DOUBLE_EQ(s.core_busy_pct[1], 0.0);
  EXPECT_EQ(s.run_queue, 7.0);
  EXPECT_DOUBLE_EQ(*s.psi_cpu_some_pct, 25.0);
  EXPECT_DOUBLE_EQ(*s.psi_io_some_pct, 10.0);
  EXPECT_DOUBLE_EQ(*s.psi_io_full_pct, 5.0);
  EXPECT_FALSE(s.psi_memory_some_pct.has_value());  // no /proc/pressure/memory in the tree
  EXPECT_FALSE(s.psi_memory_full_pct.has_value());
  EXPECT_EQ(s.mem_available_bytes, 900u * 1024);
  EXPECT_DOUBLE_EQ(*s.major_faults_per_s, 10.0);
  ASSERT_EQ(s.disks.size(), 1u);  // the partition and the loop device are left out
  EXPECT_EQ(s.disks[0].device, "nvme0n1");
  EXPECT_DOUBLE_EQ(s.disks[0].read_bytes_per_s, 1024.0 * 1024);
  EXPECT_DOUBLE_EQ(s.disks[0].write_bytes_per_s, 512.0 * 1024);
  EXPECT_DOUBLE_EQ(s.disks[0].busy_pct, 25.0);
  ASSERT_EQ(s.nets.size(), 1u);  // lo is left out
  EXPECT_EQ(s.nets[0].interface, "eth0");
  EXPECT_DOUBLE_EQ(s.nets[0].rx_bytes_per_s, 1000.0);
  EXPECT_DOUBLE_EQ(s.nets[0].tx_bytes_per_s, 2000.0);
  EXPECT_NE(sampler.notes().at("sampler.host.psi").find("pressure/memory"), std::string::npos);
}

TEST(HostSamplerTest, EmptyTreeGivesAbsentFieldsAndNotes) {
  TempTree t("host_sampler_empty");
  HostSampler sampler{HostPaths(t.root())};
  sampler.Take(0);
  HostSample s = sampler.Take(1.0);
  EXPECT_FALSE(s.cpu_user_pct.has_value());
  EXPECT_TRUE(s.core_busy_pct.empty());
  EXPECT_FALSE(s.run_queue.has_value());
  EXPECT_FALSE(s.psi_cpu_some_pct.has_value());
  EXPECT_FALSE(s.mem_available_bytes.has_value());
  EXPECT_FALSE(s.major_faults_per_s.has_value());
  EXPECT_TRUE(s.disks.empty());
  EXPECT_TRUE(s.nets.empty());
  for (const char* key :
       {"sampler.host.cpu", "sampler.host.psi", "sampler.host.memory", "sampler.host.major_faults",
        "sampler.host.disks", "sampler.host.network"}) {
    EXPECT_TRUE(sampler.notes().count(key)) << key;
  }
}

TEST(HostSamplerTest, GarbledAndTruncatedFiles) {
  TempTree t("host_sampler_garbled");
  WriteFirst(t);
  HostSampler sampler{HostPaths(t.root())};
  sampler.Take(0);
  WriteSecond(t);
  t.Write("proc/stat", "cpu 1 2\n");                // truncated
  t.Write("proc/meminfo", "MemAvailable: lots\n");  // garbled
  t.Write("proc/diskstats", "259 0 nvme0n1 1 2\n");
  t.Write("proc/pressure/cpu", "some avg10=x\n");
  HostSample s = sampler.Take(1.0);
  EXPECT_FALSE(s.cpu_user_pct.has_value());
  EXPECT_FALSE(s.mem_available_bytes.has_value());
  EXPECT_FALSE(s.psi_cpu_some_pct.has_value());
  EXPECT_TRUE(s.disks.empty());
  EXPECT_DOUBLE_EQ(*s.psi_io_some_pct, 20.0);  // the good files still count
  EXPECT_NE(sampler.notes().at("sampler.host.cpu").find("proc/stat"), std::string::npos);
  EXPECT_NE(sampler.notes().at("sampler.host.disks").find("line 1"), std::string::npos);
}

TEST(HostSamplerTest, CountersGoingBackwardsAndCpusComingOnline) {
  HostSnapshot a, b;
  ProcStatCounters sa, sb;
  sa.total = CpuTicks{100, 0, 0, 100, 50, 0, 0, 0, 8};
  sb.total = CpuTicks{200, 0, 0, 200, 40, 0, 0, 0, 8};  // iowait ran backwards (nohz accounting)
  sa.cores = {CpuTicks{1, 0, 0, 1, 0, 0, 0, 0, 8}};
  sb.cores = {CpuTicks{1, 0, 0, 1, 0, 0, 0, 0, 8}, CpuTicks{5, 0, 0, 5, 0, 0, 0, 0, 8}};
  a.stat = sa;
  b.stat = sb;
  a.major_faults = 50;
  b.major_faults = 10;  // counter reset
  HostSample s = DiffHost(a, b, 1.0);
  EXPECT_DOUBLE_EQ(*s.cpu_iowait_pct, 0.0);
  EXPECT_GE(*s.cpu_user_pct, 0.0);
  ASSERT_EQ(s.core_busy_pct.size(), 2u);
  EXPECT_DOUBLE_EQ(s.core_busy_pct[0], 0.0);   // no ticks at all: idle
  EXPECT_DOUBLE_EQ(s.core_busy_pct[1], -1.0);  // not in the first read: unknown
  EXPECT_DOUBLE_EQ(*s.major_faults_per_s, 0.0);
  // Old kernels without iowait/steal columns: those shares are absent, not zero.
  a.stat->total->fields = 4;
  EXPECT_FALSE(DiffHost(a, b, 1.0).cpu_iowait_pct.has_value());
  EXPECT_FALSE(DiffHost(a, b, 1.0).cpu_steal_pct.has_value());
}

}  // namespace
}  // namespace gpuvet

namespace gpuvet {
namespace {

// One mlx5 port as sysfs lays it out: the data counters in 4-byte words.
void WriteIbPort(const test::TempTree& t, const std::string& dev, uint64_t xmit_words,
                 uint64_t rcv_words, uint64_t cnp, uint64_t symbol, const std::string& state) {
  const std::string p = "sys/class/infiniband/" + dev + "/ports/1/";
  t.Write(p + "link_layer", dev == "mlx5_1" ? "Ethernet\n" : "InfiniBand\n");
  t.Write(p + "state", state + "\n");
  t.Write(p + "rate", "200 Gb/sec (4X HDR)\n");
  t.Write(p + "counters/port_xmit_data", std::to_string(xmit_words) + "\n");
  t.Write(p + "counters/port_rcv_data", std::to_string(rcv_words) + "\n");
  t.Write(p + "counters/port_xmit_wait", "1000\n");
  t.Write(p + "counters/symbol_error", std::to_string(symbol) + "\n");
  t.Write(p + "counters/port_rcv_errors", "0\n");
  t.Write(p + "counters/link_downed", "1\n");
  t.Write(p + "counters/link_error_recovery", "0\n");
  t.Write(p + "hw_counters/np_cnp_sent", std::to_string(cnp) + "\n");
  t.Write(p + "hw_counters/rp_cnp_handled", "0\n");
}

TEST(HostSamplerIbTest, PortRatesFromWordCountersAndCongestion) {
  test::TempTree t("hs_ib");
  WriteIbPort(t, "mlx5_0", 1000, 500, 0, 0, "4: ACTIVE");
  WriteIbPort(t, "mlx5_1", 0, 0, 100, 0, "4: ACTIVE");
  HostSampler s{HostPaths(t.root())};
  s.Take(1);
  // Two seconds later: mlx5_0 sent 5e9 words (20 GB) and received 2.5e9 words; mlx5_1 sent 900
  // CNPs and counted 4 symbol errors.
  WriteIbPort(t, "mlx5_0", 1000 + 5'000'000'000ull, 500 + 2'500'000'000ull, 0, 0, "4: ACTIVE");
  WriteIbPort(t, "mlx5_1", 0, 0, 1000, 4, "1: DOWN");
  HostSample h = s.Take(2);
  ASSERT_EQ(h.ib_ports.size(), 2u);
  const IbPortSample& a = h.ib_ports[0];
  EXPECT_EQ(a.port, "mlx5_0/1");
  EXPECT_EQ(a.link_layer, "InfiniBand");
  EXPECT_TRUE(a.active);
  EXPECT_EQ(a.rate_gbps, 200);
  EXPECT_DOUBLE_EQ(a.tx_bytes_per_s, 10e9);  // 5e9 words x 4 bytes / 2 s
  EXPECT_DOUBLE_EQ(a.rx_bytes_per_s, 5e9);
  ASSERT_TRUE(a.xmit_wait_per_s.has_value());
  EXPECT_DOUBLE_EQ(*a.xmit_wait_per_s, 0);
  const IbPortSample& b = h.ib_ports[1];
  EXPECT_EQ(b.link_layer, "Ethernet");
  EXPECT_FALSE(b.active);
  EXPECT_DOUBLE_EQ(*b.cnp_per_s, 450);
  EXPECT_DOUBLE_EQ(*b.errors_per_s, 2);
}

TEST(HostSamplerIbTest, GarbledAndMissingCountersAreAbsentWithANote) {
  test::TempTree t("hs_ib_bad");
  WriteIbPort(t, "mlx5_0", 1000, 500, 0, 0, "4: ACTIVE");
  HostSampler s{HostPaths(t.root())};
  s.Take(1);
  t.Write("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "garbage\n");
  t.Write("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", "N/A (no PMA)\n");
  HostSample h = s.Take(1);
  EXPECT_TRUE(h.ib_ports.empty());  // traffic unknown this interval: absent, never zero
  t.Write("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "9000\n");
  s.Take(1);
  t.Write("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "9100\n");
  h = s.Take(1);
  ASSERT_EQ(h.ib_ports.size(), 1u);
  EXPECT_DOUBLE_EQ(h.ib_ports[0].tx_bytes_per_s, 400);
  EXPECT_FALSE(h.ib_ports[0].xmit_wait_per_s.has_value());  // "N/A (no PMA)"
  ASSERT_TRUE(s.notes().count("sampler.host.infiniband"));
  EXPECT_NE(s.notes().at("sampler.host.infiniband").find("port_xmit_data"), std::string::npos);
}

TEST(HostSamplerIbTest, NoRdmaDevicesNoPorts) {
  test::TempTree t("hs_ib_none");
  HostSampler s{HostPaths(t.root())};
  s.Take(1);
  EXPECT_TRUE(s.Take(1).ib_ports.empty());
}

}  // namespace
}  // namespace gpuvet
