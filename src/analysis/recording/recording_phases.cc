// Binary segmentation, best split first. Each candidate split is found in one pass over its range
// with prefix sums, so the whole search is O(n · signals · phases).
#include "analysis/recording/recording_phases.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <queue>

namespace gpuvet {

namespace {

constexpr int kDims = 8;
using Vec = std::array<double, kDims>;

// The signals change points look at, scaled to about 0–1. iowait counts double: 20 % iowait is as
// telling as a 40-point swing of GPU activity. Board power (share of the limit) and memory
// activity (GPM DRAM bandwidth, else NVML memory utilisation) split a job whose GPU-Util stays
// pinned while the work stops: healthy minutes, then a hang, are two phases.
Vec Features(const SampleSignals& s) {
  auto f = [](double v, double scale) {
    return std::isfinite(v) ? std::clamp(v * scale / 100.0, 0.0, 1.5) : NAN;
  };
  return {f(s.activity, 1),  f(s.cpu_busy, 1),
          f(s.iowait, 2),    f(s.busiest_thread, 1),
          f(s.disk_busy, 1), f(s.pcie_link_pct, 1),
          f(s.power_pct, 1), f(std::isfinite(s.dram_bw) ? s.dram_bw : s.mem_util, 1)};
}

struct Prefix {
  std::vector<Vec> s1, s2;  // s1[i] = sum of the first i samples
  Vec Sum(size_t a, size_t b) const {
    Vec v;
    for (int d = 0; d < kDims; ++d) v[d] = s1[b][d] - s1[a][d];
    return v;
  }
};

struct Split {
  double gain = 0;  // noise-scaled cost reduction
  size_t at = 0;
  size_t begin = 0, end = 0;
  bool operator<(const Split& o) const { return gain < o.gain; }
};

class Segmenter {
 public:
  Segmenter(const std::vector<SampleSignals>& samples, size_t min_len, double min_shift)
      : min_len_(min_len), min_shift_(min_shift) {
    size_t n = samples.size();
    std::vector<Vec> x(n);
    Vec last{};
    for (size_t i = 0; i < n; ++i) {
      Vec f = Features(samples[i]);
      for (int d = 0; d < kDims; ++d) {
        if (std::isnan(f[d])) f[d] = last[d];  // carry the last value over a gap
        last[d] = f[d];
      }
      x[i] = f;
    }
    p_.s1.assign(n + 1, Vec{});
    p_.s2.assign(n + 1, Vec{});
    for (size_t i = 0; i < n; ++i) {
      for (int d = 0; d < kDims; ++d) {
        p_.s1[i + 1][d] = p_.s1[i][d] + x[i][d];
        p_.s2[i + 1][d] = p_.s2[i][d] + x[i][d] * x[i][d];
      }
    }
    // Noise per signal from consecutive differences (MAD / 0.6745 / √2), floored so a constant
    // synthetic signal does not make every wiggle significant.
    for (int d = 0; d < kDims; ++d) {
      std::vector<double> diff;
      diff.reserve(n);
      for (size_t i = 1; i < n; ++i) diff.push_back(std::fabs(x[i][d] - x[i - 1][d]));
      double mad = 0;
      if (!diff.empty()) {
        std::nth_element(diff.begin(), diff.begin() + diff.size() / 2, diff.end());
        mad = diff[diff.size() / 2];
      }
      double sigma = std::max(mad / 0.6745 / std::sqrt(2.0), 0.05);
      inv_var_[d] = 1.0 / (sigma * sigma);
    }
    penalty_ = 3.0 * kDims * std::log(static_cast<double>(std::max<size_t>(n, 2)));
  }

  // The best admissible split of [a, b), or gain 0.
  Split Best(size_t a, size_t b) const {
    Split best{0, 0, a, b};
    if (b - a < 2 * min_len_) return best;
    Vec total = p_.Sum(a, b);
    for (size_t k = a + min_len_; k + min_len_ <= b; ++k) {
      double n1 = static_cast<double>(k - a), n2 = static_cast<double>(b - k);
      Vec left = p_.Sum(a, k);
      double gain = 0, shift = 0;
      for (int d = 0; d < kDims; ++d) {
        double m1 = left[d] / n1, m2 = (total[d] - left[d]) / n2;
        double delta = m1 - m2;
        gain += n1 * n2 / (n1 + n2) * delta * delta * inv_var_[d];
        shift = std::max(shift, std::fabs(delta));
      }
      if (shift >= min_shift_ && gain > best.gain) best = {gain, k, a, b};
    }
    if (best.gain <= penalty_) best.gain = 0;
    return best;
  }

 private:
  Prefix p_;
  size_t min_len_;
  double min_shift_;
  Vec inv_var_{};
  double penalty_ = 0;
};

}  // namespace

std::vector<std::pair<size_t, size_t>> SplitPhases(const std::vector<SampleSignals>& samples,
                                                   double interval_s, const AnalyzeThresholds& th) {
  size_t n = samples.size();
  if (n == 0) return {};
  double dt = interval_s > 0 ? interval_s : 1.0;
  // Clamped before the cast: a garbled interval (1e-300 s) must not overflow size_t.
  double by_time = std::clamp(std::ceil(th.min_phase_s / dt), 1.0, static_cast<double>(n));
  size_t min_len = std::max<size_t>(static_cast<size_t>(std::max(th.min_phase_samples, 1)),
                                    static_cast<size_t>(by_time));
  Segmenter seg(samples, min_len, th.min_shift_pct / 100.0);
  std::vector<size_t> cuts;
  std::priority_queue<Split> queue;
  queue.push(seg.Best(0, n));
  while (!queue.empty() && static_cast<int>(cuts.size()) + 1 < th.max_phases) {
    Split s = queue.top();
    queue.pop();
    if (s.gain <= 0) break;
    cuts.push_back(s.at);
    queue.push(seg.Best(s.begin, s.at));
    queue.push(seg.Best(s.at, s.end));
  }
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::pair<size_t, size_t>> out;
  size_t begin = 0;
  for (size_t c : cuts) {
    out.emplace_back(begin, c);
    begin = c;
  }
  out.emplace_back(begin, n);
  return out;
}

}  // namespace gpuvet
