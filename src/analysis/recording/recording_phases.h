// Change points: splits a recording's timeline into steady phases where GPU activity, host CPU,
// iowait, the busiest thread, disk busy time and PCIe traffic hold roughly constant means.
// Binary segmentation on a multivariate mean-shift cost (sums of squares from prefix sums), with a
// BIC-style penalty scaled by each signal's sample-to-sample noise, a minimum phase length and a
// minimum mean shift, so short dips stay inside a phase.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "analysis/recording/recording_options.h"
#include "analysis/recording/recording_signals.h"

namespace gpuvet {

// Half-open sample ranges [begin, end) covering every sample, in order. One range for a steady
// (or short) recording; empty for no samples.
std::vector<std::pair<size_t, size_t>> SplitPhases(const std::vector<SampleSignals>& samples,
                                                   double interval_s, const AnalyzeThresholds& th);

}  // namespace gpuvet
