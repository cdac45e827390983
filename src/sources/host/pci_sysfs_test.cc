// Tests of the PCI sysfs source: pure parsers with inline strings, and the reader over a fixture
// tree built in a temp dir with the same symlink layout as a real /sys.
#include "sources/host/pci_sysfs.h"

#include <gtest/gtest.h>

#include <string>

#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

// A fixture tree (tests/testing/temp_tree.h) that also writes PCI function directories.
class PciTree : public test::TempTree {
 public:
  PciTree() : TempTree("pci_sysfs") {}
  // A PCI function directory with the usual attributes.
  void Function(const std::string& dir, const std::string& vendor, const std::string& cls,
                const std::string& speed, const std::string& width) const {
    Write(dir + "/vendor", vendor + "\n");
    Write(dir + "/device", "0x2330\n");
    Write(dir + "/class", cls + "\n");
    Write(dir + "/current_link_speed", speed + "\n");
    Write(dir + "/max_link_speed", "32.0 GT/s PCIe\n");
    Write(dir + "/current_link_width", width + "\n");
    Write(dir + "/max_link_width", "16\n");
    Write(dir + "/numa_node", "1\n");
    Write(dir + "/local_cpulist", "32-63\n");
  }
};

TEST(PciParseTest, LinkSpeed) {
  EXPECT_DOUBLE_EQ(*ParseLinkSpeed("16.0 GT/s PCIe\n"), 16.0);
  EXPECT_DOUBLE_EQ(*ParseLinkSpeed("8 GT/s"), 8.0);
  EXPECT_DOUBLE_EQ(*ParseLinkSpeed("2.5 GT/s PCIe"), 2.5);
  EXPECT_EQ(ParseLinkSpeed("Unknown").status().code(), StatusCode::kNotSupported);
  EXPECT_EQ(ParseLinkSpeed("Unknown speed").status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ParseLinkSpeed("").status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ParseLinkSpeed("fast GT/s").status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ParseLinkSpeed("16.0").status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ParseLinkSpeed("-8 GT/s").status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ParseLinkSpeed("nan GT/s").status().code(), StatusCode::kInvalidInput);
}

TEST(PciParseTest, LinkWidth) {
  EXPECT_EQ(*ParseLinkWidth("16\n"), 16);
  EXPECT_EQ(ParseLinkWidth("0").status().code(), StatusCode::kNotSupported);
  EXPECT_EQ(ParseLinkWidth("x16").status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ParseLinkWidth("64").status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ParseLinkWidth("-1").status().code(), StatusCode::kInvalidInput);
}

TEST(PciParseTest, AerTotal) {
  const char* cor =
      "RxErr 0\nBadTLP 3\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\n"
      "HeaderOF 0\nTOTAL_ERR_COR 3\n";
  EXPECT_EQ(*ParseAerTotal(cor, "TOTAL_ERR_COR"), 3u);
  EXPECT_EQ(
      *ParseAerTotal("Undefined 0\nTOTAL_ERR_FATAL 18446744073709551615\n", "TOTAL_ERR_FATAL"),
      18446744073709551615u);
  EXPECT_FALSE(ParseAerTotal(cor, "TOTAL_ERR_FATAL").ok());
  EXPECT_FALSE(ParseAerTotal("TOTAL_ERR_COR lots\n", "TOTAL_ERR_COR").ok());
  EXPECT_FALSE(ParseAerTotal("TOTAL_ERR_COR 1 2\n", "TOTAL_ERR_COR").ok());
  EXPECT_FALSE(ParseAerTotal("TOTAL_ERR_COR 99999999999999999999999\n", "TOTAL_ERR_COR").ok());
  EXPECT_FALSE(ParseAerTotal("", "TOTAL_ERR_COR").ok());
}

TEST(PciParseTest, Addresses) {
  EXPECT_TRUE(IsPciAddress("0000:3b:00.0"));
  EXPECT_TRUE(IsPciAddress("0001:C1:1f.7"));
  EXPECT_FALSE(IsPciAddress("0000:3b:00.8"));
  EXPECT_FALSE(IsPciAddress("pci0000:00"));
  EXPECT_FALSE(IsPciAddress("0000:3b:00"));
  EXPECT_EQ(ParentPciAddress("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"), "0000:00:01.0");
  EXPECT_EQ(ParentPciAddress("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/"), "0000:00:01.0");
  EXPECT_EQ(ParentPciAddress("/sys/devices/pci0000:00/0000:00:01.0"), "");
  EXPECT_EQ(ParentPciAddress("0000:01:00.0"), "");
  EXPECT_EQ(ParentPciAddress(""), "");
}

TEST(PciResolveTest, StaysInsideRoot) {
  PciTree fx;
  fx.Write("sys/devices/pci0000:00/0000:00:01.0/vendor", "0x8086\n");
  fx.Link("sys/bus/pci/devices/0000:00:01.0", "../../../devices/pci0000:00/0000:00:01.0");
  fx.Link("sys/bus/pci/devices/abs", "/sys/devices/pci0000:00");
  fx.Link("sys/bus/pci/devices/escape", "../../../../../../../../etc");
  fx.Link("sys/bus/pci/devices/loop", "loop");
  HostPaths paths(fx.root());
  EXPECT_EQ(*ResolveHostPath(paths, "/sys/bus/pci/devices/0000:00:01.0"),
            "/sys/devices/pci0000:00/0000:00:01.0");
  EXPECT_EQ(*ResolveHostPath(paths, "/sys/bus/pci/devices/abs/0000:00:01.0"),
            "/sys/devices/pci0000:00/0000:00:01.0");
  // ".." clamps at the root: the result is /etc inside the tree, which does not exist.
  EXPECT_EQ(ResolveHostPath(paths, "/sys/bus/pci/devices/escape").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(ResolveHostPath(paths, "/sys/bus/pci/devices/loop").status().code(),
            StatusCode::kInvalidInput);
}

TEST(PciReadTest, GpuWithBridgeSortedAndFiltered) {
  PciTree fx;
  const std::string bridge = "sys/devices/pci0000:00/0000:00:01.0";
  const std::string gpu = bridge + "/0000:01:00.0";
  fx.Function(bridge, "0x8086", "0x060400", "32.0 GT/s PCIe", "16");
  fx.Function(gpu, "0x10de", "0x030200", "16.0 GT/s PCIe", "8");
  fx.Write(gpu + "/aer_dev_correctable", "RxErr 2\nTOTAL_ERR_COR 7\n");
  fx.Write(gpu + "/aer_dev_nonfatal", "Undefined 0\nTOTAL_ERR_NONFATAL 1\n");
  fx.Write(gpu + "/aer_dev_fatal", "Undefined 0\nTOTAL_ERR_FATAL 0\n");
  fx.Link(gpu + "/driver", "../../../../bus/pci/drivers/nvidia");
  // A second GPU directly under the host bridge (no upstream bridge), VGA class, no NUMA.
  const std::string gpu2 = "sys/devices/pci0000:80/0000:80:00.0";
  fx.Function(gpu2, "0x10de", "0x030000", "Unknown", "0");
  fx.Write(gpu2 + "/numa_node", "-1\n");
  // Skipped: an NVSwitch, an NVIDIA audio function, an Intel NIC.
  fx.Function("sys/devices/pci0000:00/0000:00:02.0/0000:05:00.0", "0x10de", "0x068000", "8 GT/s",
              "4");
  fx.Function("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.1", "0x10de", "0x040300", "8 GT/s",
              "4");
  fx.Function("sys/devices/pci0000:00/0000:00:03.0", "0x8086", "0x020000", "8 GT/s", "4");
  for (const char* d : {"pci0000:00/0000:00:01.0", "pci0000:00/0000:00:01.0/0000:01:00.0",
                        "pci0000:80/0000:80:00.0", "pci0000:00/0000:00:02.0/0000:05:00.0",
                        "pci0000:00/0000:00:01.0/0000:01:00.1", "pci0000:00/0000:00:03.0"}) {
    std::string name = std::string(d).substr(std::string(d).rfind('/') + 1);
    fx.Link("sys/bus/pci/devices/" + name, std::string("../../../devices/") + d);
  }

  auto r = ReadPciGpus(HostPaths(fx.root()));
  ASSERT_TRUE(r.has()) << r.note;
  ASSERT_EQ(r->size(), 2u);
  const GpuPciTopology& a = (*r)[0];
  EXPECT_EQ(a.gpu.address, "0000:01:00.0");
  EXPECT_EQ(a.gpu.vendor, 0x10deu);
  EXPECT_EQ(a.gpu.device, 0x2330u);
  EXPECT_EQ(a.gpu.class_code, 0x030200u);
  EXPECT_DOUBLE_EQ(*a.gpu.link.speed_gts, 16.0);
  EXPECT_DOUBLE_EQ(*a.gpu.link.max_speed_gts, 32.0);
  EXPECT_EQ(*a.gpu.link.width, 8);
  EXPECT_EQ(*a.gpu.link.max_width, 16);
  ASSERT_TRUE(a.gpu.aer.has()) << a.gpu.aer.note;
  EXPECT_EQ(a.gpu.aer->correctable, 7u);
  EXPECT_EQ(a.gpu.aer->nonfatal, 1u);
  EXPECT_EQ(a.gpu.aer->fatal, 0u);
  EXPECT_EQ(*a.gpu.numa_node, 1);
  EXPECT_EQ(a.gpu.local_cpus->size(), 32u);
  EXPECT_EQ(a.gpu.driver, "nvidia");
  ASSERT_TRUE(a.upstream_bridge.has_value());
  EXPECT_EQ(a.upstream_bridge->address, "0000:00:01.0");
  EXPECT_EQ(a.upstream_bridge->vendor, 0x8086u);
  EXPECT_DOUBLE_EQ(*a.upstream_bridge->link.speed_gts, 32.0);
  EXPECT_TRUE(a.upstream_bridge->aer.unsupported());
  EXPECT_EQ(a.upstream_bridge->driver, "");

  const GpuPciTopology& b = (*r)[1];
  EXPECT_EQ(b.gpu.address, "0000:80:00.0");
  EXPECT_FALSE(b.upstream_bridge.has_value());
  // "Unknown" and 0 against a known maximum: the link is down (a reading, not "not reported").
  EXPECT_TRUE(b.gpu.link.speed_gts.unsupported());
  EXPECT_TRUE(b.gpu.link.speed_unknown);
  ASSERT_TRUE(b.gpu.link.width.has()) << b.gpu.link.width.note;
  EXPECT_EQ(*b.gpu.link.width, 0);
  EXPECT_TRUE(b.gpu.power_state.unsupported());  // a kernel before 5.17
  EXPECT_TRUE(b.gpu.numa_node.unsupported());
  EXPECT_EQ(b.gpu.numa_node.note, "firmware gives no NUMA node (numa_node -1)");
  EXPECT_TRUE(b.gpu.aer.unsupported());
}

// A root port above a GPU that fell off the bus: current width 0 of 16 is a link that is down
// (x0), and so is the GPU's own "Unknown" speed and width 0 against its known maximum.
TEST(PciReadTest, BridgeWithWidthZeroHasItsLinkDown) {
  PciTree fx;
  const std::string bridge = "sys/devices/pci0000:da/0000:da:01.0";
  const std::string gpu = bridge + "/0000:db:00.0";
  fx.Function(bridge, "0x8086", "0x060400", "2.5 GT/s PCIe", "0");
  fx.Function(gpu, "0x10de", "0x030200", "Unknown", "0");
  fx.Link("sys/bus/pci/devices/0000:da:01.0", "../../../devices/pci0000:da/0000:da:01.0");
  fx.Link("sys/bus/pci/devices/0000:db:00.0",
          "../../../devices/pci0000:da/0000:da:01.0/0000:db:00.0");
  auto r = ReadPciGpus(HostPaths(fx.root()));
  ASSERT_TRUE(r.has()) << r.note;
  ASSERT_EQ(r->size(), 1u);
  ASSERT_TRUE((*r)[0].upstream_bridge.has_value());
  const PciLink& up = (*r)[0].upstream_bridge->link;
  ASSERT_TRUE(up.width.has()) << up.width.note;
  EXPECT_EQ(*up.width, 0);
  EXPECT_EQ(*up.max_width, 16);
  EXPECT_FALSE(up.speed_unknown);
  const PciLink& own = (*r)[0].gpu.link;
  ASSERT_TRUE(own.width.has()) << own.width.note;
  EXPECT_EQ(*own.width, 0);
  EXPECT_TRUE(own.speed_unknown);
}

// A function that models no link at all (an emulated device in a VM: maximum 0 and "Unknown"
// too) stays "not reported"; power_state is read where the kernel has it.
TEST(PciReadTest, NoLinkModelledIsNotReportedAndPowerStateIsRead) {
  PciTree fx;
  const std::string gpu = "sys/devices/pci0000:00/0000:00:1e.0";
  fx.Function(gpu, "0x10de", "0x030200", "Unknown", "0");
  fx.Write(gpu + "/max_link_speed", "Unknown\n");
  fx.Write(gpu + "/max_link_width", "0\n");
  fx.Write(gpu + "/power_state", "D3cold\n");
  fx.Link("sys/bus/pci/devices/0000:00:1e.0", "../../../devices/pci0000:00/0000:00:1e.0");
  auto r = ReadPciGpus(HostPaths(fx.root()));
  ASSERT_TRUE(r.has()) << r.note;
  ASSERT_EQ(r->size(), 1u);
  const PciFunction& f = (*r)[0].gpu;
  EXPECT_TRUE(f.link.width.unsupported());
  EXPECT_FALSE(f.link.speed_unknown);
  ASSERT_TRUE(f.power_state.has()) << f.power_state.note;
  EXPECT_EQ(*f.power_state, "D3cold");
}

TEST(PciReadTest, GarbledFieldsAreErrorsNamingTheFile) {
  PciTree fx;
  const std::string gpu = "sys/devices/pci0000:00/0000:3b:00.0";
  fx.Function(gpu, "0x10de", "0x030200", "sixteen", "wide");
  fx.Write(gpu + "/numa_node", "zero\n");
  fx.Write(gpu + "/local_cpulist", "3-1\n");
  fx.Write(gpu + "/aer_dev_correctable", "garbage\n");
  fx.Write(gpu + "/aer_dev_nonfatal", "TOTAL_ERR_NONFATAL 0\n");
  fx.Write(gpu + "/aer_dev_fatal", "TOTAL_ERR_FATAL 0\n");
  fx.Link("sys/bus/pci/devices/0000:3b:00.0", "../../../devices/pci0000:00/0000:3b:00.0");
  // Entries that cannot be identified are skipped, not fatal.
  fx.Function("sys/devices/pci0000:00/0000:3c:00.0", "nvidia", "0x030200", "8 GT/s", "16");
  fx.Link("sys/bus/pci/devices/0000:3c:00.0", "../../../devices/pci0000:00/0000:3c:00.0");
  fx.Link("sys/bus/pci/devices/0000:3d:00.0", "../../../devices/pci0000:00/missing");

  auto r = ReadPciGpus(HostPaths(fx.root()));
  ASSERT_TRUE(r.has()) << r.note;
  ASSERT_EQ(r->size(), 1u);
  const PciFunction& f = (*r)[0].gpu;
  EXPECT_TRUE(f.link.speed_gts.error());
  EXPECT_NE(f.link.speed_gts.note.find("current_link_speed"), std::string::npos);
  EXPECT_TRUE(f.link.width.error());
  EXPECT_TRUE(f.numa_node.error());
  EXPECT_NE(f.numa_node.note.find("numa_node"), std::string::npos);
  EXPECT_TRUE(f.local_cpus.error());
  EXPECT_TRUE(f.aer.error());
  EXPECT_NE(f.aer.note.find("aer_dev_correctable"), std::string::npos);
}

TEST(PciReadTest, NoSysfsIsUnsupported) {
  PciTree fx;
  auto r = ReadPciGpus(HostPaths(fx.root()));
  EXPECT_TRUE(r.unsupported()) << r.note;
  fx.Write("sys/bus/pci/devices/.keep", "");
  r = ReadPciGpus(HostPaths(fx.root()));
  ASSERT_TRUE(r.has());
  EXPECT_TRUE(r->empty());
}

}  // namespace
}  // namespace gpuvet
