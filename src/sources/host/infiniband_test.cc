// Tests of the InfiniBand/RoCE source: the rate, state and counter parsers (real attribute texts,
// cut at every byte and mutated with a fixed seed: never a crash), the PCIe relation of two sysfs
// paths, and the reader over temp trees laid out like a real mlx5 node (an HDR port, a RoCE port,
// garbled files, a GPU and NICs on one or two NUMA nodes).
#include "sources/host/infiniband.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

TEST(InfinibandParseTest, Rates) {
  auto hdr = ParseIbRate("200 Gb/sec (4X HDR)\n");
  ASSERT_TRUE(hdr.ok());
  EXPECT_EQ(hdr->gbps, 200);
  EXPECT_EQ(hdr->width, 4);
  EXPECT_EQ(hdr->speed_name, "HDR");
  auto ndr = ParseIbRate("400 Gb/sec (4X NDR)");
  EXPECT_EQ(ndr->gbps, 400);
  auto roce = ParseIbRate("25 Gb/sec (1X EDR)");
  EXPECT_EQ(roce->width, 1);
  auto sdr = ParseIbRate("2.5 Gb/sec (1X SDR)");
  EXPECT_DOUBLE_EQ(sdr->gbps, 2.5);
  auto plain = ParseIbRate("10 Gb/sec (4X)");
  EXPECT_EQ(plain->width, 4);
  EXPECT_EQ(plain->speed_name, "");
  EXPECT_FALSE(ParseIbRate("").ok());
  EXPECT_FALSE(ParseIbRate("fast").ok());
  EXPECT_FALSE(ParseIbRate("abc Gb/sec (4X HDR)").ok());
  EXPECT_FALSE(ParseIbRate("200 MB/s").ok());
}

TEST(InfinibandParseTest, StatesAndCounters) {
  EXPECT_EQ(*ParseIbState("4: ACTIVE\n"), "ACTIVE");
  EXPECT_EQ(*ParseIbState("1: DOWN"), "DOWN");
  EXPECT_EQ(*ParseIbState("5: LinkUp"), "LinkUp");
  EXPECT_EQ(*ParseIbState("2: Polling"), "Polling");
  EXPECT_FALSE(ParseIbState("ACTIVE").ok());
  EXPECT_FALSE(ParseIbState("x: ACTIVE").ok());
  EXPECT_FALSE(ParseIbState("4:").ok());
  EXPECT_EQ(*ParseIbCounter("18446744073709551615\n"), 18446744073709551615ull);
  EXPECT_EQ(*ParseIbCounter("0"), 0u);
  EXPECT_FALSE(ParseIbCounter("").ok());
  EXPECT_FALSE(ParseIbCounter("-1").ok());
  EXPECT_FALSE(ParseIbCounter("12abc").ok());
  EXPECT_FALSE(ParseIbCounter("18446744073709551616").ok());  // past 64 bits
}

// Every prefix and fixed-seed byte mutations of each attribute text: an answer, never a crash.
TEST(InfinibandParseTest, TruncatedAndMutatedInputNeverCrashes) {
  const std::string texts[] = {"200 Gb/sec (4X HDR)\n", "4: ACTIVE\n", "5: LinkUp\n",
                               "123456789012\n"};
  for (const std::string& t : texts) {
    for (size_t n = 0; n <= t.size(); ++n) {
      std::string_view cut = std::string_view(t).substr(0, n);
      (void)ParseIbRate(cut);
      (void)ParseIbState(cut);
      (void)ParseIbCounter(cut);
    }
  }
  std::mt19937 rng(14);
  const std::string alphabet = "0123456789 :()XxGb/secHDRN\n\t-+.\xff";
  for (int i = 0; i < 4000; ++i) {
    std::string t = texts[i % 4];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % (t.size() + 1);
      char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0:
          if (pos < t.size()) t[pos] = c;
          break;
        case 1:
          t.insert(t.begin() + static_cast<std::ptrdiff_t>(pos), c);
          break;
        default:
          if (pos < t.size()) t.erase(pos, 1);
      }
    }
    auto r = ParseIbRate(t);
    if (r.ok()) {
      EXPECT_GE(r->gbps, 0);
      EXPECT_GE(r->width, 0);
    }
    (void)ParseIbState(t);
    (void)ParseIbCounter(t);
  }
}

TEST(InfinibandParseTest, PcieRelations) {
  const std::string sw = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
  // Both below downstream ports of one switch.
  EXPECT_EQ(
      PcieRelation(sw + "/0000:02:08.0/0000:05:00.0", 0, sw + "/0000:02:10.0/0000:06:00.0", 0),
      "PIX");
  // Two switch levels apart.
  EXPECT_EQ(PcieRelation(sw + "/0000:02:08.0/0000:05:00.0", 0,
                         sw + "/0000:02:10.0/0000:06:00.0/0000:07:00.0/0000:08:00.0", 0),
            "PXB");
  // Same host bridge, different root ports.
  EXPECT_EQ(PcieRelation("/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0", 0,
                         "/sys/devices/pci0000:17/0000:17:02.0/0000:19:00.0", 0),
            "PHB");
  EXPECT_EQ(PcieRelation("/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0", 0,
                         "/sys/devices/pci0000:29/0000:29:01.0/0000:2a:00.0", 0),
            "NODE");
  EXPECT_EQ(PcieRelation("/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0", 0,
                         "/sys/devices/pci0000:99/0000:99:01.0/0000:9a:00.0", 1),
            "SYS");
  EXPECT_EQ(PcieRelation("/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0", -1,
                         "/sys/devices/pci0000:99/0000:99:01.0/0000:9a:00.0", 1),
            "?");
  EXPECT_LT(PcieRelationRank("PIX"), PcieRelationRank("PHB"));
  EXPECT_LT(PcieRelationRank("NODE"), PcieRelationRank("SYS"));
  EXPECT_LT(PcieRelationRank("SYS"), PcieRelationRank("?"));
}

// A PCI function as sysfs has it (the attributes ReadPciFunction needs).
void PciFunctionFiles(const test::TempTree& t, const std::string& dir, const std::string& klass,
                      int numa, int width = 16) {
  t.Write(dir + "/vendor", "0x15b3\n");
  t.Write(dir + "/device", "0x1021\n");
  t.Write(dir + "/class", klass + "\n");
  t.Write(dir + "/numa_node", std::to_string(numa) + "\n");
  t.Write(dir + "/current_link_speed", "32.0 GT/s PCIe\n");
  t.Write(dir + "/max_link_speed", "32.0 GT/s PCIe\n");
  t.Write(dir + "/current_link_width", std::to_string(width) + "\n");
  t.Write(dir + "/max_link_width", "16\n");
}

void Port(const test::TempTree& t, const std::string& dev, int port, const std::string& layer,
          const std::string& state, const std::string& phys, const std::string& rate) {
  std::string p = "sys/class/infiniband/" + dev + "/ports/" + std::to_string(port);
  t.Write(p + "/link_layer", layer + "\n");
  t.Write(p + "/state", state + "\n");
  t.Write(p + "/phys_state", phys + "\n");
  t.Write(p + "/rate", rate + "\n");
  const char* counters[] = {"VL15_dropped",
                            "excessive_buffer_overrun_errors",
                            "link_downed",
                            "link_error_recovery",
                            "local_link_integrity_errors",
                            "port_rcv_constraint_errors",
                            "port_rcv_data",
                            "port_rcv_errors",
                            "port_rcv_packets",
                            "port_rcv_remote_physical_errors",
                            "port_rcv_switch_relay_errors",
                            "port_xmit_constraint_errors",
                            "port_xmit_data",
                            "port_xmit_discards",
                            "port_xmit_packets",
                            "port_xmit_wait",
                            "symbol_error"};
  for (const char* c : counters) t.Write(p + "/counters/" + c, "0\n");
  t.Write(p + "/counters/port_xmit_data", "250000000000\n");
  t.Write(p + "/hw_counters/lifespan", "10\n");
  t.Write(p + "/hw_counters/np_cnp_sent", "12\n");
  t.Write(p + "/hw_counters/rp_cnp_handled", "7\n");
  t.Write(p + "/hw_counters/out_of_sequence", "0\n");
}

// An mlx5 HCA at 0000:<bus>:00.0 below root port <bus-1>:02.0 of host bridge pci0000:<bus-1>.
void Hca(const test::TempTree& t, const std::string& name, const std::string& host_bus,
         const std::string& bus, int numa) {
  std::string fn =
      "sys/devices/pci0000:" + host_bus + "/0000:" + host_bus + ":02.0/0000:" + bus + ":00.0";
  PciFunctionFiles(t, fn, "0x020700", numa);
  t.Write(fn + "/net/ib" + name.substr(name.size() - 1) + "/operstate", "up\n");
  t.Link(
      "sys/class/infiniband/" + name + "/device",
      "../../../devices/pci0000:" + host_bus + "/0000:" + host_bus + ":02.0/0000:" + bus + ":00.0");
  t.Write("sys/class/infiniband/" + name + "/hca_type", "MT4123\n");
  t.Write("sys/class/infiniband/" + name + "/fw_ver", "20.39.1002\n");
}

Reading<std::vector<GpuPciTopology>> OneGpu(const test::TempTree& t, int numa) {
  std::string fn = "sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0";
  PciFunctionFiles(t, fn, "0x030200", numa);
  t.Link("sys/bus/pci/devices/0000:18:00.0",
         "../../../devices/pci0000:17/0000:17:01.0/0000:18:00.0");
  GpuPciTopology g;
  g.gpu.address = "0000:18:00.0";
  g.gpu.numa_node = Reading<int>::Of(numa);
  return Reading<std::vector<GpuPciTopology>>::Of({g});
}

TEST(InfinibandReadTest, AbsentIsUnsupported) {
  test::TempTree t("ib_absent");
  auto r = ReadInfiniband(HostPaths(t.root()), {});
  EXPECT_TRUE(r.unsupported()) << r.note;
}

TEST(InfinibandReadTest, HdrAndRocePortsWithNearestNic) {
  test::TempTree t("ib_hdr");
  Hca(t, "mlx5_0", "17", "19", 0);  // same host bridge as the GPU: PHB
  Hca(t, "mlx5_1", "99", "9a", 1);  // other socket
  Port(t, "mlx5_0", 1, "InfiniBand", "4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)");
  Port(t, "mlx5_1", 1, "Ethernet", "4: ACTIVE", "5: LinkUp", "100 Gb/sec (4X EDR)");
  auto gpus = OneGpu(t, 0);
  auto r = ReadInfiniband(HostPaths(t.root()), gpus);
  ASSERT_TRUE(r.has()) << r.note;
  ASSERT_EQ(r->devices.size(), 2u);
  const IbDevice& d = r->devices[0];
  EXPECT_EQ(d.name, "mlx5_0");
  EXPECT_EQ(d.hca_type, "MT4123");
  EXPECT_EQ(d.pci_address, "0000:19:00.0");
  ASSERT_TRUE(d.pci.has()) << d.pci.note;
  EXPECT_EQ(*d.pci->numa_node, 0);
  EXPECT_EQ(d.net_devices, std::vector<std::string>{"ib0"});
  ASSERT_EQ(d.ports.size(), 1u);
  const IbPort& p = d.ports[0];
  EXPECT_EQ(*p.link_layer, "InfiniBand");
  EXPECT_EQ(*p.state, "ACTIVE");
  EXPECT_EQ(*p.phys_state, "LinkUp");
  EXPECT_EQ(*p.rate_gbps, 200);
  EXPECT_EQ(*p.width, 4);
  EXPECT_EQ(p.counters.at("port_xmit_data"), 250000000000u);
  EXPECT_EQ(p.counters.at("np_cnp_sent"), 12u);
  EXPECT_EQ(p.counters.count("lifespan"), 0u);
  EXPECT_TRUE(p.counter_errors.empty());
  EXPECT_EQ(*r->devices[1].ports[0].link_layer, "Ethernet");
  ASSERT_EQ(r->gpu_paths.size(), 1u);
  EXPECT_EQ(r->gpu_paths[0].nic, "mlx5_0");
  EXPECT_EQ(r->gpu_paths[0].relation, "PHB");
  EXPECT_EQ(r->gpu_paths[0].same_numa_nics, std::vector<std::string>{"mlx5_0"});
}

TEST(InfinibandReadTest, NearestNicOnTheOtherSocket) {
  test::TempTree t("ib_sys");
  Hca(t, "mlx5_0", "99", "9a", 1);
  Port(t, "mlx5_0", 1, "InfiniBand", "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)");
  auto r = ReadInfiniband(HostPaths(t.root()), OneGpu(t, 0));
  ASSERT_TRUE(r.has());
  EXPECT_EQ(r->gpu_paths[0].relation, "SYS");
  EXPECT_TRUE(r->gpu_paths[0].same_numa_nics.empty());
}

TEST(InfinibandReadTest, GarbledFilesAreErrorsNotCrashes) {
  test::TempTree t("ib_garbled");
  Hca(t, "mlx5_0", "17", "19", 0);
  Port(t, "mlx5_0", 1, "Token Ring", "ACTIVE", "5: LinkUp", "fast");
  t.Write("sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error", "lots\n");
  t.Write("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", "N/A (no PMA)\n");
  // A device whose device/ link dangles.
  t.Link("sys/class/infiniband/mlx5_9/device", "../../../devices/pci0000:aa/0000:aa:02.0/nothing");
  auto r = ReadInfiniband(HostPaths(t.root()), {});
  ASSERT_TRUE(r.has());
  ASSERT_EQ(r->devices.size(), 2u);
  const IbPort& p = r->devices[0].ports[0];
  EXPECT_TRUE(p.link_layer.error());
  EXPECT_TRUE(p.state.error());
  EXPECT_TRUE(p.rate_gbps.error());
  EXPECT_TRUE(p.width.error());
  ASSERT_EQ(p.counter_errors.size(), 1u);
  EXPECT_NE(p.counter_errors[0].find("symbol_error"), std::string::npos);
  EXPECT_EQ(p.counters.count("port_xmit_wait"), 0u);  // not offered, not an error
  EXPECT_TRUE(r->devices[1].pci.error());
  EXPECT_TRUE(r->devices[1].ports.empty());
}

}  // namespace
}  // namespace gpuvet
