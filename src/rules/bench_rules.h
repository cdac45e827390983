// Judgement of a `gpuvet bench` run: each figure against its expectation (policy minimum, the
// built-in model table, or theory), correlated with the link and NUMA placement it ran on, and
// against an earlier run when a baseline is given. Pure: measurements + policy in, findings out.
#pragma once

#include <string>
#include <vector>

#include "core/bench.h"
#include "core/finding.h"
#include "core/policy.h"

namespace gpuvet {

struct BenchJudgement {
  std::vector<BenchExpectation> expectations;  // one per judged figure, in judgement order
  std::vector<Finding> findings;               // bench.* findings, skips and overrides applied
};

// Judges `run` under `policy`. `baseline` (an earlier run, or nullptr) enables bench.regression:
// figures matched by PCI bus id when both runs have it, else by ordinal; drops, figures lost since
// and a mode mismatch warn. Emits ok findings for what passed, info for what is unavailable here,
// fail for what the GPU or driver failed (and bench.gpu_error for a GPU that stopped working),
// unknown for what could not run for a local reason, and applies the policy's skip list and
// severity overrides like the check rules do. A timed-out run is judged on what it measured.
BenchJudgement JudgeBench(const BenchRun& run, const Policy& policy, const BenchBaseline* baseline);

// "H2D pinned", "FP32 FMA", … for a measurement id (the id itself when unknown).
std::string BenchLabel(const std::string& id);

}  // namespace gpuvet
