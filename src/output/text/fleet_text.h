// Terminal rendering of a fleet audit: a ranked table (worst first), each non-ok node's findings
// with evidence, the quarantine list with reasons, skipped inputs, and a verdict line.
#pragma once

#include <string>

#include "core/fleet.h"

namespace gpuvet {

// `verbose` adds each finding's meaning and decision.
std::string RenderFleetText(const FleetReport& report, bool verbose);

}  // namespace gpuvet
