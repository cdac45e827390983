// Interval unions with a linear sweep after one sort.
#include "analysis/trace/intervals.h"

#include <algorithm>

namespace gpuvet {

std::vector<Interval> MergeIntervals(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> out;
  for (const Interval& i : v) {
    Interval x{i.start, std::max(i.start, i.end)};
    if (!out.empty() && x.start <= out.back().end) {
      out.back().end = std::max(out.back().end, x.end);
    } else {
      out.push_back(x);
    }
  }
  return out;
}

int64_t TotalLength(const std::vector<Interval>& merged) {
  int64_t sum = 0;
  for (const Interval& i : merged) sum += i.end - i.start;
  return sum;
}

int64_t IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t sum = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t lo = std::max(a[i].start, b[j].start);
    int64_t hi = std::min(a[i].end, b[j].end);
    if (hi > lo) sum += hi - lo;
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return sum;
}

int64_t ClippedLength(const std::vector<Interval>& merged, int64_t lo, int64_t hi) {
  // First interval that ends after lo.
  auto it = std::upper_bound(merged.begin(), merged.end(), lo,
                             [](int64_t v, const Interval& x) { return v < x.end; });
  int64_t sum = 0;
  for (; it != merged.end() && it->start < hi; ++it) {
    sum += std::min(it->end, hi) - std::max(it->start, lo);
  }
  return sum;
}

}  // namespace gpuvet
