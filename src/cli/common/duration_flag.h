// Duration flags of `record` and `watch` ("500ms", "1s", "1.5", "10m", "2h").
#pragma once

#include <string>

#include "util/status.h"

namespace gpuvet {

// Seconds in `text`: a number with an optional unit ms, s, m or h (no unit: seconds).
// InvalidInput naming `flag` for anything else, zero or a negative value.
Result<double> ParseDurationFlag(const std::string& flag, const std::string& text);

}  // namespace gpuvet
