// One GPU among several unlike the others: over the samples where most of the workload's GPUs
// are busy, each GPU's mean activity, SM clock, temperature and slowdown share against the median
// of the other GPUs. A mean over all GPUs hides one idle, slow, hot or straggling GPU; this does
// not.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/recording/recording_detectors.h"
#include "core/gpu_state.h"

namespace gpuvet {

namespace {

constexpr uint64_t kSlowdownBits =
    clock_reason::kSwPowerCap | clock_reason::kHwSlowdown | clock_reason::kSwThermalSlowdown |
    clock_reason::kHwThermalSlowdown | clock_reason::kHwPowerBrakeSlowdown;

double MedianOf(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double ActivityOf(const GpuSample& g) {
  if (g.sm_active_pct) return *g.sm_active_pct;
  if (g.util_pct) return *g.util_pct;
  return std::nan("");
}

}  // namespace

struct GpuImbalanceDetector::Acc {
  double act = 0, act_n = 0;      // over work samples
  double clock = 0, clock_n = 0;  // while this GPU is busy
  double temp = 0, temp_n = 0;
  double busy_s = 0, slow_s = 0;
  std::map<uint64_t, double> reasons;  // slowdown bits -> seconds
  double Mean(double sum, double n) const { return n > 0 ? sum / n : std::nan(""); }
};

GpuImbalanceDetector::GpuImbalanceDetector(const RecordingMeta& meta, const std::vector<int>& gpus,
                                           const AnalyzeThresholds& th)
    : meta_(meta), th_(th), gpus_(gpus.size()) {
  if (gpus_ < 3) return;
  for (int g : gpus) acc_[g];
}

GpuImbalanceDetector::~GpuImbalanceDetector() = default;

void GpuImbalanceDetector::Add(const Sample& s) {
  if (gpus_ < 3) return;
  const AnalyzeThresholds& th = th_;
  std::map<int, const GpuSample*> by;
  for (const GpuSample& g : s.gpus) {
    if (acc_.count(g.gpu)) by[g.gpu] = &g;
  }
  int busy = 0, known = 0;
  for (auto& [g, p] : by) {
    double a = ActivityOf(*p);
    if (std::isfinite(a)) ++known, busy += a >= th.gpu_starved_pct;
  }
  if (known < static_cast<int>(gpus_) || 2 * busy <= known) return;  // most must work
  const double dt = s.interval_s > 0 ? s.interval_s : meta_.interval_s;
  work_s_ += dt;
  for (auto& [g, p] : by) {
    Acc& a = acc_[g];
    double act = ActivityOf(*p);
    a.act += act, a.act_n += 1;
    if (act < th.gpu_starved_pct) continue;
    a.busy_s += dt;
    if (p->sm_clock_mhz) a.clock += *p->sm_clock_mhz, a.clock_n += 1;
    if (p->temperature_c) a.temp += *p->temperature_c, a.temp_n += 1;
    if (p->clock_event_reasons && (*p->clock_event_reasons & kSlowdownBits)) {
      a.slow_s += dt;
      a.reasons[*p->clock_event_reasons & kSlowdownBits] += dt;
    }
  }
}

std::vector<GpuImbalance> GpuImbalanceDetector::Result(double total_s) const {
  std::vector<GpuImbalance> out;
  if (gpus_ < 3) return out;
  const AnalyzeThresholds& th = th_;
  const std::map<int, Acc>& acc = acc_;
  const double work_s = work_s_;
  if (work_s <= 0 || total_s <= 0 || 100.0 * work_s / total_s < th.imbalance_min_share_pct) {
    return out;
  }

  auto others = [&](int self, auto field) {
    std::vector<double> v;
    for (auto& [g, a] : acc) {
      if (g == self) continue;
      double x = field(a);
      if (std::isfinite(x)) v.push_back(x);
    }
    return MedianOf(v);
  };
  auto act = [](const Acc& a) { return a.Mean(a.act, a.act_n); };
  auto clock = [](const Acc& a) { return a.Mean(a.clock, a.clock_n); };
  auto temp = [](const Acc& a) { return a.Mean(a.temp, a.temp_n); };
  auto slow = [](const Acc& a) {
    return a.busy_s > 0 ? 100.0 * a.slow_s / a.busy_s : std::nan("");
  };

  for (auto& [g, a] : acc) {
    GpuImbalance x;
    x.gpu = g;
    x.seconds = work_s;
    x.share_pct = 100.0 * work_s / total_s;
    const double my_act = act(a), o_act = others(g, act);
    const double my_clock = clock(a), o_clock = others(g, clock);
    const double my_slow = slow(a), o_slow = others(g, slow);
    const double my_temp = temp(a), o_temp = others(g, temp);
    if (my_act < th.imbalance_idle_pct && o_act >= th.gpu_starved_pct) {
      x.kind = Subcase::kIdleGpu, x.value = my_act, x.others_median = o_act, x.unit = "%";
    } else if (std::isfinite(my_clock) && std::isfinite(o_clock) &&
               my_clock <= (1 - th.imbalance_clock_pct / 100) * o_clock) {
      x.kind = Subcase::kSlowGpu, x.value = my_clock, x.others_median = o_clock, x.unit = "MHz";
    } else if (std::isfinite(my_slow) && std::isfinite(o_slow) &&
               my_slow >= o_slow + th.imbalance_slowdown_points) {
      x.kind = Subcase::kSlowGpu, x.value = my_slow, x.others_median = o_slow;
      x.unit = "% of busy time slowed";
    } else if (my_act >= o_act + th.imbalance_straggler_points &&
               o_act < th.imbalance_others_busy_max_pct) {
      x.kind = Subcase::kStraggler, x.value = my_act, x.others_median = o_act, x.unit = "%";
    } else if (std::isfinite(my_temp) && std::isfinite(o_temp) &&
               my_temp >= o_temp + th.imbalance_hot_c) {
      x.kind = Subcase::kHotGpu, x.value = my_temp, x.others_median = o_temp, x.unit = "C";
    } else {
      continue;
    }
    if (x.kind == Subcase::kSlowGpu && !a.reasons.empty()) {
      x.clock_event_reasons =
          std::max_element(a.reasons.begin(), a.reasons.end(), [](const auto& l, const auto& r) {
            return l.second < r.second;
          })->first;
    }
    out.push_back(x);
  }
  // One GPU (or a few) among many: when a quarter or more of the GPUs differ, the node runs two
  // kinds of work, not one odd GPU.
  if (out.size() * 4 > gpus_ && out.size() > 1) return {};
  auto deviation = [](const GpuImbalance& x) {
    return x.others_median != 0 ? std::fabs(x.value - x.others_median) / std::fabs(x.others_median)
                                : std::fabs(x.value);
  };
  std::stable_sort(out.begin(), out.end(), [&](const GpuImbalance& l, const GpuImbalance& r) {
    auto rank = [](Subcase k) {
      return k == Subcase::kIdleGpu     ? 0
             : k == Subcase::kSlowGpu   ? 1
             : k == Subcase::kStraggler ? 2
                                        : 3;
    };
    if (rank(l.kind) != rank(r.kind)) return rank(l.kind) < rank(r.kind);
    return deviation(l) > deviation(r);
  });
  return out;
}

std::vector<GpuImbalance> DetectGpuImbalance(const Recording& rec, const std::vector<int>& gpus,
                                             double total_s, const AnalyzeThresholds& th) {
  GpuImbalanceDetector d(rec.meta, gpus, th);
  for (const Sample& s : rec.samples) d.Add(s);
  return d.Result(total_s);
}

}  // namespace gpuvet
