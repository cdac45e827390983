// Periodic stalls: trough runs of GPU activity, their start-to-start intervals, and whether disk
// writes burst during them (a checkpoint every N minutes writes while the GPU waits). Feeding
// cycles: busy bursts at a period of a few samples (a loader delivering every few seconds).
#include <algorithm>
#include <cmath>

#include "analysis/recording/recording_detectors.h"

namespace gpuvet {

namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

struct Trough {
  size_t begin = 0, end = 0;  // samples [begin, end)
  double start_s = 0, seconds = 0;
};

}  // namespace

std::optional<PeriodicStall> DetectPeriodicStalls(const RecordingSignals& sig,
                                                  const AnalyzeThresholds& th) {
  const auto& v = sig.samples;
  if (v.size() < 3) return std::nullopt;
  std::vector<double> act;
  act.reserve(v.size());
  for (const SampleSignals& s : v) {
    if (std::isfinite(s.activity)) act.push_back(s.activity);
  }
  if (act.size() < v.size() / 2 || Median(act) < th.gpu_starved_pct) return std::nullopt;

  std::vector<Trough> troughs;
  for (size_t i = 0; i < v.size();) {
    bool low = std::isfinite(v[i].activity) && v[i].activity < th.gpu_starved_pct;
    if (!low) {
      ++i;
      continue;
    }
    Trough t;
    t.begin = i;
    t.start_s = v[i].t - v[i].dt;  // the interval that ended at sample i started here
    while (i < v.size() && std::isfinite(v[i].activity) && v[i].activity < th.gpu_starved_pct) {
      t.seconds += v[i].dt;
      ++i;
    }
    t.end = i;
    // Start-up and tear-down are not stalls.
    if (t.begin > 0 && t.end < v.size()) troughs.push_back(t);
  }
  if (static_cast<int>(troughs.size()) < th.periodic_min_stalls) return std::nullopt;

  std::vector<double> gaps, lengths;
  for (size_t i = 0; i < troughs.size(); ++i) {
    lengths.push_back(troughs[i].seconds);
    if (i > 0) gaps.push_back(troughs[i].start_s - troughs[i - 1].start_s);
  }
  double period = Median(gaps);
  double tolerance = std::max(period * th.periodic_jitter_pct / 100.0, 1.5 * v[0].dt);
  for (double g : gaps) {
    if (std::fabs(g - period) > tolerance) return std::nullopt;
  }
  double stall = Median(lengths);
  if (period <= 0 || stall >= period / 2) return std::nullopt;

  PeriodicStall p;
  p.period_s = period;
  p.stall_s = stall;
  p.count = static_cast<int>(troughs.size());
  p.first_s = troughs.front().start_s;
  for (const Trough& t : troughs) p.stalls.emplace_back(t.start_s, t.start_s + t.seconds);
  double total = 0, stalled = 0, w_in = 0, w_out = 0, t_in = 0, t_out = 0;
  std::vector<char> in(v.size(), 0);
  for (const Trough& t : troughs) {
    stalled += t.seconds;
    for (size_t i = t.begin; i < t.end; ++i) in[i] = 1;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    total += v[i].dt;
    (in[i] ? w_in : w_out) += v[i].disk_write_bps * v[i].dt;
    (in[i] ? t_in : t_out) += v[i].dt;
  }
  p.share_pct = total > 0 ? 100.0 * stalled / total : 0;
  p.write_bytes_per_s_during = t_in > 0 ? w_in / t_in : 0;
  p.write_bytes_per_s_outside = t_out > 0 ? w_out / t_out : 0;
  p.write_burst = p.write_bytes_per_s_during >= 1e6 &&
                  p.write_bytes_per_s_during >= th.write_burst_ratio * p.write_bytes_per_s_outside;
  return p;
}

std::optional<FeedingCycle> DetectFeedingCycle(const RecordingSignals& sig,
                                               const AnalyzeThresholds& th) {
  const auto& v = sig.samples;
  const size_t min_bursts = static_cast<size_t>(std::max(th.cycle_min_bursts, 3));
  if (v.size() < 2 * min_bursts) return std::nullopt;
  std::vector<double> act, dts;
  for (const SampleSignals& s : v) {
    if (std::isfinite(s.activity)) act.push_back(s.activity);
    if (s.dt > 0) dts.push_back(s.dt);
  }
  if (act.size() * 10 < v.size() * 9 || dts.empty()) return std::nullopt;
  const double dt = Median(dts);
  std::vector<double> sorted = act;
  std::sort(sorted.begin(), sorted.end());
  const double p10 = sorted[sorted.size() / 10], p90 = sorted[sorted.size() * 9 / 10];
  if (p90 - p10 < th.cycle_min_amplitude_pct) return std::nullopt;
  const double level = (p10 + p90) / 2;

  struct Burst {
    size_t begin = 0, end = 0;
    double start_s = 0;
  };
  std::vector<Burst> bursts;
  for (size_t i = 0; i < v.size();) {
    if (!(std::isfinite(v[i].activity) && v[i].activity >= level)) {
      ++i;
      continue;
    }
    Burst b;
    b.begin = i;
    b.start_s = v[i].t - v[i].dt;
    while (i < v.size() && std::isfinite(v[i].activity) && v[i].activity >= level) ++i;
    b.end = i;
    if (b.begin > 0) bursts.push_back(b);  // a burst cut by the start has no true start
  }
  if (bursts.size() < min_bursts) return std::nullopt;
  const size_t n = bursts.size();
  const double period =
      (bursts.back().start_s - bursts.front().start_s) / static_cast<double>(n - 1);
  if (period < 2 * dt * 0.99 || period > th.cycle_max_period_samples * dt) return std::nullopt;
  int regular = 0;
  for (size_t i = 1; i < n; ++i) {
    double gap = bursts[i].start_s - bursts[i - 1].start_s;
    if (std::fabs(gap - period) < dt * 0.999) ++regular;
  }
  const double regular_pct = 100.0 * regular / static_cast<double>(n - 1);
  if (regular_pct < th.cycle_regular_pct) return std::nullopt;

  std::vector<double> lengths;
  double busy_sum = 0, idle_sum = 0, idle_s = 0;
  int busy_n = 0, idle_n = 0;
  const size_t span_begin = bursts.front().begin, span_end = bursts.back().begin;
  for (size_t k = 0; k + 1 < n; ++k) {  // the last burst may run into the end: not measured
    lengths.push_back(static_cast<double>(bursts[k].end - bursts[k].begin) * dt);
  }
  for (size_t i = span_begin; i < span_end; ++i) {
    if (!std::isfinite(v[i].activity)) continue;
    if (v[i].activity >= level) {
      busy_sum += v[i].activity, ++busy_n;
    } else {
      idle_sum += v[i].activity, ++idle_n;
      idle_s += v[i].dt;
    }
  }
  const double burst = Median(lengths);
  const double duty = 100.0 * burst / period;
  if (duty >= th.cycle_max_duty_pct || busy_n == 0 || idle_n == 0) return std::nullopt;

  double total = 0;
  for (const SampleSignals& s : v) total += s.dt;
  FeedingCycle c;
  c.period_s = period;
  c.burst_s = burst;
  c.duty_pct = duty;
  c.cycles = static_cast<int>(n);
  c.regular_pct = regular_pct;
  c.busy_level_pct = busy_sum / busy_n;
  c.idle_level_pct = idle_sum / idle_n;
  c.first_s = bursts.front().start_s;
  c.last_s = bursts.back().start_s;
  c.share_pct = total > 0 ? 100.0 * idle_s / total : 0;
  return c;
}

}  // namespace gpuvet
