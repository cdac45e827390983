// Tests of virtual machine detection: the cpuinfo flag and DMI parsers with inline strings (cut at
// every byte and mutated with a fixed seed: never a crash), and the reader over fixture trees
// (bare metal, a KVM guest, a hidden hypervisor found by its bridge, an EC2 bare-metal instance).
#include "sources/host/virtual_machine.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "testing/temp_tree.h"

namespace gpuvet {
namespace {

constexpr char kKvmCpuinfo[] =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7R32\n"
    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep hypervisor lahf_lm cmp_legacy\n"
    "bogomips\t: 5599.99\n\nprocessor\t: 1\n";
constexpr char kMetalCpuinfo[] =
    "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep avx512f\n";

TEST(VirtualMachineParseTest, HypervisorFlag) {
  EXPECT_TRUE(*CpuinfoHasHypervisorFlag(kKvmCpuinfo));
  EXPECT_FALSE(*CpuinfoHasHypervisorFlag(kMetalCpuinfo));
  // A flag that merely contains the word does not count.
  EXPECT_FALSE(*CpuinfoHasHypervisorFlag("flags\t: fpu hypervisor_x\n"));
  // arm64 has "Features", no flags line.
  EXPECT_EQ(CpuinfoHasHypervisorFlag("processor\t: 0\nFeatures\t: fp asimd\n").status().code(),
            StatusCode::kNotFound);
  EXPECT_FALSE(CpuinfoHasHypervisorFlag("").ok());
}

TEST(VirtualMachineParseTest, DmiNames) {
  EXPECT_EQ(HypervisorFromDmi("QEMU", "Standard PC (Q35 + ICH9, 2009)"), "QEMU");
  EXPECT_EQ(HypervisorFromDmi("Amazon EC2", "g5.xlarge"), "Amazon EC2");
  EXPECT_EQ(HypervisorFromDmi("Google", "Google Compute Engine"), "Google Compute Engine");
  EXPECT_EQ(HypervisorFromDmi("Microsoft Corporation", "Virtual Machine"), "Microsoft Hyper-V");
  EXPECT_EQ(HypervisorFromDmi("VMware, Inc.", "VMware7,1"), "VMware");
  EXPECT_EQ(HypervisorFromDmi("Xen", "HVM domU"), "Xen");
  EXPECT_EQ(HypervisorFromDmi("Red Hat", "KVM"), "KVM");
  EXPECT_EQ(HypervisorFromDmi("innotek GmbH", "VirtualBox"), "VirtualBox");
  // Physical vendors, including Microsoft's own hardware.
  EXPECT_EQ(HypervisorFromDmi("Dell Inc.", "Precision 5820 Tower"), "");
  EXPECT_EQ(HypervisorFromDmi("Supermicro", "SYS-821GE-TNHR"), "");
  EXPECT_EQ(HypervisorFromDmi("Microsoft Corporation", "Surface Laptop 5"), "");
  EXPECT_EQ(HypervisorFromDmi("", ""), "");
}

TEST(VirtualMachineParseTest, VirtualBridges) {
  EXPECT_EQ(VirtualBridgeName(0x1b36, 0x000c), "QEMU PCIe root port");
  EXPECT_EQ(VirtualBridgeName(0x15ad, 0x07a0), "VMware PCIe root port");
  EXPECT_EQ(VirtualBridgeName(0x8086, 0x352a), "");  // an Intel Sapphire Rapids root port
}

// Every prefix of the inputs, and fixed-seed byte mutations: the parsers answer, never crash.
TEST(VirtualMachineParseTest, TruncatedAndMutatedInputNeverCrashes) {
  const std::string cpu = kKvmCpuinfo;
  for (size_t n = 0; n <= cpu.size(); ++n) {
    auto r = CpuinfoHasHypervisorFlag(std::string_view(cpu).substr(0, n));
    if (r.ok() && *r) {
      EXPECT_GE(n, cpu.find("hypervisor") + 10) << n;
    }
  }
  const std::string dmi = "Microsoft Corporation";
  for (size_t n = 0; n <= dmi.size(); ++n) HypervisorFromDmi(dmi.substr(0, n), "Virtual Machine");
  std::mt19937 rng(17);
  for (int i = 0; i < 2000; ++i) {
    std::string m = cpu;
    for (int k = 0; k < 4; ++k) m[rng() % m.size()] = static_cast<char>(rng() % 256);
    (void)CpuinfoHasHypervisorFlag(m);
    (void)HypervisorFromDmi(m, m);
  }
}

class VmTree : public test::TempTree {
 public:
  VmTree() : TempTree("virtual_machine") {}
  void Dmi(const std::string& vendor, const std::string& product) const {
    Write("sys/class/dmi/id/sys_vendor", vendor + "\n");
    Write("sys/class/dmi/id/product_name", product + "\n");
  }
};

Reading<std::vector<GpuPciTopology>> GpuUnder(uint32_t bridge_vendor, uint32_t bridge_device) {
  GpuPciTopology t;
  t.gpu.address = "0000:01:00.0";
  t.upstream_bridge = PciFunction{};
  t.upstream_bridge->address = "0000:00:02.0";
  t.upstream_bridge->vendor = bridge_vendor;
  t.upstream_bridge->device = bridge_device;
  return Reading<std::vector<GpuPciTopology>>::Of({t});
}

TEST(VirtualMachineReadTest, BareMetalHasNoEvidence) {
  VmTree fx;
  fx.Write("proc/cpuinfo", kMetalCpuinfo);
  fx.Dmi("Supermicro", "SYS-821GE-TNHR");
  VirtualMachineState vm = DetectVirtualMachine(HostPaths(fx.root()), GpuUnder(0x8086, 0x352a));
  EXPECT_FALSE(vm.detected);
  EXPECT_TRUE(vm.evidence.empty());
  // Nothing readable at all: not a VM, no evidence, no crash.
  VmTree empty;
  EXPECT_FALSE(DetectVirtualMachine(HostPaths(empty.root()), {}).detected);
}

TEST(VirtualMachineReadTest, KvmGuestNamesAllThreeSigns) {
  VmTree fx;
  fx.Write("proc/cpuinfo", kKvmCpuinfo);
  fx.Dmi("QEMU", "Standard PC (Q35 + ICH9, 2009)");
  VirtualMachineState vm = DetectVirtualMachine(HostPaths(fx.root()), GpuUnder(0x1b36, 0x000c));
  EXPECT_TRUE(vm.detected);
  EXPECT_EQ(vm.hypervisor, "QEMU");
  ASSERT_EQ(vm.evidence.size(), 3u);
  EXPECT_EQ(vm.evidence[0], "/proc/cpuinfo flags: hypervisor");
  EXPECT_NE(vm.evidence[1].find("QEMU"), std::string::npos);
  EXPECT_EQ(vm.evidence[2], "QEMU PCIe root port (1b36:000c) above 1 GPU: 0000:00:02.0");
  ASSERT_EQ(vm.virtual_bridges.size(), 1u);
  EXPECT_EQ(vm.virtual_bridges[0], "0000:00:02.0");
}

// GPU passthrough set-ups often hide the hypervisor (kvm=off, no CPUID flag, custom DMI): the
// virtual root port still tells.
TEST(VirtualMachineReadTest, HiddenHypervisorFoundByItsBridge) {
  VmTree fx;
  fx.Write("proc/cpuinfo", kMetalCpuinfo);
  fx.Dmi("ASUS", "Custom");
  VirtualMachineState vm = DetectVirtualMachine(HostPaths(fx.root()), GpuUnder(0x15ad, 0x07a0));
  EXPECT_TRUE(vm.detected);
  EXPECT_EQ(vm.hypervisor, "VMware");
}

TEST(VirtualMachineReadTest, Ec2BareMetalIsNotAVm) {
  VmTree fx;
  fx.Write("proc/cpuinfo", kMetalCpuinfo);
  fx.Dmi("Amazon EC2", "p4d.metal");
  VirtualMachineState vm = DetectVirtualMachine(HostPaths(fx.root()), {});
  EXPECT_FALSE(vm.detected);
  ASSERT_EQ(vm.evidence.size(), 1u);
  EXPECT_NE(vm.evidence[0].find("bare-metal instance"), std::string::npos);
  // The same DMI with the flag: an EC2 virtual instance.
  fx.Write("proc/cpuinfo", kKvmCpuinfo);
  vm = DetectVirtualMachine(HostPaths(fx.root()), {});
  EXPECT_TRUE(vm.detected);
  EXPECT_EQ(vm.hypervisor, "Amazon EC2");
}

}  // namespace
}  // namespace gpuvet
