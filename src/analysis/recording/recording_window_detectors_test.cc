// Each window detector alone on hand-made window stats: the label it names (or that it declines),
// its sub-case and deciding numbers; and the walk: every answer is a row of the bottleneck table
// and every window gets one.
#include "analysis/recording/recording_window_detectors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/bottleneck.h"

namespace gpuvet {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A busy, healthy window of 60 samples with GPM: every figure present, nothing waiting.
WindowStats Healthy() {
  WindowStats w;
  w.n = 60;
  w.seconds = 60;
  w.activity = w.sm_active = 90;
  w.util = 95;
  w.gpm = true;
  w.occupancy = 40;
  w.tensor = 50;
  w.dram = 30;
  w.mem_util = 30;
  w.pcie = 5;
  w.power_pct = 80;
  w.nvlink_bps = kNaN;
  w.cpu_busy = 10;
  w.iowait = 0;
  w.psi_io = 0;
  w.psi_cpu = 0;
  w.disk_busy = 5;
  w.pegged_cores = 0;
  w.busiest_thread = 30;
  w.wl_cpu = 40;
  w.cgroup_throttled = 0;
  w.rchar = 50e6;
  w.read_syscalls = 100;
  w.opens = 1;
  w.clock_loss = 0;
  return w;
}

// The same window with the GPU starved (activity 20 %, SMs idle, GPU-Util low too).
WindowStats Starved() {
  WindowStats w = Healthy();
  w.activity = w.sm_active = 20;
  w.util = 25;
  return w;
}

class DetectorTest : public ::testing::Test {
 protected:
  std::optional<WindowCause> Run(WindowDetector d, const WindowStats& w, bool fallback = false) {
    return d(WindowContext{w, meta_, th_, fallback});
  }

  RecordingMeta meta_ = [] {
    RecordingMeta m;
    m.online_cpus = 8;
    return m;
  }();
  AnalyzeThresholds th_;
};

// The cause names exactly this label and sub-case.
void ExpectCause(const std::optional<WindowCause>& c, Bottleneck label, Subcase detail) {
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->label, label);
  EXPECT_EQ(c->detail, detail);
  EXPECT_FALSE(c->reason.empty());
  EXPECT_NE(FindBottleneckRow(c->label, c->detail), nullptr) << c->label << "/" << c->detail;
}

TEST_F(DetectorTest, CpuFallbackAndFallbackIdle) {
  WindowStats w = Healthy();
  w.activity = w.sm_active = 0;
  w.wl_cpu = 80;
  ExpectCause(Run(DetectCpuFallback, w, true), Bottleneck::kCpuFallback, Subcase::kNone);
  EXPECT_FALSE(Run(DetectFallbackIdle, w, true));
  EXPECT_FALSE(Run(DetectCpuFallback, w, false));  // only for a fallback run
  w.wl_cpu = 10;
  EXPECT_FALSE(Run(DetectCpuFallback, w, true));
  ExpectCause(Run(DetectFallbackIdle, w, true), Bottleneck::kIdle, Subcase::kNone);
  // On a contended host the bar is halved.
  w.wl_cpu = 30;
  w.psi_cpu = 25;
  ExpectCause(Run(DetectCpuFallback, w, true), Bottleneck::kCpuFallback, Subcase::kNone);
}

TEST_F(DetectorTest, NoActivityReadings) {
  WindowStats w = Healthy();
  EXPECT_FALSE(Run(DetectNoActivityReadings, w));
  w.activity = kNaN;
  std::optional<WindowCause> c = Run(DetectNoActivityReadings, w);
  ExpectCause(c, Bottleneck::kNone, Subcase::kNone);
  EXPECT_EQ(c->fixed_confidence, "low");
  EXPECT_TRUE(c->evidence.empty());
}

TEST_F(DetectorTest, BusyNotProductive) {
  WindowStats w = Starved();
  EXPECT_FALSE(Run(DetectBusyNotProductive, w));  // GPU-Util low too
  w.util = 95;
  ExpectCause(Run(DetectBusyNotProductive, w), Bottleneck::kLaunchBound,
              Subcase::kBusyNotProductive);
  w.gpm = false;  // without SM activity GPU-Util and activity are one figure
  EXPECT_FALSE(Run(DetectBusyNotProductive, w));
}

TEST_F(DetectorTest, HostIoBoundStorageAndSmallFiles) {
  WindowStats w = Starved();
  EXPECT_FALSE(Run(DetectHostIoBound, w));
  w.iowait = 25;
  std::optional<WindowCause> c = Run(DetectHostIoBound, w);
  ExpectCause(c, Bottleneck::kHostIoBound, Subcase::kStorage);
  EXPECT_NEAR(c->margin, 2.5, 1e-9);
  EXPECT_TRUE(c->needs_activity);
  // Another tenant's wait: the workload itself reads next to nothing.
  w.rchar = 1000;
  EXPECT_FALSE(Run(DetectHostIoBound, w));
  // Many small reads.
  w = Starved();
  w.rchar = 4e6;
  w.read_syscalls = 1000;
  w.opens = 80;
  ExpectCause(Run(DetectHostIoBound, w), Bottleneck::kHostIoBound, Subcase::kSmallFiles);
  EXPECT_FALSE(Run(DetectHostIoBound, Healthy()));
}

TEST_F(DetectorTest, HostCpuBoundSubcases) {
  WindowStats w = Starved();
  EXPECT_FALSE(Run(DetectHostCpuBound, w));
  w.busiest_thread = 99;
  ExpectCause(Run(DetectHostCpuBound, w), Bottleneck::kHostCpuBound, Subcase::kSingleThreadFeeder);
  w.cpu_busy = 95;  // the host is saturated as well
  ExpectCause(Run(DetectHostCpuBound, w), Bottleneck::kHostCpuBound, Subcase::kCpuSaturated);
  w.cgroup_throttled = 30;  // the quota outranks both
  std::optional<WindowCause> c = Run(DetectHostCpuBound, w);
  ExpectCause(c, Bottleneck::kHostCpuBound, Subcase::kCpuQuota);
  EXPECT_NEAR(c->margin, 3, 1e-9);
  // A quota used to the brim counts too.
  w = Starved();
  w.wl_cpu = 380;
  meta_.cpu_quota_cores = 4;
  ExpectCause(Run(DetectHostCpuBound, w), Bottleneck::kHostCpuBound, Subcase::kCpuQuota);
}

TEST_F(DetectorTest, TransferStarvedAndBusy) {
  WindowStats w = Starved();
  EXPECT_FALSE(Run(DetectStarvedTransfer, w));
  w.pcie = 75;
  ExpectCause(Run(DetectStarvedTransfer, w), Bottleneck::kTransferBound, Subcase::kNone);
  EXPECT_FALSE(Run(DetectBusyTransfer, w));  // starved: the other detector's
  WindowStats busy = Healthy();
  busy.pcie = 75;
  std::optional<WindowCause> c = Run(DetectBusyTransfer, busy);
  ExpectCause(c, Bottleneck::kTransferBound, Subcase::kNone);
  EXPECT_FALSE(c->needs_activity);
  EXPECT_FALSE(Run(DetectStarvedTransfer, busy));
}

TEST_F(DetectorTest, NoHostData) {
  WindowStats w = Starved();
  EXPECT_FALSE(Run(DetectNoHostData, w));
  w.cpu_busy = w.iowait = w.wl_cpu = kNaN;
  std::optional<WindowCause> c = Run(DetectNoHostData, w);
  ExpectCause(c, Bottleneck::kIdle, Subcase::kNoHostData);
  EXPECT_EQ(c->fixed_confidence, "low");
}

TEST_F(DetectorTest, IdleAndNotLimited) {
  WindowStats w = Starved();
  EXPECT_FALSE(Run(DetectIdle, w));
  ExpectCause(Run(DetectNotLimited, w), Bottleneck::kNone, Subcase::kNone);
  w.transitions_pct = 40;
  ExpectCause(Run(DetectNotLimited, w), Bottleneck::kNone, Subcase::kBursty);
  w.activity = w.sm_active = 1;
  std::optional<WindowCause> c = Run(DetectIdle, w);
  ExpectCause(c, Bottleneck::kIdle, Subcase::kNone);
  EXPECT_EQ(c->evidence[0].threshold, "< 5.0 %");
  EXPECT_FALSE(Run(DetectNotLimited, Healthy()));
  EXPECT_FALSE(Run(DetectIdle, Healthy()));
}

TEST_F(DetectorTest, ThrottledSubcases) {
  WindowStats w = Healthy();
  EXPECT_FALSE(Run(DetectThrottled, w));
  w.throttle_share = 80;
  w.clock_loss = 20;
  w.power_share = 80;
  ExpectCause(Run(DetectThrottled, w), Bottleneck::kThrottled, Subcase::kPowerCap);
  w.thermal_share = 80;  // ties go to thermal
  ExpectCause(Run(DetectThrottled, w), Bottleneck::kThrottled, Subcase::kThermal);
  w.thermal_share = w.power_share = 0;
  w.hw_share = 80;
  ExpectCause(Run(DetectThrottled, w), Bottleneck::kThrottled, Subcase::kHwSlowdown);
  w.clock_loss = kNaN;  // no clock figures: no claim
  EXPECT_FALSE(Run(DetectThrottled, w));
}

TEST_F(DetectorTest, MemoryBoundDramAndMemUtil) {
  WindowStats w = Healthy();
  EXPECT_FALSE(Run(DetectMemoryBound, w));
  w.dram = 80;
  w.tensor = 10;
  std::optional<WindowCause> c = Run(DetectMemoryBound, w);
  ExpectCause(c, Bottleneck::kMemoryBound, Subcase::kNone);
  EXPECT_FALSE(c->cap_medium);
  w.tensor = 60;  // tensor cores busy: compute, not memory
  EXPECT_FALSE(Run(DetectMemoryBound, w));
  w.dram = kNaN;
  w.mem_util = 85;
  c = Run(DetectMemoryBound, w);
  ExpectCause(c, Bottleneck::kMemoryBound, Subcase::kNone);
  EXPECT_TRUE(c->cap_medium);
}

TEST_F(DetectorTest, ComputeBound) {
  std::optional<WindowCause> c = Run(DetectComputeBound, Healthy());
  ExpectCause(c, Bottleneck::kComputeBound, Subcase::kNone);
  EXPECT_NEAR(c->margin, 90.0 / 50, 1e-9);
  EXPECT_FALSE(Run(DetectComputeBound, Starved()));
}

// A hung collective: GPU-Util pinned, power near idle, nothing moving, for long enough.
WindowStats Hung() {
  WindowStats w = Healthy();
  w.gpm = false;
  w.activity = w.util = 100;
  w.sm_active = w.occupancy = w.tensor = w.dram = kNaN;
  w.mem_util = 0;
  w.power_pct = 11;
  w.pcie = 0.01;
  w.nvlink_bps = 0;
  w.seconds = 600;
  w.n = 600;
  return w;
}

TEST_F(DetectorTest, Stalled) {
  std::optional<WindowCause> c = Run(DetectStalled, Hung());
  ExpectCause(c, Bottleneck::kStalled, Subcase::kNone);
  EXPECT_FALSE(Run(DetectStalled, Healthy()));
  WindowStats w = Hung();
  w.seconds = 60;  // shorter than stalled_min_s: not sustained
  EXPECT_FALSE(Run(DetectStalled, w));
  w = Hung();
  w.power_pct = kNaN;  // no power readings: no claim
  EXPECT_FALSE(Run(DetectStalled, w));
  w = Hung();
  w.mem_util = kNaN;  // no memory figure at all: no claim
  EXPECT_FALSE(Run(DetectStalled, w));
  w = Hung();
  w.mem_util = 30;  // memory moves: working, not hung
  EXPECT_FALSE(Run(DetectStalled, w));
  w = Hung();
  w.nvlink_bps = 20e9;  // a collective moving data over NVLink
  EXPECT_FALSE(Run(DetectStalled, w));
  w = Hung();
  w.pcie = kNaN;
  w.nvlink_bps = kNaN;  // links not recorded: judged from power and memory
  ExpectCause(Run(DetectStalled, w), Bottleneck::kStalled, Subcase::kNone);
}

TEST_F(DetectorTest, GpuOnlyBusyPartOfTheTime) {
  WindowStats w = Healthy();
  w.gpm = false;
  w.sm_active = kNaN;
  w.activity = w.util = 58;
  w.power_pct = 50;
  w.cpu_busy = w.iowait = w.wl_cpu = kNaN;
  std::optional<WindowCause> c = Run(DetectBusyNoHostData, w);
  ExpectCause(c, Bottleneck::kIdle, Subcase::kNoHostData);
  EXPECT_NE(c->reason.find("GPU idle 42.0 %"), std::string::npos) << c->reason;
  w.power_pct = 75;  // power shows the GPU saturated while busy
  EXPECT_FALSE(Run(DetectBusyNoHostData, w));
  w.power_pct = 50;
  w.cpu_busy = 10;  // host figures recorded
  EXPECT_FALSE(Run(DetectBusyNoHostData, w));
  w.cpu_busy = kNaN;
  w.activity = w.util = 95;  // busy nearly all the time: compute_bound from GPU-Util, low
  EXPECT_FALSE(Run(DetectBusyNoHostData, w));
  c = Run(DetectComputeBound, w);
  ExpectCause(c, Bottleneck::kComputeBound, Subcase::kNone);
  EXPECT_EQ(c->fixed_confidence, "low");
}

TEST_F(DetectorTest, UtilOverstated) {
  WindowStats w = Healthy();
  w.gpm = false;
  w.sm_active = kNaN;
  w.activity = w.util = 97;
  w.power_pct = 20;
  ExpectCause(Run(DetectUtilOverstated, w), Bottleneck::kLaunchBound, Subcase::kBusyNotProductive);
  w.power_pct = 70;
  EXPECT_FALSE(Run(DetectUtilOverstated, w));
  EXPECT_FALSE(Run(DetectUtilOverstated, Healthy()));  // GPM decides with SM activity
}

// Every window gets a label from the walk, and every answer of every detector is a table row.
TEST_F(DetectorTest, WalkAlwaysAnswersWithTableRows) {
  std::vector<WindowStats> windows;
  for (double activity : {kNaN, 0.0, 3.0, 20.0, 49.0, 50.0, 90.0}) {
    for (int variant = 0; variant < 6; ++variant) {
      WindowStats w = Healthy();
      w.activity = w.sm_active = activity;
      if (variant == 1) w.pcie = 90;
      if (variant == 2) w.busiest_thread = 99, w.cpu_busy = 95;
      if (variant == 3) w.iowait = 50;
      if (variant == 4) w.cpu_busy = w.iowait = w.wl_cpu = kNaN;
      if (variant == 5) w.throttle_share = 90, w.clock_loss = 30, w.dram = 90, w.tensor = 0;
      windows.push_back(w);
    }
  }
  for (bool fallback : {false, true}) {
    for (const WindowStats& w : windows) {
      bool answered = false;
      for (const NamedWindowDetector& d : WindowDetectors()) {
        std::optional<WindowCause> c = Run(d.detect, w, fallback);
        if (!c) continue;
        EXPECT_NE(FindBottleneckRow(c->label, c->detail), nullptr)
            << d.name << " answered " << c->label << "/" << c->detail;
        answered = true;
      }
      EXPECT_TRUE(answered) << "activity " << w.activity;
    }
  }
}

}  // namespace
}  // namespace gpuvet
