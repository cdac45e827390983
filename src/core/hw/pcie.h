// PCIe link facts from the PCI-SIG base specifications: the per-lane transfer rate of each
// generation, its line encoding, the one-direction bandwidth of a link, and the generation a
// sysfs link speed ("16.0 GT/s PCIe") stands for. The one place these numbers live.
#pragma once

namespace gpuvet {

// The newest generation the tables know (PCIe 6.0).
inline constexpr int kPcieMaxGen = 6;

// Per-lane transfer rate of generation `gen` in GT/s: 2.5, 5, 8, 16, 32, 64 for Gen1–6; 0 for
// any other `gen`.
double PcieGenGts(int gen);

// Share of the raw bit rate that carries data: 8b/10b (0.8) for Gen1–2, 128b/130b from Gen3 (Gen6
// FLIT overhead is ignored); 0 for an unknown `gen`.
double PcieEncodingEfficiency(int gen);

// Theoretical one-direction bandwidth in GB/s (1e9 B/s) of a `width`-lane link at `gen`: lanes ×
// GT/s × encoding / 8. Gen4 x16 ≈ 31.5, Gen5 x16 ≈ 63.0. 0 for an unknown gen or a width <= 0.
double PcieLinkGbps(int gen, int width);

// The generation whose per-lane rate is `gts` (within 0.01 GT/s, as sysfs prints it): 2.5 -> 1,
// 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6; 0 for a rate that is none of these.
int PcieGenFromGts(double gts);

}  // namespace gpuvet
