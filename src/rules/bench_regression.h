// bench.regression: a run against an earlier one (--baseline). Figures are matched by PCI bus id
// when both runs recorded it, else by CUDA ordinal; drops, figures lost since and a mode mismatch
// warn. Pure: two runs in, findings out.
#pragma once

#include <vector>

#include "core/bench.h"
#include "core/finding.h"

namespace gpuvet {

// The bench.regression findings of `run` against `baseline`: a warn per figure that dropped by
// more than `max_drop` (throughput: share of the baseline, "17 % below"; latencies: factor,
// "11.2× slower"), a warn per subject whose baseline figures are missing or not measured now, a
// warn when the modes differ, and one ok summary (figures compared, how GPUs were matched,
// improvements as evidence).
std::vector<Finding> JudgeBenchRegression(const BenchRun& run, const BenchBaseline& baseline,
                                          double max_drop);

}  // namespace gpuvet
