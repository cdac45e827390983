// Tests for CheckClocks: throttle reasons (busy and idle), unexplained low SM clocks, thermal
// margin and power limit, plus unreadable values and lost GPUs.
#include <gtest/gtest.h>

#include "rules/rules.h"
#include "testing/findings.h"
#include "testing/gpu_builders.h"
#include "testing/rule_check.h"

namespace gpuvet {
namespace {

using test::CountFindings;
using test::OnlyFinding;

// gpu1, busy and healthy on every check (tests/testing/gpu_builders.h).
GpuState HealthyGpu() { return test::HealthyGpu(1, "0000:3c:00.0"); }

std::vector<Finding> Evaluate(const GpuState& gpu, const Policy& policy = Policy{}) {
  return test::RunCheckOnGpu(CheckClocks, gpu, policy);
}

GpuState WithReasons(uint64_t bits) {
  GpuState g = HealthyGpu();
  g.clock_event_reasons = Reading<uint64_t>::Of(bits);
  return g;
}

TEST(ClockRules, HealthyBusyGpuIsOkOnEveryCheck) {
  auto fs = Evaluate(HealthyGpu());
  for (const char* id :
       {"throttle.sw_power_cap", "throttle.hw_slowdown", "throttle.thermal", "throttle.power_brake",
        "clocks.sm_below_max", "thermal.margin", "power.limit"}) {
    Finding f = OnlyFinding(fs, id);
    EXPECT_EQ(f.severity, Severity::kOk) << id;
    EXPECT_EQ(f.subject, "gpu1 (0000:3c:00.0)");
  }
  EXPECT_EQ(fs.size(), 7u);
}

TEST(ClockRules, PowerCapWarnsWhenBusyInfoWhenIdle) {
  GpuState g = WithReasons(clock_reason::kSwPowerCap);
  Finding busy = OnlyFinding(Evaluate(g), "throttle.sw_power_cap");
  EXPECT_EQ(busy.severity, Severity::kWarn);
  EXPECT_EQ(busy.summary, "power cap lowering clocks under load (700 W limit)");
  g.gpu_util_pct = Reading<int>::Of(10);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "throttle.sw_power_cap").severity, Severity::kInfo);
}

TEST(ClockRules, HwSlowdownFailsAndNamesPowerBrake) {
  auto fs = Evaluate(WithReasons(clock_reason::kHwSlowdown | clock_reason::kHwPowerBrakeSlowdown));
  Finding slow = OnlyFinding(fs, "throttle.hw_slowdown");
  EXPECT_EQ(slow.severity, Severity::kFail);
  EXPECT_NE(slow.summary.find("power brake"), std::string::npos);
  EXPECT_EQ(OnlyFinding(fs, "throttle.power_brake").severity, Severity::kFail);
}

TEST(ClockRules, SwThermalWarnsHwThermalFails) {
  Finding sw =
      OnlyFinding(Evaluate(WithReasons(clock_reason::kSwThermalSlowdown)), "throttle.thermal");
  EXPECT_EQ(sw.severity, Severity::kWarn);
  Finding hw = OnlyFinding(
      Evaluate(WithReasons(clock_reason::kSwThermalSlowdown | clock_reason::kHwThermalSlowdown)),
      "throttle.thermal");
  EXPECT_EQ(hw.severity, Severity::kFail);
}

TEST(ClockRules, UnreadableReasonsAreUnknownForEveryThrottleId) {
  GpuState g = HealthyGpu();
  g.clock_event_reasons = Reading<uint64_t>::Error("nvmlDeviceGetCurrentClocksEventReasons: 999");
  auto fs = Evaluate(g);
  for (const char* id : {"throttle.sw_power_cap", "throttle.hw_slowdown", "throttle.thermal",
                         "throttle.power_brake"}) {
    Finding f = OnlyFinding(fs, id);
    EXPECT_EQ(f.severity, Severity::kUnknown) << id;
    EXPECT_NE(f.summary.find("999"), std::string::npos);
  }
}

TEST(ClockRules, UnsupportedReasonsAreSkipped) {
  GpuState g = HealthyGpu();
  g.clock_event_reasons = Reading<uint64_t>::Unsupported("not supported");
  auto fs = Evaluate(g);
  EXPECT_EQ(CountFindings(fs, "throttle.sw_power_cap") + CountFindings(fs, "throttle.hw_slowdown") +
                CountFindings(fs, "throttle.thermal") + CountFindings(fs, "throttle.power_brake"),
            0);
}

TEST(ClockRules, LowClockUnderLoadWithoutReasonWarns) {
  GpuState g = HealthyGpu();
  g.sm_clock_mhz = Reading<int>::Of(1000);
  Finding f = OnlyFinding(Evaluate(g), "clocks.sm_below_max");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(f.summary, "SM clock 1000 of 1980 MHz under load, no throttle reason");

  g.clock_event_reasons = Reading<uint64_t>::Of(clock_reason::kApplicationsClocksSetting);
  Finding app = OnlyFinding(Evaluate(g), "clocks.sm_below_max");
  EXPECT_EQ(app.severity, Severity::kWarn);
  EXPECT_NE(app.summary.find("applications clocks"), std::string::npos);
}

TEST(ClockRules, LowClockExplainedByThrottleIsOk) {
  GpuState g = WithReasons(clock_reason::kSwPowerCap);
  g.sm_clock_mhz = Reading<int>::Of(1000);
  Finding f = OnlyFinding(Evaluate(g), "clocks.sm_below_max");
  EXPECT_EQ(f.severity, Severity::kOk);
  EXPECT_NE(f.summary.find("power cap"), std::string::npos);
}

TEST(ClockRules, LowClockWhileIdleIsOk) {
  GpuState g = HealthyGpu();
  g.sm_clock_mhz = Reading<int>::Of(210);
  g.gpu_util_pct = Reading<int>::Of(0);
  Finding f = OnlyFinding(Evaluate(g), "clocks.sm_below_max");
  EXPECT_EQ(f.severity, Severity::kOk);
  EXPECT_EQ(f.summary, "idle: clocks are expected to be low");

  g.gpu_util_pct = Reading<int>::Error("timed out");  // unknown utilisation: idle, and says so
  Finding unknown_util = OnlyFinding(Evaluate(g), "clocks.sm_below_max");
  EXPECT_EQ(unknown_util.severity, Severity::kOk);
  ASSERT_FALSE(unknown_util.evidence.empty());
  EXPECT_NE(unknown_util.evidence[0].value.find("treated as idle"), std::string::npos);
}

TEST(ClockRules, UnreadableClockUnderLoadIsUnknown) {
  GpuState g = HealthyGpu();
  g.sm_clock_mhz = Reading<int>::Error("nvmlDeviceGetClockInfo: timed out");
  EXPECT_EQ(OnlyFinding(Evaluate(g), "clocks.sm_below_max").severity, Severity::kUnknown);

  GpuState r = HealthyGpu();
  r.sm_clock_mhz = Reading<int>::Of(900);
  r.clock_event_reasons = Reading<uint64_t>::Error("timed out");
  EXPECT_EQ(OnlyFinding(Evaluate(r), "clocks.sm_below_max").severity, Severity::kUnknown);
}

TEST(ClockRules, ThermalMarginBranches) {
  GpuState g = HealthyGpu();
  g.temperature_c = Reading<int>::Of(80);  // 7 °C margin < 10
  Finding warn = OnlyFinding(Evaluate(g), "thermal.margin");
  EXPECT_EQ(warn.severity, Severity::kWarn);
  EXPECT_EQ(warn.summary, "80 °C, 7 °C below the 87 °C slowdown temperature");
  g.temperature_c = Reading<int>::Of(87);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "thermal.margin").severity, Severity::kFail);
  g.temperature_c = Reading<int>::Of(77);  // exactly the margin: ok
  EXPECT_EQ(OnlyFinding(Evaluate(g), "thermal.margin").severity, Severity::kOk);
  g.slowdown_temperature_c = Reading<int>::Error("nvmlDeviceGetTemperatureThreshold: 999");
  EXPECT_EQ(OnlyFinding(Evaluate(g), "thermal.margin").severity, Severity::kUnknown);
  g.slowdown_temperature_c = Reading<int>::Unsupported("not supported");
  EXPECT_EQ(CountFindings(Evaluate(g), "thermal.margin"), 0);
}

// Ada and newer: the margin below T.Limit less the slowdown offset is the distance to slowdown.
TEST(ClockRules, ThermalMarginFromTLimit) {
  GpuState g = HealthyGpu();
  g.slowdown_temperature_c = Reading<int>::Unsupported(std::string(kNotInCapture));
  g.temperature_c = Reading<int>::Of(86);
  g.temperature_margin_c = Reading<int>::Of(1);  // 1 °C below T.Limit
  g.slowdown_tlimit_c = Reading<int>::Of(-2);    // slowdown 2 °C past it
  Finding warn = OnlyFinding(Evaluate(g), "thermal.margin");
  EXPECT_EQ(warn.severity, Severity::kWarn);
  EXPECT_EQ(warn.summary,
            "86 °C, 1 °C below T.Limit: 3 °C before slowdown (slowdown at -2 °C from T.Limit)");
  g.temperature_margin_c = Reading<int>::Of(-2);
  Finding fail = OnlyFinding(Evaluate(g), "thermal.margin");
  EXPECT_EQ(fail.severity, Severity::kFail);
  EXPECT_EQ(fail.summary,
            "86 °C, 2 °C past T.Limit: at or past the slowdown point (slowdown at -2 °C from "
            "T.Limit)");
  g.temperature_margin_c = Reading<int>::Of(50);
  Finding ok = OnlyFinding(Evaluate(g), "thermal.margin");
  EXPECT_EQ(ok.severity, Severity::kOk);
  EXPECT_EQ(ok.summary, "86 °C, 50 °C below T.Limit, 52 °C margin to slowdown");
  // Without the offset, T.Limit itself is the line (never later than the real slowdown).
  g.slowdown_tlimit_c = Reading<int>::Unsupported("nvidia-smi reports N/A");
  g.temperature_margin_c = Reading<int>::Of(8);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "thermal.margin").severity, Severity::kWarn);
  g.temperature_margin_c = Reading<int>::Of(0);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "thermal.margin").severity, Severity::kFail);
  // Not a capture field and no T.Limit: unknown, naming both.
  g.temperature_margin_c = Reading<int>::Error("line 9 'Temperature > GPU T.Limit Temp': garbled");
  Finding unknown = OnlyFinding(Evaluate(g), "thermal.margin");
  EXPECT_EQ(unknown.severity, Severity::kUnknown);
  EXPECT_NE(unknown.summary.find("temperature_margin_c"), std::string::npos) << unknown.summary;
  // An absolute threshold still judges when T.Limit is unreadable.
  g.slowdown_temperature_c = Reading<int>::Of(100);
  EXPECT_EQ(OnlyFinding(Evaluate(g), "thermal.margin").severity, Severity::kOk);
}

// The enforced limit below a requested default: the platform caps it (GH200 module budget).
TEST(ClockRules, PowerLimitCappedByThePlatformIsInfo) {
  GpuState g = HealthyGpu();
  g.default_power_limit_w = Reading<double>::Of(900);
  g.requested_power_limit_w = Reading<double>::Of(900);
  g.power_limit_w = Reading<double>::Of(700);
  Finding f = OnlyFinding(Evaluate(g), "power.limit");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.summary,
            "power limit 700 W enforced, below the 900 W requested (= default): capped by the "
            "platform, not by a setting");
  g.requested_power_limit_w = Reading<double>::Of(700);  // someone set 700 W
  EXPECT_EQ(OnlyFinding(Evaluate(g), "power.limit").severity, Severity::kWarn);
}

TEST(ClockRules, PowerLimitBranches) {
  GpuState g = HealthyGpu();
  g.power_limit_w = Reading<double>::Of(500);
  Finding warn = OnlyFinding(Evaluate(g), "power.limit");
  EXPECT_EQ(warn.severity, Severity::kWarn);
  EXPECT_EQ(warn.summary, "power limit 500 W, below the 700 W default");
  g.power_limit_w = Reading<double>::Of(665);  // exactly 0.95 x 700
  EXPECT_EQ(OnlyFinding(Evaluate(g), "power.limit").severity, Severity::kOk);
  g.default_power_limit_w = Reading<double>::Error("timed out");
  EXPECT_EQ(OnlyFinding(Evaluate(g), "power.limit").severity, Severity::kUnknown);
}

TEST(ClockRules, PolicyThresholdsApply) {
  Policy p;
  p.thresholds.temperature_margin_warn_c = 30;
  p.thresholds.busy_util_pct = 99;  // 95 % is now idle
  GpuState g = WithReasons(clock_reason::kSwPowerCap);
  auto fs = Evaluate(g, p);
  EXPECT_EQ(OnlyFinding(fs, "thermal.margin").severity, Severity::kWarn);
  EXPECT_EQ(OnlyFinding(fs, "throttle.sw_power_cap").severity, Severity::kInfo);
}

TEST(ClockRules, LostGpuIsSkipped) {
  GpuState g = HealthyGpu();
  g.lost = true;
  EXPECT_TRUE(Evaluate(g).empty());
}

}  // namespace
}  // namespace gpuvet
