// FormatBytes: one rounding rule for every size.
#include "util/units.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpuvet {
namespace {

TEST(UnitsTest, FormatBytes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1024), "1.0 KiB");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(12.0 * 1024 * 1024 * 1024), "12.0 GiB");
  EXPECT_EQ(FormatBytes(2048.0 * 1024 * 1024 * 1024 * 1024), "2048.0 TiB");
  EXPECT_EQ(FormatBytes(-1.5 * 1024 * 1024), "-1.5 MiB");
  EXPECT_EQ(FormatBytes(-0.2), "0 B");
  EXPECT_EQ(FormatBytes(std::nan("")), "–");
}

}  // namespace
}  // namespace gpuvet
