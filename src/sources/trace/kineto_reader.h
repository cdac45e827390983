// Reads a Kineto / PyTorch-profiler Chrome-trace JSON file (plain or gzip) into a RankTrace,
// streaming: events are handled one at a time and only the fields the analyses use are kept, so
// memory follows the number of GPU ops and runtime calls, not the size of the JSON.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/trace/trace.h"
#include "util/chunk_source.h"
#include "util/status.h"

namespace gpuvet {

struct KinetoOptions {
  size_t chunk_bytes = 1 << 20;  // read (and inflate) granularity; the main buffer size
};

// Reads the trace at `path` (gzip detected by magic bytes). Errors: NotFound / PermissionDenied /
// Unavailable when the file cannot be read; InvalidInput "PATH: byte N: ..." when it is not a
// Kineto trace (not JSON, wrong top-level type, no traceEvents, a syntax error) or ends before
// its events. A file that ends early (or whose gzip data is truncated or corrupt) inside or after
// traceEvents gives the events read so far with `truncated` set and a warning saying where.
Result<RankTrace> ReadKinetoTrace(const std::string& path, const KinetoOptions& opts = {});

// The same on an uncompressed in-memory document; `origin` names it in messages and `source`.
Result<RankTrace> ParseKinetoTrace(std::string_view json, std::string_view origin);

// The same over any chunk source (used by the two above and by tests).
Result<RankTrace> ParseKinetoStream(ChunkSource* source, std::string_view origin);

}  // namespace gpuvet
