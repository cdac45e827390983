// JSON rendering of a fleet audit (schema gpuvet.fleet/v1, docs/json-schema.md): ranked nodes
// with their findings, the quarantine list, skipped inputs and a verdict.
#pragma once

#include <string>

#include "core/fleet.h"

namespace gpuvet {

// Pretty-printed, sorted keys, trailing newline. `exit_code` is what the command returns.
std::string RenderFleetJson(const FleetReport& report, int exit_code);

}  // namespace gpuvet
