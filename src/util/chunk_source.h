// ChunkSource: a file's bytes handed out one chunk at a time, so a 1 GB trace is read with a
// buffer of a megabyte (protobuf's ZeroCopyInputStream shape: the source owns the buffer and lends
// views). OpenChunkSource detects gzip by its magic bytes, not by the file name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "util/status.h"

namespace gpuvet {

// A forward-only sequence of byte chunks. Not thread-safe; one reader at a time.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;

  // Returns the next non-empty chunk, valid until the next call to Next() or the source's
  // destruction. Returns an empty view at the end of the input, which is either the clean end
  // (status() ok) or an early stop (status() says why: a read error, a gzip stream that is
  // truncated or corrupt, naming the compressed byte offset).
  virtual std::string_view Next() = 0;

  // Ok, or why the input stopped before its natural end. Meaningful after Next() returned empty.
  virtual const Status& status() const = 0;

  // A problem that did not stop the input but that the reader must pass on as a warning (gzip:
  // bytes after the last member, with their offset), "" when none. Meaningful once Next() has
  // returned empty.
  virtual std::string notice() const { return ""; }

  // True when the source checks its data (gzip: deflate codes and CRC-32), so a reader that
  // finds garbage can drain it to learn whether the data was corrupt rather than wrong.
  virtual bool VerifiesIntegrity() const { return false; }
};

// A source over memory the caller keeps alive; yields it as one chunk.
std::unique_ptr<ChunkSource> MemoryChunkSource(std::string_view data);

// Opens `path` for chunked reading, `chunk_bytes` (at least 4 KiB) at a time. A file that starts
// with the gzip magic 1f 8b is inflated transparently (concatenated members included). Errors:
// NotFound / PermissionDenied / Unavailable naming the path when it cannot be opened.
Result<std::unique_ptr<ChunkSource>> OpenChunkSource(const std::string& path,
                                                     size_t chunk_bytes = 1 << 20);

}  // namespace gpuvet
