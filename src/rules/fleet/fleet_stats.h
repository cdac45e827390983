// Robust statistics and series arithmetic behind `gpuvet fleet audit`: median and MAD for pool
// comparisons, the counter increase with resets (as Prometheus's increase() treats them), a
// rate trend split at the middle of the window, and the active share of a 0/1 series.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/fleet.h"

namespace gpuvet {

// Median of `values` (mean of the middle two for an even count); nullopt when empty.
std::optional<double> Median(std::vector<double> values);

// Median absolute deviation around the median (unscaled); nullopt when empty.
std::optional<double> MedianAbsoluteDeviation(const std::vector<double>& values);

// Modified z-score 0.6745 × (x − median) / MAD (Iglewicz & Hoaglin 1993). With MAD 0 every value
// off the median is an infinite outlier: ±infinity, and 0 for the median itself.
double ModifiedZ(double x, double median, double mad);

// How a cumulative counter grew over its samples (time order). A decrease is a reset (GPU reset,
// driver reload): the counter restarted from zero, so the post-reset value counts as growth.
struct CounterTrend {
  int samples = 0;
  double span_s = 0;             // last sample time − first sample time
  double increase = 0;           // growth over the span, resets included
  double rate_per_h = 0;         // increase per hour over the span (0 when span is 0)
  double first_half_per_h = 0;   // rate over the first half of the span
  double second_half_per_h = 0;  // rate over the second half
  bool accelerating = false;     // second half clearly faster (> 1.5 × first half, > 0)
  int resets = 0;
};

// Nullopt with fewer than two samples or a zero span (no rate can be said).
std::optional<CounterTrend> AnalyseCounter(const std::vector<TimedValue>& samples);

// Time-weighted share of [first, last] during which a 0/1 series was 1 (each sample holds until
// the next; the last counts for the median interval). Nullopt when empty; one sample = its value.
std::optional<double> ActiveShare(const std::vector<TimedValue>& samples);

}  // namespace gpuvet
