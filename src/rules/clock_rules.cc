// Clock, throttling, thermal and power checks per GPU, read from NVML's clock event reasons and
// sensors. Throttle reasons that only matter under load (power cap, low clocks) are idle-aware:
// an idle GPU at low clocks or at its power cap for a moment is not a problem.
#include <fmt/format.h>

#include "rules/rules.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Reasons that lower clocks for a cause another finding reports (so a low clock is explained).
constexpr uint64_t kExplainingReasons =
    clock_reason::kSwPowerCap | clock_reason::kHwSlowdown | clock_reason::kSwThermalSlowdown |
    clock_reason::kHwThermalSlowdown | clock_reason::kHwPowerBrakeSlowdown;

constexpr const char* kThrottleIds[] = {"throttle.sw_power_cap", "throttle.hw_slowdown",
                                        "throttle.thermal", "throttle.power_brake"};

// Names of the set bits among kExplainingReasons, for summaries.
std::string ReasonNames(uint64_t bits) {
  std::vector<std::string> names;
  if (bits & clock_reason::kSwPowerCap) names.push_back("power cap");
  if (bits & clock_reason::kHwSlowdown) names.push_back("HW slowdown");
  if (bits & clock_reason::kSwThermalSlowdown) names.push_back("SW thermal slowdown");
  if (bits & clock_reason::kHwThermalSlowdown) names.push_back("HW thermal slowdown");
  if (bits & clock_reason::kHwPowerBrakeSlowdown) names.push_back("power brake");
  return Join(names, ", ");
}

// Adds "name: field not in the capture" for a reading a saved capture lacks, so the check reports
// unknown instead of disappearing.
template <typename T>
void NoteNotInCapture(const Reading<T>& r, std::string_view name,
                      std::vector<std::string>& errors) {
  if (NotInCapture(r)) errors.push_back(fmt::format("{}: field not in the capture", name));
}

Evidence ReasonsEvidence(uint64_t bits) {
  return {"clock_event_reasons", fmt::format("{:#x}", bits), ""};
}

// Appends "name = value" evidence for a reading that has a value.
template <typename T>
void AddIf(std::vector<Evidence>& ev, std::string name, const Reading<T>& r,
           std::string threshold = "") {
  if (r.has()) ev.push_back({std::move(name), fmt::format("{}", *r), std::move(threshold)});
}

void CheckThrottle(const GpuState& gpu, const GpuActivity& activity, std::vector<Finding>& out) {
  const std::string subject = GpuSubject(gpu);
  const Reading<uint64_t>& reasons = gpu.clock_event_reasons;
  if (reasons.error()) {
    for (const char* id : kThrottleIds) {
      out.push_back(MakeFinding(id, subject, Severity::kUnknown,
                                "clock event reasons unreadable: " + reasons.note));
    }
    return;
  }
  if (NotInCapture(reasons)) {
    for (const char* id : kThrottleIds) {
      out.push_back(MakeFinding(id, subject, Severity::kUnknown,
                                "clock event reasons: field not in the capture"));
    }
    return;
  }
  if (!reasons.has()) return;
  const uint64_t bits = *reasons;

  // throttle.sw_power_cap: expected at full load for some parts, so warn only when busy.
  {
    std::vector<Evidence> ev = {ReasonsEvidence(bits), activity.evidence};
    AddIf(ev, "power_w", gpu.power_w);
    AddIf(ev, "power_limit_w", gpu.power_limit_w);
    if (!(bits & clock_reason::kSwPowerCap)) {
      out.push_back(MakeFinding("throttle.sw_power_cap", subject, Severity::kOk,
                                "power cap not limiting clocks", ev));
    } else {
      std::string limit = gpu.power_limit_w.has()
                              ? fmt::format(" ({} W limit)", FormatNumber(*gpu.power_limit_w, 0))
                              : "";
      out.push_back(MakeFinding("throttle.sw_power_cap", subject,
                                activity.busy ? Severity::kWarn : Severity::kInfo,
                                activity.busy ? "power cap lowering clocks under load" + limit
                                              : "power cap lowering clocks while idle" + limit,
                                ev));
    }
  }
  // throttle.hw_slowdown: halves clocks or worse; DCGM and gpud treat it as unhealthy.
  {
    std::vector<Evidence> ev = {ReasonsEvidence(bits)};
    AddIf(ev, "temperature_c", gpu.temperature_c);
    AddIf(ev, "power_w", gpu.power_w);
    if (!(bits & clock_reason::kHwSlowdown)) {
      out.push_back(
          MakeFinding("throttle.hw_slowdown", subject, Severity::kOk, "no HW slowdown", ev));
    } else {
      // NVML sets HW slowdown alongside HW thermal slowdown and power brake; name the cause.
      const uint64_t causes =
          bits & (clock_reason::kHwThermalSlowdown | clock_reason::kHwPowerBrakeSlowdown);
      std::string summary = "HW slowdown active: clocks cut hard";
      if (causes) summary += " (" + ReasonNames(causes) + " also active)";
      out.push_back(MakeFinding("throttle.hw_slowdown", subject, Severity::kFail, summary, ev));
    }
  }
  // throttle.thermal: software thermal slowdown warns; hardware thermal slowdown fails.
  {
    std::vector<Evidence> ev = {ReasonsEvidence(bits)};
    AddIf(ev, "temperature_c", gpu.temperature_c);
    AddIf(ev, "slowdown_temperature_c", gpu.slowdown_temperature_c);
    const bool hw = bits & clock_reason::kHwThermalSlowdown;
    const bool sw = bits & clock_reason::kSwThermalSlowdown;
    if (hw) {
      out.push_back(MakeFinding("throttle.thermal", subject, Severity::kFail,
                                "HW thermal slowdown: GPU too hot, clocks cut hard", ev));
    } else if (sw) {
      out.push_back(MakeFinding("throttle.thermal", subject, Severity::kWarn,
                                "SW thermal slowdown: clocks reduced for temperature", ev));
    } else {
      out.push_back(
          MakeFinding("throttle.thermal", subject, Severity::kOk, "no thermal slowdown", ev));
    }
  }
  // throttle.power_brake: an external signal; the node cannot deliver full performance.
  {
    std::vector<Evidence> ev = {ReasonsEvidence(bits)};
    if (bits & clock_reason::kHwPowerBrakeSlowdown) {
      out.push_back(MakeFinding("throttle.power_brake", subject, Severity::kFail,
                                "power brake asserted by the system: clocks held down", ev));
    } else {
      out.push_back(
          MakeFinding("throttle.power_brake", subject, Severity::kOk, "no power brake", ev));
    }
  }
}

void CheckSmClock(const GpuState& gpu, const GpuActivity& activity, const Thresholds& t,
                  std::vector<Finding>& out) {
  const std::string subject = GpuSubject(gpu);
  std::vector<Evidence> ev = {activity.evidence};
  if (!activity.busy) {
    AddIf(ev, "sm_clock_mhz", gpu.sm_clock_mhz);
    AddIf(ev, "sm_clock_max_mhz", gpu.sm_clock_max_mhz);
    out.push_back(MakeFinding("clocks.sm_below_max", subject, Severity::kOk,
                              "idle: clocks are expected to be low", ev));
    return;
  }
  std::vector<std::string> errors;
  if (gpu.sm_clock_mhz.error()) errors.push_back("sm_clock_mhz: " + gpu.sm_clock_mhz.note);
  if (gpu.sm_clock_max_mhz.error()) {
    errors.push_back("sm_clock_max_mhz: " + gpu.sm_clock_max_mhz.note);
  }
  NoteNotInCapture(gpu.sm_clock_mhz, "sm_clock_mhz", errors);
  NoteNotInCapture(gpu.sm_clock_max_mhz, "sm_clock_max_mhz", errors);
  if (!errors.empty()) {
    out.push_back(MakeFinding("clocks.sm_below_max", subject, Severity::kUnknown,
                              "SM clock unknown: " + Join(errors, "; "), ev));
    return;
  }
  if (!gpu.sm_clock_mhz.has() || !gpu.sm_clock_max_mhz.has() || *gpu.sm_clock_max_mhz <= 0) {
    return;  // not supported
  }
  const int sm = *gpu.sm_clock_mhz, max = *gpu.sm_clock_max_mhz;
  const double floor = t.sm_clock_min_ratio * max;
  ev.push_back({"sm_clock_mhz", std::to_string(sm),
                fmt::format(">= {} x max = {} MHz", t.sm_clock_min_ratio, FormatNumber(floor, 0))});
  ev.push_back({"sm_clock_max_mhz", std::to_string(max), ""});
  if (sm >= floor) {
    out.push_back(MakeFinding("clocks.sm_below_max", subject, Severity::kOk,
                              fmt::format("SM clock {} of {} MHz under load", sm, max), ev));
    return;
  }
  const Reading<uint64_t>& reasons = gpu.clock_event_reasons;
  if (reasons.error()) {
    out.push_back(MakeFinding(
        "clocks.sm_below_max", subject, Severity::kUnknown,
        fmt::format("SM clock {} of {} MHz under load; cannot tell why: clock event reasons "
                    "unreadable: {}",
                    sm, max, reasons.note),
        ev));
    return;
  }
  const uint64_t bits = reasons.has() ? *reasons : 0;
  if (reasons.has()) ev.push_back(ReasonsEvidence(bits));
  if (bits & kExplainingReasons) {
    // The throttle.* finding reports the cause; this check looks for unexplained low clocks.
    out.push_back(MakeFinding("clocks.sm_below_max", subject, Severity::kOk,
                              fmt::format("SM clock {} of {} MHz under load, explained by {} "
                                          "(see throttle.*)",
                                          sm, max, ReasonNames(bits & kExplainingReasons)),
                              ev));
    return;
  }
  std::string summary =
      fmt::format("SM clock {} of {} MHz under load, no throttle reason", sm, max);
  if (bits & clock_reason::kApplicationsClocksSetting) {
    summary += "; applications clocks setting limits it";
  }
  out.push_back(MakeFinding("clocks.sm_below_max", subject, Severity::kWarn, summary, ev));
}

// "50 °C below T.Limit" / "3 °C past T.Limit".
std::string TLimitWords(int margin) {
  return margin >= 0 ? fmt::format("{} °C below T.Limit", margin)
                     : fmt::format("{} °C past T.Limit", -margin);
}

// thermal.margin from T.Limit (Ada and newer): the margin below T.Limit less the slowdown offset
// (-2 °C on H100: slowdown engages 2 °C past T.Limit) is the distance to slowdown. Without the
// offset T.Limit itself (the GPU's maximum operating temperature) is the line: never later.
void CheckTLimitMargin(const GpuState& gpu, const Thresholds& t, std::vector<Finding>& out) {
  const std::string subject = GpuSubject(gpu);
  const int margin = *gpu.temperature_margin_c;
  const bool offset_known = gpu.slowdown_tlimit_c.has();
  const int offset = offset_known ? *gpu.slowdown_tlimit_c : 0;
  const int to_slowdown = margin - offset;
  std::vector<Evidence> ev;
  AddIf(ev, "temperature_c", gpu.temperature_c);
  ev.push_back({"temperature_margin_c", std::to_string(margin), ""});  // °C below T.Limit
  ev.push_back({"slowdown_tlimit_c",
                offset_known ? std::to_string(offset) : "not reported (T.Limit taken as the line)",
                ""});
  ev.push_back({"margin_to_slowdown_c", std::to_string(to_slowdown),
                fmt::format(">= {}", t.temperature_margin_warn_c)});
  const std::string temp =
      gpu.temperature_c.has() ? fmt::format("{} °C, ", *gpu.temperature_c) : "";
  const std::string where = offset_known ? fmt::format("slowdown at {:+} °C from T.Limit", offset)
                                         : "slowdown at T.Limit";
  if (to_slowdown <= 0) {
    out.push_back(MakeFinding(
        "thermal.margin", subject, Severity::kFail,
        fmt::format("{}{}: at or past the slowdown point ({})", temp, TLimitWords(margin), where),
        ev));
  } else if (to_slowdown < t.temperature_margin_warn_c) {
    out.push_back(MakeFinding("thermal.margin", subject, Severity::kWarn,
                              fmt::format("{}{}: {} °C before slowdown ({})", temp,
                                          TLimitWords(margin), to_slowdown, where),
                              ev));
  } else {
    out.push_back(MakeFinding(
        "thermal.margin", subject, Severity::kOk,
        fmt::format("{}{}, {} °C margin to slowdown", temp, TLimitWords(margin), to_slowdown), ev));
  }
}

void CheckThermalMargin(const GpuState& gpu, const Thresholds& t, std::vector<Finding>& out) {
  // Ada and newer report the margin to T.Limit instead of (or besides) absolute thresholds.
  if (gpu.temperature_margin_c.has()) return CheckTLimitMargin(gpu, t, out);
  const std::string subject = GpuSubject(gpu);
  std::vector<std::string> errors;
  if (gpu.temperature_c.error()) errors.push_back("temperature_c: " + gpu.temperature_c.note);
  if (gpu.slowdown_temperature_c.error()) {
    errors.push_back("slowdown_temperature_c: " + gpu.slowdown_temperature_c.note);
  }
  NoteNotInCapture(gpu.temperature_c, "temperature_c", errors);
  NoteNotInCapture(gpu.slowdown_temperature_c, "slowdown_temperature_c", errors);
  if (gpu.temperature_margin_c.error() &&
      !(gpu.temperature_c.has() && gpu.slowdown_temperature_c.has())) {
    errors.push_back("temperature_margin_c: " + gpu.temperature_margin_c.note);
  }
  if (!errors.empty()) {
    out.push_back(MakeFinding("thermal.margin", subject, Severity::kUnknown,
                              "temperature margin unknown: " + Join(errors, "; ")));
    return;
  }
  if (!gpu.temperature_c.has() || !gpu.slowdown_temperature_c.has()) return;
  const int temp = *gpu.temperature_c, slowdown = *gpu.slowdown_temperature_c;
  if (slowdown <= 0) return;  // some boards report 0 for a threshold they do not have
  const int margin = slowdown - temp;
  std::vector<Evidence> ev = {
      {"temperature_c", std::to_string(temp), ""},
      {"slowdown_temperature_c", std::to_string(slowdown), ""},
      {"margin_c", std::to_string(margin), fmt::format(">= {}", t.temperature_margin_warn_c)}};
  if (margin <= 0) {
    out.push_back(MakeFinding(
        "thermal.margin", subject, Severity::kFail,
        fmt::format("{} °C, at or above the {} °C slowdown temperature", temp, slowdown), ev));
  } else if (margin < t.temperature_margin_warn_c) {
    out.push_back(MakeFinding(
        "thermal.margin", subject, Severity::kWarn,
        fmt::format("{} °C, {} °C below the {} °C slowdown temperature", temp, margin, slowdown),
        ev));
  } else {
    out.push_back(MakeFinding("thermal.margin", subject, Severity::kOk,
                              fmt::format("{} °C, {} °C margin to slowdown", temp, margin), ev));
  }
}

void CheckPowerLimit(const GpuState& gpu, const Thresholds& t, std::vector<Finding>& out) {
  const std::string subject = GpuSubject(gpu);
  std::vector<std::string> errors;
  if (gpu.power_limit_w.error()) errors.push_back("power_limit_w: " + gpu.power_limit_w.note);
  if (gpu.default_power_limit_w.error()) {
    errors.push_back("default_power_limit_w: " + gpu.default_power_limit_w.note);
  }
  NoteNotInCapture(gpu.power_limit_w, "power_limit_w", errors);
  NoteNotInCapture(gpu.default_power_limit_w, "default_power_limit_w", errors);
  if (!errors.empty()) {
    out.push_back(MakeFinding("power.limit", subject, Severity::kUnknown,
                              "power limit unknown: " + Join(errors, "; ")));
    return;
  }
  if (!gpu.power_limit_w.has() || !gpu.default_power_limit_w.has()) return;
  const double limit = *gpu.power_limit_w, def = *gpu.default_power_limit_w;
  if (def <= 0) return;  // no meaningful default to compare with
  const double floor = t.power_limit_min_ratio * def;
  std::vector<Evidence> ev = {
      {"power_limit_w", FormatNumber(limit, 0),
       fmt::format(">= {} x default = {}", t.power_limit_min_ratio, FormatNumber(floor, 0))},
      {"default_power_limit_w", FormatNumber(def, 0), ""}};
  const Reading<double>& requested = gpu.requested_power_limit_w;
  if (limit < floor && requested.has() && *requested >= floor) {
    // Nobody lowered the setting: the platform enforces less than was asked for (Grace Hopper
    // shares a module power budget with the CPU; a BMC can cap power out of band). Not a setting
    // to restore with `nvidia-smi -pl`.
    ev.push_back({"requested_power_limit_w", FormatNumber(*requested, 0), ""});
    Finding f = MakeFinding("power.limit", subject, Severity::kInfo,
                            fmt::format("power limit {} W enforced, below the {} W requested (= "
                                        "default): capped by the platform, not by a setting",
                                        FormatNumber(limit, 0), FormatNumber(*requested, 0)),
                            ev);
    f.decision =
        "Nothing to restore on the GPU. If this node is meant to give the GPU its full default, "
        "check the module power limit (Grace Hopper) and the BMC's power capping policy.";
    out.push_back(std::move(f));
    return;
  }
  if (limit < floor) {
    out.push_back(MakeFinding("power.limit", subject, Severity::kWarn,
                              fmt::format("power limit {} W, below the {} W default",
                                          FormatNumber(limit, 0), FormatNumber(def, 0)),
                              ev));
  } else {
    out.push_back(MakeFinding("power.limit", subject, Severity::kOk,
                              fmt::format("power limit {} W (default {} W)", FormatNumber(limit, 0),
                                          FormatNumber(def, 0)),
                              ev));
  }
}

}  // namespace

void CheckClocks(const CheckInput& in, const Policy& policy, std::vector<Finding>& out) {
  const Thresholds& t = policy.thresholds;
  for (const GpuState& gpu : in.gpus.gpus) {
    if (!Evaluable(gpu)) continue;  // gpu.lost / gpu.query_failed report it
    const GpuActivity activity = GpuActivityOf(&gpu, t);
    CheckThrottle(gpu, activity, out);
    CheckSmClock(gpu, activity, t, out);
    CheckThermalMargin(gpu, t, out);
    CheckPowerLimit(gpu, t, out);
  }
}

}  // namespace gpuvet
