// Virtual machine detection. Three independent signs, each recorded as evidence: the CPU flag
// (absent when a hypervisor hides itself, as GPU passthrough set-ups often do), the DMI names
// (present on every mainstream hypervisor and cloud), and the virtual bridges the GPUs hang from.
#include "sources/host/virtual_machine.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// /proc/cpuinfo repeats the flags per CPU; the first block is enough, so a 1,000-CPU host's
// megabytes are never read.
constexpr size_t kCpuinfoReadBytes = 64 << 10;

struct DmiName {
  const char* prefix;  // lower case, matched at the start of sys_vendor or product_name
  const char* hypervisor;
};

// DMI names of hypervisors, after systemd's detect-virt table (src/basic/virt.c, dmi_vendor_table)
// and the clouds' documented values: EC2 "Amazon EC2", GCE "Google" / "Google Compute Engine",
// Azure/Hyper-V "Microsoft Corporation" + "Virtual Machine", Alibaba "Alibaba Cloud".
constexpr DmiName kDmiNames[] = {
    {"kvm", "KVM"},
    {"qemu", "QEMU"},
    {"openstack", "KVM (OpenStack)"},
    {"kubevirt", "KVM (KubeVirt)"},
    {"amazon ec2", "Amazon EC2"},
    {"google compute engine", "Google Compute Engine"},
    {"google", "Google Compute Engine"},
    {"vmware", "VMware"},
    {"vmw", "VMware"},
    {"xen", "Xen"},
    {"innotek gmbh", "VirtualBox"},
    {"virtualbox", "VirtualBox"},
    {"bochs", "Bochs"},
    {"parallels", "Parallels"},
    {"bhyve", "bhyve"},
    {"alibaba cloud", "Alibaba Cloud"},
    {"apple virtualization", "Apple Virtualization"},
};

struct BridgeId {
  uint32_t vendor;
  uint32_t device;
  const char* name;
};

// Virtual bridge ids (PCI ID repository): Red Hat/QEMU 1b36 and VMware 15ad.
constexpr BridgeId kVirtualBridges[] = {
    {0x1b36, 0x000c, "QEMU PCIe root port"},     {0x1b36, 0x0001, "QEMU PCI-PCI bridge"},
    {0x1b36, 0x000e, "QEMU PCIe-to-PCI bridge"}, {0x15ad, 0x07a0, "VMware PCIe root port"},
    {0x15ad, 0x0790, "VMware PCI bridge"},
};

std::string ReadDmi(const HostPaths& paths, std::string_view name) {
  auto text = ReadAttribute(paths.Sys("class/dmi/id/" + std::string(name)));
  return text.ok() ? *text : "";
}

}  // namespace

Result<bool> CpuinfoHasHypervisorFlag(std::string_view cpuinfo) {
  for (std::string_view line : Split(cpuinfo, '\n')) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || Trim(line.substr(0, colon)) != "flags") continue;
    for (std::string_view flag : SplitWhitespace(line.substr(colon + 1))) {
      if (flag == "hypervisor") return true;
    }
    return false;
  }
  return NotFound("no flags line in /proc/cpuinfo");
}

std::string HypervisorFromDmi(std::string_view sys_vendor, std::string_view product_name) {
  const std::string vendor = ToLower(Trim(sys_vendor)), product = ToLower(Trim(product_name));
  // Hyper-V (and Azure) names itself by its product: "Microsoft Corporation" also makes hardware.
  if (StartsWith(vendor, "microsoft") && StartsWith(product, "virtual machine")) {
    return "Microsoft Hyper-V";
  }
  for (const DmiName& d : kDmiNames) {
    if (StartsWith(vendor, d.prefix) || StartsWith(product, d.prefix)) return d.hypervisor;
  }
  return "";
}

std::string_view VirtualBridgeName(uint32_t vendor, uint32_t device) {
  for (const BridgeId& b : kVirtualBridges) {
    if (b.vendor == vendor && b.device == device) return b.name;
  }
  return "";
}

VirtualMachineState DetectVirtualMachine(const HostPaths& paths,
                                         const Reading<std::vector<GpuPciTopology>>& pci_gpus) {
  VirtualMachineState vm;
  bool flag = false, flag_read = false;
  auto cpuinfo = ReadFile(paths.Proc("cpuinfo"), kCpuinfoReadBytes);
  if (cpuinfo.ok()) {
    auto has = CpuinfoHasHypervisorFlag(*cpuinfo);
    flag_read = has.ok();
    flag = has.ok() && *has;
    if (flag) vm.evidence.push_back("/proc/cpuinfo flags: hypervisor");
  }
  const std::string vendor = ReadDmi(paths, "sys_vendor"), product = ReadDmi(paths, "product_name");
  const std::string dmi = HypervisorFromDmi(vendor, product);
  bool dmi_counts = !dmi.empty();
  if (dmi == "Amazon EC2" && flag_read && !flag) dmi_counts = false;  // an EC2 .metal instance
  if (!dmi.empty()) {
    vm.evidence.push_back(
        fmt::format("DMI sys_vendor '{}', product_name '{}'{}", vendor, product,
                    dmi_counts ? "" : " (bare-metal instance: no hypervisor flag)"));
  }
  if (pci_gpus.has()) {
    // One evidence line per kind of virtual bridge, listing the ports (8 GPUs, 8 ports).
    std::vector<std::pair<std::string, std::vector<std::string>>> kinds;
    for (const GpuPciTopology& t : *pci_gpus) {
      if (!t.upstream_bridge) continue;
      const PciFunction& b = *t.upstream_bridge;
      std::string_view name = VirtualBridgeName(b.vendor, b.device);
      if (name.empty()) continue;
      vm.virtual_bridges.push_back(b.address);
      std::string kind = fmt::format("{} ({:04x}:{:04x})", name, b.vendor, b.device);
      auto it =
          std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == kind; });
      if (it == kinds.end()) it = kinds.insert(kinds.end(), {kind, {}});
      it->second.push_back(b.address);
    }
    for (const auto& [kind, ports] : kinds) {
      vm.evidence.push_back(fmt::format("{} above {} GPU{}: {}", kind, ports.size(),
                                        ports.size() == 1 ? "" : "s", Join(ports, ", ")));
    }
  }
  vm.detected = flag || dmi_counts || !vm.virtual_bridges.empty();
  if (vm.detected) {
    if (dmi_counts) {
      vm.hypervisor = dmi;
    } else if (!vm.virtual_bridges.empty()) {
      vm.hypervisor =
          vm.evidence.back().find("VMware") != std::string::npos ? "VMware" : "QEMU/KVM";
    }
  }
  return vm;
}

}  // namespace gpuvet
