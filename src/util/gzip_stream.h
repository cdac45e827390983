// Streaming gzip inflation as a ChunkSource (zlib). Truncated or corrupt streams end the output
// early with a status naming the compressed offset, so a reader can keep what came before.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "util/chunk_source.h"

namespace gpuvet {

// Inflates the gzip data yielded by `compressed` (one or more concatenated gzip members; bytes
// after the last member that do not start a new member are ignored, as gzip(1) does, and
// notice() then says "ORIGIN: ignored N byte(s) after the end of the gzip data at compressed byte
// M (not another gzip member)" so the reader can warn that the file is not what it seems). Output
// chunks are at most `chunk_bytes`. `origin` names the input in status messages. When the
// compressed data ends inside a member, or is corrupt, Next() returns an empty view and status()
// is InvalidInput "ORIGIN: gzip data ends early at compressed byte N" or "ORIGIN: gzip data
// corrupt at compressed byte N (zlib message)"; an error of `compressed` itself is passed on.
std::unique_ptr<ChunkSource> GzipChunkSource(std::unique_ptr<ChunkSource> compressed,
                                             std::string origin, size_t chunk_bytes = 1 << 20);

}  // namespace gpuvet
