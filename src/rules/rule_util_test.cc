// Tests for the shared rule helpers: GpuActivityOf's busy/idle call and the evidence wording the
// clock and PCIe findings carry.
#include "rules/rule_util.h"

#include <gtest/gtest.h>

#include "testing/gpu_builders.h"

namespace gpuvet {
namespace {

GpuState GpuAt(int util_pct) {
  GpuState g = test::HealthyGpu(0, "0000:3b:00.0");
  g.gpu_util_pct = Reading<int>::Of(util_pct);
  g.clock_event_reasons = Reading<uint64_t>::Of(0);
  return g;
}

TEST(GpuActivityTest, BusyAtOrAboveTheThreshold) {
  Thresholds t;  // busy_util_pct 50
  GpuState g = GpuAt(50);
  GpuActivity a = GpuActivityOf(&g, t);
  EXPECT_TRUE(a.busy);
  EXPECT_EQ(a.evidence.name, "gpu_util_pct");
  EXPECT_EQ(a.evidence.value, "50 (busy: busy at >= busy_util_pct 50)");

  g = GpuAt(49);
  a = GpuActivityOf(&g, t);
  EXPECT_FALSE(a.busy);
  EXPECT_EQ(a.evidence.value, "49 (idle: busy at >= busy_util_pct 50)");
}

TEST(GpuActivityTest, IdleClockReasonWins) {
  GpuState g = GpuAt(90);
  g.clock_event_reasons = Reading<uint64_t>::Of(clock_reason::kGpuIdle);
  GpuActivity a = GpuActivityOf(&g, Thresholds{});
  EXPECT_FALSE(a.busy);
  EXPECT_EQ(a.evidence.value, "90 (idle: GPU idle clock reason set)");
}

TEST(GpuActivityTest, UnknownUtilisationIsIdle) {
  GpuActivity none = GpuActivityOf(nullptr, Thresholds{});
  EXPECT_FALSE(none.busy);
  EXPECT_EQ(none.evidence.value, "unknown (no NVML reading): treated as idle");

  GpuState g = GpuAt(0);
  g.gpu_util_pct = Reading<int>::Error("nvmlDeviceGetUtilizationRates: timeout");
  GpuActivity err = GpuActivityOf(&g, Thresholds{});
  EXPECT_FALSE(err.busy);
  EXPECT_EQ(err.evidence.value,
            "unknown (nvmlDeviceGetUtilizationRates: timeout): treated as idle");

  g.gpu_util_pct = Reading<int>::Error("");
  EXPECT_EQ(GpuActivityOf(&g, Thresholds{}).evidence.value, "unknown (not read): treated as idle");
}

}  // namespace
}  // namespace gpuvet
