// The offline GPU source: reads a saved `nvidia-smi -q -x` capture (DTD v10 to v13) into the same
// GpuInventory the NVML source fills, so `gpuvet check --nvidia-smi-xml FILE` runs the GPU rules on
// a capture a support engineer received. Element names differ between driver versions; the parser
// accepts every spelling seen in real captures and reports "N/A" as not supported, never as zero.
#pragma once

#include <string>
#include <string_view>

#include "core/gpu_state.h"
#include "util/status.h"

namespace gpuvet {

// Parses the text of an `nvidia-smi -q -x` capture. `origin` names where the text came from (a
// file path) and appears in the inventory's origin ("nvidia-smi-xml (ORIGIN)") and in every error.
// Returns InvalidInput naming origin, byte offset, line and pugixml's description when the text is
// not well-formed XML, or when the root element is not <nvidia_smi_log>. A capture with no <gpu>
// elements is valid (no GPUs). A field that cannot be parsed becomes a Reading error naming the
// element path and the offending text; "N/A" / "Not Supported" become Reading::Unsupported; a
// missing element becomes Reading::Unsupported("not in capture"). Thread-safe (no shared state).
Result<GpuInventory> ParseNvidiaSmiXml(std::string_view xml, std::string_view origin);

// Reads `path` (at most 64 MiB) and parses it with ParseNvidiaSmiXml. Returns the ReadFile status
// (NotFound, PermissionDenied, Unavailable) when the file cannot be read.
Result<GpuInventory> LoadNvidiaSmiXml(const std::string& path);

}  // namespace gpuvet
