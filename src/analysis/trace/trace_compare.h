// `gpuvet trace A --compare B`: two runs side by side, per step, and the kernels, copies, syncs and
// communication that account for the difference. Kernels are matched across the runs by a
// normalised name; a kernel built for another architecture (volta_sgemm_… vs ampere_sgemm_…) is
// matched by its family. The answer attributes the step-time difference so its parts sum to it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/trace/trace_options.h"
#include "core/trace/trace.h"
#include "core/trace/trace_compare.h"

namespace gpuvet {

// The name a kernel is matched by: the trace's name without a leading "void ", without its
// parameter list (the trailing "(…)" of a demangled C++ signature, or of "Memcpy HtoD (Pinned ->
// Device)"), whitespace collapsed. Template arguments stay: they tell add<float> from add<int>.
std::string NormaliseKernelName(std::string_view name);

// The family of a normalised name: every architecture token ("volta", "turing", "ampere", "ada",
// "hopper", "blackwell", "sm80", "sm_90a", "sm100") between underscores replaced by "*", so the
// same library kernel compiled for two GPUs matches. Equal to the input when it names no
// architecture.
std::string KernelFamily(std::string_view normalised);

// Compares run A (`a`: its traces) with run B. Pure: the same input gives the same comparison.
// CPU-only ranks are not compared (their count is left out of CompareRun::ranks).
TraceComparison CompareTraces(std::vector<RankTrace> a, std::vector<RankTrace> b,
                              const TraceOptions& options);

}  // namespace gpuvet
