// The PCIe rate table (pcie.h): one row per generation, index = generation.
#include "core/hw/pcie.h"

#include <cmath>

namespace gpuvet {

namespace {

// Per-lane transfer rate, GT/s, of PCIe 1.0 through 6.0 (PCI-SIG base specifications).
constexpr double kGtsPerLane[kPcieMaxGen + 1] = {0, 2.5, 5, 8, 16, 32, 64};

bool Known(int gen) { return gen >= 1 && gen <= kPcieMaxGen; }

}  // namespace

double PcieGenGts(int gen) { return Known(gen) ? kGtsPerLane[gen] : 0; }

double PcieEncodingEfficiency(int gen) {
  if (!Known(gen)) return 0;
  return gen < 3 ? 8.0 / 10.0 : 128.0 / 130.0;
}

double PcieLinkGbps(int gen, int width) {
  if (!Known(gen) || width <= 0) return 0;
  return PcieGenGts(gen) * PcieEncodingEfficiency(gen) * width / 8.0;
}

int PcieGenFromGts(double gts) {
  for (int gen = 1; gen <= kPcieMaxGen; ++gen) {
    if (std::fabs(kGtsPerLane[gen] - gts) < 0.01) return gen;
  }
  return 0;
}

}  // namespace gpuvet
