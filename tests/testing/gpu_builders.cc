// Healthy measurement builders (see gpu_builders.h). Values are those of an H100 SXM under load;
// the rules compare them only with their own maximum or limit, so the exact model does not matter.
#include "testing/gpu_builders.h"

#include <utility>

namespace gpuvet::test {

namespace {

// PCI vendor ID of NVIDIA (PCI-SIG vendor registry).
constexpr uint32_t kNvidiaVendor = 0x10de;

}  // namespace

GpuState GpuAt(int index, std::string pci_bus_id) {
  GpuState g;
  g.index = index;
  g.pci_bus_id = std::move(pci_bus_id);
  return g;
}

NvLinkState HealthyNvLink(int link) {
  NvLinkState l;
  l.link = link;
  l.active = true;
  l.crc_flit_errors = Reading<uint64_t>::Of(0);
  l.crc_data_errors = Reading<uint64_t>::Of(0);
  l.replay_errors = Reading<uint64_t>::Of(0);
  l.recovery_errors = Reading<uint64_t>::Of(0);
  return l;
}

GpuState HealthyGpu(int index, std::string pci_bus_id) {
  GpuState g = GpuAt(index, std::move(pci_bus_id));
  // Activity, clocks, thermal and power (clock rules).
  g.gpu_util_pct = Reading<int>::Of(95);
  g.clock_event_reasons = Reading<uint64_t>::Of(0);
  g.sm_clock_mhz = Reading<int>::Of(1980);
  g.sm_clock_max_mhz = Reading<int>::Of(1980);
  g.temperature_c = Reading<int>::Of(60);
  g.slowdown_temperature_c = Reading<int>::Of(87);
  g.power_w = Reading<double>::Of(500);
  g.power_limit_w = Reading<double>::Of(700);
  g.default_power_limit_w = Reading<double>::Of(700);
  // PCIe link (pcie rules).
  g.pcie_gen = Reading<int>::Of(4);
  g.pcie_gen_max = Reading<int>::Of(4);
  g.pcie_width = Reading<int>::Of(16);
  g.pcie_width_max = Reading<int>::Of(16);
  g.pcie_replay_counter = Reading<uint64_t>::Of(0);
  // ECC and memory health, Ampere or newer: row remapping instead of page retirement (ecc rules).
  g.ecc_enabled = Reading<bool>::Of(true);
  g.ecc_pending_enabled = Reading<bool>::Of(true);
  g.ecc_corrected_volatile = Reading<uint64_t>::Of(0);
  g.ecc_uncorrected_volatile = Reading<uint64_t>::Of(0);
  g.ecc_corrected_aggregate = Reading<uint64_t>::Of(0);
  g.ecc_uncorrected_aggregate = Reading<uint64_t>::Of(0);
  g.retired_pages_sbe = Reading<int>::Unsupported("row remapping part");
  g.retired_pages_dbe = Reading<int>::Unsupported("row remapping part");
  g.retired_pages_pending = Reading<bool>::Unsupported("row remapping part");
  g.remapped_rows_correctable = Reading<int>::Of(0);
  g.remapped_rows_uncorrectable = Reading<int>::Of(0);
  g.remap_pending = Reading<bool>::Of(false);
  g.remap_failure = Reading<bool>::Of(false);
  // Settings, MIG and NVLink (gpu settings rules).
  g.persistence_mode = Reading<bool>::Of(true);
  g.mig_enabled = Reading<bool>::Of(false);
  g.mig_pending_enabled = Reading<bool>::Of(false);
  for (int i = 0; i < 4; ++i) g.nvlinks.push_back(HealthyNvLink(i));
  return g;
}

GpuInventory InventoryOf(std::vector<GpuState> gpus) {
  GpuInventory inv;
  inv.state = GpuSourceState::kOk;
  inv.gpus = std::move(gpus);
  return inv;
}

PciFunction NvidiaFunction(std::string address) {
  PciFunction f;
  f.address = std::move(address);
  f.vendor = kNvidiaVendor;
  return f;
}

}  // namespace gpuvet::test
