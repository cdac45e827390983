// Terminal rendering of `gpuvet trace A --compare B`: the answer first, then per step the split of
// both runs side by side (computation, non-computation, idle and its causes), kernel categories,
// communication, copies and syncs, the kernels that changed most, those found in one run only,
// and the likely causes outside the kernels.
#pragma once

#include <string>

#include "core/trace/trace_compare.h"

namespace gpuvet {

// `color`: ANSI colours (callers decide: TTY and NO_COLOR).
std::string RenderTraceCompareText(const TraceComparison& c, bool color);

}  // namespace gpuvet
