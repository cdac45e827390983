// Two-part gzip: the joined member inflates (zlib, gzip mode) to body + tail, whatever the sizes.
#include "cli/exporter/exporter_gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace gpuvet {
namespace {

// Inflates a gzip member; "" with a failure when it is not exactly one valid member.
std::string Gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - z.avail_out);
  }
  EXPECT_EQ(rc, Z_STREAM_END) << "crc or length mismatch, or truncated";
  EXPECT_EQ(z.avail_in, 0u) << "bytes after the member";
  inflateEnd(&z);
  return out;
}

TEST(ExporterGzip, JoinsACachedBodyAndAPerScrapeTail) {
  std::string body;
  for (int i = 0; i < 2000; ++i) {
    body += "gpuvet_gpu_power_watts{gpu=\"" + std::to_string(i % 8) + "\"} " +
            std::to_string(i * 1.5) + "\n";
  }
  GzipPrefix prefix = GzipStart(body);
  EXPECT_LT(prefix.bytes.size(), body.size() / 4);
  for (const std::string& tail : {std::string(), std::string("gpuvet_exporter_scrapes_total 1\n"),
                                  std::string(100000, 'x') + "\n"}) {
    EXPECT_EQ(Gunzip(GzipFinish(prefix, tail)), body + tail);
  }
}

TEST(ExporterGzip, EmptyBody) {
  EXPECT_EQ(Gunzip(GzipFinish(GzipStart(""), "a 1\n")), "a 1\n");
  EXPECT_EQ(Gunzip(GzipFinish(GzipStart(""), "")), "");
}

}  // namespace
}  // namespace gpuvet
