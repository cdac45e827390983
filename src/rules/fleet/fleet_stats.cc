// Robust statistics and series arithmetic for the fleet audit (see fleet_stats.h).
#include "rules/fleet/fleet_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuvet {

std::optional<double> Median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::optional<double> MedianAbsoluteDeviation(const std::vector<double>& values) {
  std::optional<double> med = Median(values);
  if (!med) return std::nullopt;
  std::vector<double> dev;
  dev.reserve(values.size());
  for (double v : values) dev.push_back(std::fabs(v - *med));
  return Median(std::move(dev));
}

double ModifiedZ(double x, double median, double mad) {
  // 0.6745 = Φ⁻¹(0.75): makes MAD a consistent estimator of σ for normal data.
  if (mad > 0) return 0.6745 * (x - median) / mad;
  if (x == median) return 0;
  return x > median ? std::numeric_limits<double>::infinity()
                    : -std::numeric_limits<double>::infinity();
}

namespace {

// Counter growth between samples [begin, end) of a time-ordered series, resets included.
double Growth(const std::vector<TimedValue>& s, size_t begin, size_t end, int* resets) {
  double total = 0;
  for (size_t i = begin + 1; i < end; ++i) {
    double d = s[i].v - s[i - 1].v;
    if (d >= 0) {
      total += d;
    } else {
      total += s[i].v;  // restarted from zero
      if (resets) ++*resets;
    }
  }
  return total;
}

}  // namespace

std::optional<CounterTrend> AnalyseCounter(const std::vector<TimedValue>& samples) {
  if (samples.size() < 2) return std::nullopt;
  CounterTrend t;
  t.samples = static_cast<int>(samples.size());
  t.span_s = samples.back().t - samples.front().t;
  if (t.span_s <= 0) return std::nullopt;
  t.increase = Growth(samples, 0, samples.size(), &t.resets);
  t.rate_per_h = t.increase / t.span_s * 3600;
  // Split at the sample closest to the middle of the span so both halves have an interval.
  const double mid = samples.front().t + t.span_s / 2;
  size_t split = 1;
  for (size_t i = 1; i + 1 < samples.size(); ++i) {
    if (std::fabs(samples[i].t - mid) < std::fabs(samples[split].t - mid)) split = i;
  }
  const double span1 = samples[split].t - samples.front().t;
  const double span2 = samples.back().t - samples[split].t;
  if (span1 > 0) t.first_half_per_h = Growth(samples, 0, split + 1, nullptr) / span1 * 3600;
  if (span2 > 0) {
    t.second_half_per_h = Growth(samples, split, samples.size(), nullptr) / span2 * 3600;
  }
  t.accelerating = span1 > 0 && span2 > 0 && t.second_half_per_h > 0 &&
                   t.second_half_per_h > 1.5 * t.first_half_per_h;
  return t;
}

std::optional<double> ActiveShare(const std::vector<TimedValue>& samples) {
  if (samples.empty()) return std::nullopt;
  if (samples.size() == 1) return samples[0].v > 0 ? 1.0 : 0.0;
  std::vector<double> gaps;
  for (size_t i = 1; i < samples.size(); ++i) gaps.push_back(samples[i].t - samples[i - 1].t);
  const double last_gap = Median(gaps).value_or(0);
  double active = 0, total = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    double dt = i + 1 < samples.size() ? samples[i + 1].t - samples[i].t : last_gap;
    if (dt < 0) dt = 0;
    total += dt;
    if (samples[i].v > 0) active += dt;
  }
  if (total <= 0) {
    int on = 0;
    for (const TimedValue& s : samples) on += s.v > 0;
    return static_cast<double>(on) / samples.size();
  }
  return active / total;
}

}  // namespace gpuvet
