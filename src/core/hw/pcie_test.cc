// The PCIe rate table: each generation's rate and encoding, link bandwidth per width, and the
// generation a sysfs link speed stands for.
#include "core/hw/pcie.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

TEST(PcieTest, RatePerGeneration) {
  const double kGts[] = {2.5, 5, 8, 16, 32, 64};
  for (int gen = 1; gen <= kPcieMaxGen; ++gen) {
    EXPECT_DOUBLE_EQ(PcieGenGts(gen), kGts[gen - 1]) << gen;
    EXPECT_EQ(PcieGenFromGts(kGts[gen - 1]), gen) << gen;
  }
  EXPECT_EQ(PcieGenGts(0), 0);
  EXPECT_EQ(PcieGenGts(7), 0);
  EXPECT_EQ(PcieGenGts(-1), 0);
}

TEST(PcieTest, Encoding) {
  EXPECT_DOUBLE_EQ(PcieEncodingEfficiency(1), 0.8);
  EXPECT_DOUBLE_EQ(PcieEncodingEfficiency(2), 0.8);
  for (int gen = 3; gen <= kPcieMaxGen; ++gen) {
    EXPECT_DOUBLE_EQ(PcieEncodingEfficiency(gen), 128.0 / 130.0) << gen;
  }
  EXPECT_EQ(PcieEncodingEfficiency(0), 0);
  EXPECT_EQ(PcieEncodingEfficiency(7), 0);
}

TEST(PcieTest, LinkBandwidthPerGenerationAndWidth) {
  EXPECT_NEAR(PcieLinkGbps(1, 16), 4.0, 1e-9);  // 2.5 × 0.8 × 16 / 8
  EXPECT_NEAR(PcieLinkGbps(2, 16), 8.0, 1e-9);  // 8b/10b
  EXPECT_NEAR(PcieLinkGbps(3, 16), 15.75, 0.01);
  EXPECT_NEAR(PcieLinkGbps(4, 16), 31.5, 0.01);
  EXPECT_NEAR(PcieLinkGbps(5, 16), 63.0, 0.1);
  EXPECT_NEAR(PcieLinkGbps(6, 16), 126.0, 0.1);
  // Bandwidth is linear in the lanes.
  for (int width : {1, 2, 4, 8}) {
    EXPECT_DOUBLE_EQ(PcieLinkGbps(5, width) * 16 / width, PcieLinkGbps(5, 16)) << width;
  }
}

TEST(PcieTest, UnknownGenerationOrWidthIsZero) {
  EXPECT_EQ(PcieLinkGbps(0, 16), 0);
  EXPECT_EQ(PcieLinkGbps(7, 16), 0);
  EXPECT_EQ(PcieLinkGbps(4, 0), 0);
  EXPECT_EQ(PcieLinkGbps(4, -8), 0);
}

TEST(PcieTest, GenerationFromSysfsRate) {
  EXPECT_EQ(PcieGenFromGts(16.0), 4);
  EXPECT_EQ(PcieGenFromGts(2.5), 1);
  EXPECT_EQ(PcieGenFromGts(8.005), 3);  // within the 0.01 GT/s tolerance
  EXPECT_EQ(PcieGenFromGts(7.0), 0);
  EXPECT_EQ(PcieGenFromGts(0), 0);
  EXPECT_EQ(PcieGenFromGts(128), 0);
}

}  // namespace
}  // namespace gpuvet
