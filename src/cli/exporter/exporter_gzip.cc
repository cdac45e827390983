// Two-part gzip (see exporter_gzip.h): raw deflate streams joined at a full-flush boundary, CRCs
// joined with crc32_combine, header and trailer written by hand (RFC 1952).
#include "cli/exporter/exporter_gzip.h"

#include <zlib.h>

namespace gpuvet {

namespace {

// Raw deflate (no zlib/gzip wrapper) of `in`, ending with `flush` (Z_FULL_FLUSH or Z_FINISH).
// `window_bits` and `mem_level` size zlib's state: the defaults (15, 8) allocate about 256 KiB,
// which dominates the cost of compressing a one-kilobyte tail, so the tail uses (9, 1).
void Deflate(std::string_view in, int flush, std::string& out, int window_bits = 15,
             int mem_level = 8) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, -window_bits, mem_level, Z_DEFAULT_STRATEGY) != Z_OK) {
    return;
  }
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  const size_t start = out.size();
  out.resize(start + deflateBound(&z, static_cast<uLong>(in.size())) + 16);
  z.next_out = reinterpret_cast<Bytef*>(out.data() + start);
  z.avail_out = static_cast<uInt>(out.size() - start);
  deflate(&z, flush);  // the bound guarantees one call suffices
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
}

void PutLe32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

GzipPrefix GzipStart(std::string_view body) {
  GzipPrefix p;
  // ID1 ID2, CM=8 (deflate), FLG=0, MTIME=0, XFL=0, OS=3 (Unix).
  p.bytes.assign("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
  Deflate(body, Z_FULL_FLUSH, p.bytes);
  p.crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size())));
  p.length = body.size();
  return p;
}

std::string GzipFinish(const GzipPrefix& prefix, std::string_view tail) {
  std::string out;
  out.reserve(prefix.bytes.size() + tail.size() / 2 + 64);
  out = prefix.bytes;
  Deflate(tail, Z_FINISH, out, 9, 1);
  uint32_t tail_crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(tail.data()), static_cast<uInt>(tail.size())));
  PutLe32(out, static_cast<uint32_t>(
                   crc32_combine(prefix.crc, tail_crc, static_cast<z_off_t>(tail.size()))));
  PutLe32(out, static_cast<uint32_t>((prefix.length + tail.size()) & 0xffffffffu));
  return out;
}

}  // namespace gpuvet
