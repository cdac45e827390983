// Energy accounting per GPU and work accounting for the run.
#include "analysis/recording/recording_energy.h"

#include <cmath>
#include <map>

namespace gpuvet {

namespace {

struct Acc {
  GpuEnergy e;
  std::optional<double> prev;  // last counter value
  bool counter = false, power = false;
  double power_sum = 0;
  int power_n = 0;
};

}  // namespace

EnergySummary ComputeEnergy(const Recording& rec, const std::vector<int>& gpus, double duration_s,
                            const AnalyzeThresholds& th, std::optional<double> price_per_gpu_hour) {
  std::map<int, Acc> acc;
  std::map<int, double> limit;
  for (const RecordedGpu& g : rec.meta.gpus) {
    if (g.power_limit_w) limit[g.index] = *g.power_limit_w;
  }
  for (int g : gpus) acc[g].e.gpu = g;
  double work = 0, work_t0 = NAN, work_t1 = NAN, prev_work = NAN;
  for (const Sample& s : rec.samples) {
    double dt = s.interval_s > 0 ? s.interval_s : rec.meta.interval_s;
    for (const GpuSample& g : s.gpus) {
      auto it = acc.find(g.gpu);
      if (it == acc.end()) continue;
      Acc& a = it->second;
      if (g.power_w) a.power_sum += *g.power_w, ++a.power_n;
      double joules = NAN;
      if (g.energy_j && a.prev) {
        double delta = *g.energy_j - *a.prev;
        // Backwards, or more than twice the power limit could draw: a reset, not energy.
        auto lim = limit.find(g.gpu);
        bool implausible = lim != limit.end() && delta > 2 * lim->second * dt + 1;
        if (delta >= 0 && !implausible) {
          joules = delta;
          a.counter = true;
        } else {
          ++a.e.counter_resets;
        }
      }
      if (std::isnan(joules) && g.power_w && !(g.energy_j && !a.prev)) {
        joules = *g.power_w * dt;  // no counter (or it reset): integrate power over the interval
        a.power = true;
      }
      if (g.energy_j) a.prev = g.energy_j;
      if (std::isnan(joules)) continue;
      a.e.joules += joules;
      double act = g.sm_active_pct ? *g.sm_active_pct : g.util_pct.value_or(NAN);
      if (std::isfinite(act) && act < th.gpu_starved_pct) a.e.starved_joules += joules;
    }
    if (s.workload.work_total && std::isfinite(*s.workload.work_total)) {
      double w = *s.workload.work_total;
      if (std::isnan(work_t0)) {
        work_t0 = s.t;
      } else {
        work += w >= prev_work ? w - prev_work : w;  // a counter that restarted counts from 0
      }
      prev_work = w;
      work_t1 = s.t;
    }
  }
  EnergySummary out;
  bool all_counter = true, any = false;
  for (auto& [gpu, a] : acc) {
    a.e.method = a.counter && a.power ? "counter+power"
                 : a.counter          ? "counter"
                 : a.power            ? "power"
                                      : "none";
    if (a.power_n > 0) a.e.mean_power_w = a.power_sum / a.power_n;
    all_counter &= a.e.method == "counter";
    any |= a.e.method != "none";
    out.joules += a.e.joules;
    out.starved_joules += a.e.starved_joules;
    out.gpus.push_back(a.e);
  }
  out.method = !any ? "none" : all_counter ? "counter" : "mixed";
  out.starved_pct = out.joules > 0 ? 100.0 * out.starved_joules / out.joules : 0;
  out.gpu_hours = static_cast<double>(gpus.size()) * duration_s / 3600.0;
  out.work_unit = rec.meta.work_unit;
  if (!std::isnan(work_t0)) {
    out.work = work;
    if (work_t1 > work_t0) out.work_per_s = work / (work_t1 - work_t0);
    if (out.joules > 0) out.work_per_kj = work / (out.joules / 1000.0);
  }
  if (price_per_gpu_hour) {
    out.price_per_gpu_hour = price_per_gpu_hour;
    out.cost = *price_per_gpu_hour * out.gpu_hours;
    if (out.work && *out.cost > 0) out.work_per_dollar = *out.work / *out.cost;
  }
  return out;
}

}  // namespace gpuvet
