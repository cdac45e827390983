// Gzip for scrapes without compressing the whole exposition per scrape: the cached body is
// deflated once per collection and ended with a full flush (byte-aligned, no back-references
// past it), so each scrape only deflates its few self-metric lines and appends them and the
// gzip trailer. The result is one ordinary gzip member, readable by every client.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpuvet {

// A gzip header and the deflate blocks of a body, not yet finished.
struct GzipPrefix {
  std::string bytes;
  uint32_t crc = 0;     // CRC-32 of the uncompressed body
  uint64_t length = 0;  // uncompressed length
};

// Compresses `body` (zlib level 6) into an unfinished gzip member.
GzipPrefix GzipStart(std::string_view body);

// prefix + the deflate of `tail` (final block) + the gzip trailer for body + tail.
std::string GzipFinish(const GzipPrefix& prefix, std::string_view tail);

}  // namespace gpuvet
