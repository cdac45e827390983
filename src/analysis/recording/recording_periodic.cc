// Periodic stalls: trough runs of GPU activity, their start-to-start intervals, and whether disk
// writes burst during them (a checkpoint every N minutes writes while the GPU waits).
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

}  // namespace gpuvet
