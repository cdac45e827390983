// JSON rendering of a fleet audit (schema gpuvet.fleet/v1, docs/json-schema.md): ranked nodes
// with their findings, the quarantine list, skipped inputs and a verdict.
#pragma once

#include <string>

#include "core/fleet.h"

namespace gpuvet {

// Pretty-printed, sorted keys, trailing newline. `exit_code` is what the command returns. Written
// straight into the text (no document is built: at 10,000 nodes one cost more time and memory than
// the audit); byte for byte what RenderFleetJsonWithDom writes.
std::string RenderFleetJson(const FleetReport& report, int exit_code);

// The same document built as an nlohmann DOM and dumped with indent 2 (invalid UTF-8 replaced):
// the reference RenderFleetJson is tested and fuzzed against.
std::string RenderFleetJsonWithDom(const FleetReport& report, int exit_code);

}  // namespace gpuvet
