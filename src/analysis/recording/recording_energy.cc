// Energy accounting per GPU and work accounting for the run.
#include "analysis/recording/recording_energy.h"

#include <cmath>
#include <map>

namespace gpuvet {

struct EnergyAccount::Acc {
  GpuEnergy e;
  std::optional<double> prev;  // last counter value
  bool counter = false, power = false;
  double power_sum = 0;
  int power_n = 0;
};

EnergyAccount::EnergyAccount(const RecordingMeta& meta, const std::vector<int>& gpus,
                             const AnalyzeThresholds& th)
    : meta_(meta), th_(th), gpu_count_(gpus.size()), work_t0_(NAN), work_t1_(NAN), prev_work_(NAN) {
  for (const RecordedGpu& g : meta.gpus) {
    if (g.power_limit_w) limit_[g.index] = *g.power_limit_w;
  }
  for (int g : gpus) acc_[g].e.gpu = g;
}

EnergyAccount::~EnergyAccount() = default;

void EnergyAccount::Add(const Sample& s) {
  double dt = s.interval_s > 0 ? s.interval_s : meta_.interval_s;
  for (const GpuSample& g : s.gpus) {
    auto it = acc_.find(g.gpu);
    if (it == acc_.end()) continue;
    Acc& a = it->second;
    if (g.power_w) a.power_sum += *g.power_w, ++a.power_n;
    double joules = NAN;
    if (g.energy_j && a.prev) {
      double delta = *g.energy_j - *a.prev;
      // Backwards, or more than twice the power limit could draw: a reset, not energy.
      auto lim = limit_.find(g.gpu);
      bool implausible = lim != limit_.end() && delta > 2 * lim->second * dt + 1;
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
    if (std::isfinite(act) && act < th_.gpu_starved_pct) a.e.starved_joules += joules;
  }
  if (s.workload.work_total && std::isfinite(*s.workload.work_total)) {
    double w = *s.workload.work_total;
    if (std::isnan(work_t0_)) {
      work_t0_ = s.t;
    } else {
      work_ += w >= prev_work_ ? w - prev_work_ : w;  // a counter that restarted counts from 0
    }
    prev_work_ = w;
    work_t1_ = s.t;
  }
}

EnergySummary EnergyAccount::Result(double duration_s,
                                    std::optional<double> price_per_gpu_hour) const {
  EnergySummary out;
  bool all_counter = true, any = false;
  for (auto [gpu, a] : acc_) {
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
  out.gpu_hours = static_cast<double>(gpu_count_) * duration_s / 3600.0;
  out.work_unit = meta_.work_unit;
  if (!std::isnan(work_t0_)) {
    out.work = work_;
    if (work_t1_ > work_t0_) out.work_per_s = work_ / (work_t1_ - work_t0_);
    if (out.joules > 0) out.work_per_kj = work_ / (out.joules / 1000.0);
  }
  if (price_per_gpu_hour) {
    out.price_per_gpu_hour = price_per_gpu_hour;
    out.cost = *price_per_gpu_hour * out.gpu_hours;
    if (out.work && *out.cost > 0) out.work_per_dollar = *out.work / *out.cost;
  }
  return out;
}

EnergySummary ComputeEnergy(const Recording& rec, const std::vector<int>& gpus, double duration_s,
                            const AnalyzeThresholds& th, std::optional<double> price_per_gpu_hour) {
  EnergyAccount a(rec.meta, gpus, th);
  for (const Sample& s : rec.samples) a.Add(s);
  return a.Result(duration_s, price_per_gpu_hour);
}

}  // namespace gpuvet
