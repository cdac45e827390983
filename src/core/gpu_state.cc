// Small helpers over GPU measurements.
#include "core/gpu_state.h"

#include <fmt/format.h>

namespace gpuvet {

std::string FormatCudaVersion(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

}  // namespace gpuvet
