// Analyze report to JSON. Absent measurements are null, never 0.
#include "output/json/analyze_json.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/bottleneck.h"
#include "output/forecast_render.h"
namespace gpuvet {

namespace {

using nlohmann::json;

double R2(double v) { return std::isfinite(v) ? std::round(v * 100.0) / 100.0 : 0.0; }
double R4(double v) { return std::isfinite(v) ? std::round(v * 10000.0) / 10000.0 : 0.0; }

template <typename T>
json Opt(const std::optional<T>& v) {
  return v ? json(R2(static_cast<double>(*v))) : json(nullptr);
}

json LabelJson(const BottleneckLabel& l) {
  json ev = json::array();
  for (const Evidence& e : l.evidence) {
    ev.push_back({{"name", e.name}, {"value", e.value}, {"threshold", e.threshold}});
  }
  return {{"label", BottleneckName(l.label)},
          {"detail", SubcaseName(l.detail)},
          {"severity", SeverityName(LabelSeverity(l.label, l.detail))},
          {"seconds", R2(l.seconds)},
          {"share_pct", R2(l.share_pct)},
          {"confidence", l.confidence},
          {"reason", l.reason},
          {"evidence", ev},
          {"decision", l.decision}};
}

// `threads`: the recording holds workload processes (else the busiest thread is null, not 0).
json PhaseJson(const AnalyzePhase& p, bool threads) {
  return {{"start_s", R2(p.start_s)},
          {"end_s", R2(p.end_s)},
          {"label", LabelJson(p.label)},
          {"activity_metric", p.activity_metric},
          {"gpu_activity_pct", R2(p.gpu_activity_pct)},
          {"gpu_util_pct", Opt(p.gpu_util_pct)},
          {"host_cpu_pct", Opt(p.host_cpu_pct)},
          {"iowait_pct", Opt(p.iowait_pct)},
          {"busiest_thread_pct", threads ? json(R2(p.busiest_thread_pct)) : json(nullptr)}};
}

json PeriodicJson(const std::optional<PeriodicStall>& p) {
  if (!p) return nullptr;
  json j = {{"period_s", R2(p->period_s)},
            {"stall_s", R2(p->stall_s)},
            {"count", p->count},
            {"first_s", R2(p->first_s)},
            {"share_pct", R2(p->share_pct)},
            {"write_bytes_per_s_during", R2(p->write_bytes_per_s_during)},
            {"write_bytes_per_s_outside", R2(p->write_bytes_per_s_outside)},
            {"write_burst", p->write_burst}};
  if (!p->cause_kind.empty()) {  // only when the kernel log explains the stalls
    j["cause"] = {
        {"kind", p->cause_kind}, {"message", p->cause_message}, {"stalls", p->cause_stalls}};
  }
  return j;
}

// Recorder faults and kernel events: present only when the recording holds events (schema 2).
json EventsJson(const AnalyzeReport& r) {
  json faults = json::array(), kernel = json::array();
  for (const AnalyzeEvent& f : r.faults) {
    faults.push_back(
        {{"t", R2(f.t)}, {"kind", f.kind}, {"subject", f.subject}, {"message", f.message}});
  }
  for (const KernelEventGroup& k : r.kernel_events) {
    kernel.push_back({{"kind", k.kind},
                      {"subject", k.subject},
                      {"message", k.message},
                      {"count", k.count},
                      {"first_s", R2(k.first_s)},
                      {"last_s", R2(k.last_s)},
                      {"stalls_with", k.stalls_with},
                      {"phases", k.phases}});
  }
  return {{"faults", faults}, {"kernel_events", kernel}};
}

json CycleJson(const std::optional<FeedingCycle>& c) {
  if (!c) return nullptr;
  return {{"period_s", R2(c->period_s)},
          {"burst_s", R2(c->burst_s)},
          {"duty_pct", R2(c->duty_pct)},
          {"cycles", c->cycles},
          {"regular_pct", R2(c->regular_pct)},
          {"busy_level_pct", R2(c->busy_level_pct)},
          {"idle_level_pct", R2(c->idle_level_pct)},
          {"first_s", R2(c->first_s)},
          {"last_s", R2(c->last_s)},
          {"share_pct", R2(c->share_pct)}};
}

json ImbalanceJson(const std::vector<GpuImbalance>& v) {
  json out = json::array();
  for (const GpuImbalance& g : v) {
    json x = {{"gpu", g.gpu},
              {"kind", std::string(SubcaseName(g.kind))},
              {"value", R2(g.value)},
              {"others_median", R2(g.others_median)},
              {"unit", g.unit},
              {"seconds", R2(g.seconds)},
              {"share_pct", R2(g.share_pct)}};
    if (g.clock_event_reasons) x["clock_event_reasons"] = *g.clock_event_reasons;
    out.push_back(x);
  }
  return out;
}

json MemoryJson(const std::vector<MemoryGrowth>& v) {
  json out = json::array();
  for (const MemoryGrowth& g : v) {
    out.push_back({{"subject", g.subject},
                   {"kind", g.kind},
                   {"start_bytes", R2(g.start_bytes)},
                   {"end_bytes", R2(g.end_bytes)},
                   {"slope_bytes_per_s", R2(g.slope_bytes_per_s)},
                   {"r2", R4(g.r2)},
                   {"time_to_oom_s", Opt(g.time_to_oom_s)},
                   {"headroom_basis", g.headroom_basis}});
  }
  return out;
}

json ThrottleJson(const std::vector<GpuThrottle>& v) {
  json out = json::array();
  for (const GpuThrottle& t : v) {
    out.push_back({{"gpu", t.gpu},
                   {"busy_s", R2(t.busy_s)},
                   {"power_cap_pct", R2(t.power_cap_pct)},
                   {"thermal_pct", R2(t.thermal_pct)},
                   {"hw_slowdown_pct", R2(t.hw_slowdown_pct)},
                   {"clock_loss_pct", Opt(t.clock_loss_pct)}});
  }
  return out;
}

json EnergyJson(const EnergySummary& e) {
  json gpus = json::array();
  for (const GpuEnergy& g : e.gpus) {
    gpus.push_back({{"gpu", g.gpu},
                    {"joules", R2(g.joules)},
                    {"starved_joules", R2(g.starved_joules)},
                    {"method", g.method},
                    {"counter_resets", g.counter_resets},
                    {"mean_power_w", Opt(g.mean_power_w)}});
  }
  return {{"gpus", gpus},
          {"joules", R2(e.joules)},
          {"starved_joules", R2(e.starved_joules)},
          {"starved_pct", R2(e.starved_pct)},
          {"method", e.method},
          {"gpu_hours", R4(e.gpu_hours)},
          {"work_unit", e.work_unit},
          {"work", Opt(e.work)},
          {"work_per_s", Opt(e.work_per_s)},
          {"work_per_kj", Opt(e.work_per_kj)},
          {"price_per_gpu_hour", Opt(e.price_per_gpu_hour)},
          {"cost", e.cost ? json(R4(*e.cost)) : json(nullptr)},
          {"work_per_dollar", Opt(e.work_per_dollar)}};
}

json ForecastJson(const std::optional<UpgradeForecast>& f) {
  if (!f) return nullptr;
  return ForecastToJson(*f);
}

}  // namespace

std::string RenderAnalyzeJson(const AnalyzeReport& r) {
  json j;
  j["schema"] = kAnalyzeSchema;
  j["generated_at"] = r.generated_at;
  j["source"] = r.source;
  j["recording"] = {{"host", r.host},
                    {"producer", r.producer},
                    {"command", r.command},
                    {"gpus", r.gpu_names},
                    {"workload_gpus", r.workload_gpus},
                    {"start_unix_s", R2(r.start_unix_s)},
                    {"duration_s", R2(r.duration_s)},
                    {"interval_s", R2(r.interval_s)},
                    {"samples", r.samples},
                    {"exit_code", r.exit_code ? json(*r.exit_code) : json(nullptr)},
                    {"complete", r.complete},
                    {"gpm", r.gpm}};
  // Additive (gpuvet.analyze/v1): who ran the job, when the recording knows.
  if (!r.owner.empty()) j["recording"]["owner"] = r.owner;
  j["warnings"] = r.warnings;
  // Additive (gpuvet.analyze/v1): the series no sample holds, so 0 is never read for them.
  j["not_recorded"] = r.not_recorded;
  json phases = json::array(), labels = json::array();
  const bool threads = std::find(r.not_recorded.begin(), r.not_recorded.end(),
                                 "workload_processes") == r.not_recorded.end();
  for (const AnalyzePhase& p : r.phases) phases.push_back(PhaseJson(p, threads));
  for (const BottleneckLabel& l : r.labels) labels.push_back(LabelJson(l));
  j["phases"] = phases;
  j["labels"] = labels;
  j["verdict"] = LabelJson(r.verdict);
  j["periodic_stall"] = PeriodicJson(r.periodic);
  j["feeding_cycle"] = CycleJson(r.cycle);
  j["gpu_imbalance"] = ImbalanceJson(r.imbalance);
  if (!r.faults.empty() || !r.kernel_events.empty()) {
    json e = EventsJson(r);
    j["faults"] = e["faults"];
    j["kernel_events"] = e["kernel_events"];
  }
  j["memory_growth"] = MemoryJson(r.memory);
  j["throttle"] = ThrottleJson(r.throttle);
  j["energy"] = EnergyJson(r.energy);
  j["forecast"] = ForecastJson(r.forecast);
  // Process names and commands come from the recording: replace invalid UTF-8 instead of throwing.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace gpuvet
