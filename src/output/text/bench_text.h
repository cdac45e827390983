// Terminal rendering of a `gpuvet bench` report: a header naming the driver and mode, one table
// per GPU (figure, measured, expected, ratio), the multi-GPU figures, then the findings in the
// grouped layout of `gpuvet check` and the verdict line.
#pragma once

#include <string>

#include "core/bench.h"
#include "output/text/text_renderer.h"

namespace gpuvet {

std::string RenderBenchText(const BenchReport& report, const TextOptions& options);

// The final line alone, e.g. "verdict: UNHEALTHY (1 fail, 20 ok)".
std::string BenchVerdictLine(const BenchReport& report);

}  // namespace gpuvet
