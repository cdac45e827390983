// Finds and reads the traces behind a `gpuvet trace` argument: one file, or a directory of
// per-rank files. The format is recognised from the content (gzip magic, '{'/'[' JSON, the SQLite
// header), never from the file name alone.
#pragma once

#include <string>
#include <vector>

#include "core/trace/trace.h"
#include "util/status.h"

namespace gpuvet {

enum class TraceFormat { kUnknown, kKinetoJson, kNsysSqlite };

// Sniffs the first bytes of `path`. kUnknown for anything else (including unreadable files).
TraceFormat SniffTraceFormat(const std::string& path);

struct TraceInput {
  // One per readable file (one per process/device of a multi-process nsys export), sorted by
  // rank then file name.
  std::vector<RankTrace> ranks;
  std::vector<std::string> problems;  // files that could not be read at all, with the reason
};

// Reads `path`. A single file that cannot be read is an error (InvalidInput/NotFound naming it);
// in a directory, unreadable trace files are listed in `problems` and the rest are read, and a
// directory with no trace file at all is an error.
Result<TraceInput> ReadTraceInput(const std::string& path);

}  // namespace gpuvet
