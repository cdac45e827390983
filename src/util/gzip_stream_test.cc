// Tests of chunked file reading and gzip inflation: magic-byte detection, concatenated members,
// truncated and corrupt streams.
#include "util/gzip_stream.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "util/chunk_source.h"

namespace gpuvet {
namespace {

std::string Gzip(const std::string& data) {
  z_stream z{};
  // windowBits 15 + 16 writes a gzip wrapper (zlib manual, deflateInit2).
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Drains a source; returns the bytes and leaves its status in *status.
std::string Drain(ChunkSource* src, Status* status) {
  std::string out;
  for (std::string_view c = src->Next(); !c.empty(); c = src->Next()) out.append(c);
  *status = src->status();
  return out;
}

std::string SampleText() {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "{\"name\": \"kernel_" + std::to_string(i) + "\"},\n";
  return text;
}

// A path of this process's own: ctest runs tests as parallel processes.
std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("GPUVET_TEST_TMPDIR");
  std::string base = dir != nullptr ? dir : ::testing::TempDir();
  std::filesystem::create_directories(base);
  return base + "/" + std::to_string(::getpid()) + "-" + name;
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary);
  f << data;
}

TEST(KinetoGzipTest, InflatesInSmallChunks) {
  std::string text = SampleText();
  std::string gz = Gzip(text);
  auto src = GzipChunkSource(MemoryChunkSource(gz), "t.json.gz", 4096);
  Status st;
  EXPECT_EQ(Drain(src.get(), &st), text);
  EXPECT_TRUE(st.ok()) << st.message();
}

TEST(KinetoGzipTest, ConcatenatedMembersAndTrailingGarbage) {
  std::string gz = Gzip("hello ") + Gzip("world") + std::string("\0\0\0", 3);
  auto src = GzipChunkSource(MemoryChunkSource(gz), "t.gz");
  Status st;
  EXPECT_EQ(Drain(src.get(), &st), "hello world");
  EXPECT_TRUE(st.ok()) << st.message();
  // Issue 16: the garbage is not silently part of a "complete" input.
  EXPECT_EQ(src->notice(),
            "t.gz: ignored 3 byte(s) after the end of the gzip data at compressed "
            "byte " +
                std::to_string(gz.size() - 3) + " (not another gzip member)");
}

TEST(KinetoGzipTest, TrailingJunkAcrossChunksIsCountedWhole) {
  std::string junk(10000, 'x');
  std::string gz = Gzip(SampleText());
  std::string path = TempPath("junk.json.gz");
  WriteFile(path, gz + junk);
  auto src = OpenChunkSource(path, 4096);
  ASSERT_TRUE(src.ok());
  Status st;
  EXPECT_EQ(Drain(src->get(), &st), SampleText());
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_NE((*src)->notice().find("ignored 10000 byte(s) after the end of the gzip data at "
                                  "compressed byte " +
                                  std::to_string(gz.size())),
            std::string::npos)
      << (*src)->notice();
  std::remove(path.c_str());
}

TEST(KinetoGzipTest, CleanStreamHasNoNotice) {
  const std::string gz = Gzip("a") + Gzip("b");  // the memory source only views it
  auto src = GzipChunkSource(MemoryChunkSource(gz), "t.gz");
  Status st;
  EXPECT_EQ(Drain(src.get(), &st), "ab");
  EXPECT_EQ(src->notice(), "");
}

TEST(KinetoGzipTest, TruncatedStreamNamesCompressedOffset) {
  std::string text = SampleText();
  std::string gz = Gzip(text);
  std::string cut = gz.substr(0, gz.size() / 2);
  auto src = GzipChunkSource(MemoryChunkSource(cut), "t.gz", 4096);
  Status st;
  std::string got = Drain(src.get(), &st);
  EXPECT_EQ(st.code(), StatusCode::kInvalidInput);
  EXPECT_EQ(st.message(),
            "t.gz: gzip data ends early at compressed byte " + std::to_string(cut.size()));
  EXPECT_GT(got.size(), 0u);
  EXPECT_EQ(text.compare(0, got.size(), got), 0);  // a prefix of the original
}

TEST(KinetoGzipTest, CorruptStreamNamesCompressedOffset) {
  std::string gz = Gzip(SampleText());
  for (size_t i = gz.size() / 3; i < gz.size() / 3 + 64; ++i) gz[i] = static_cast<char>(0xff);
  auto src = GzipChunkSource(MemoryChunkSource(gz), "t.gz", 4096);
  Status st;
  Drain(src.get(), &st);
  EXPECT_EQ(st.code(), StatusCode::kInvalidInput);
  EXPECT_NE(st.message().find("t.gz: gzip data corrupt at compressed byte "), std::string::npos)
      << st.message();
}

TEST(KinetoGzipTest, BadHeaderIsCorrupt) {
  std::string bad = "\x1f\x8b\x09garbage";  // compression method 9 does not exist
  auto src = GzipChunkSource(MemoryChunkSource(bad), "t.gz");
  Status st;
  EXPECT_EQ(Drain(src.get(), &st), "");
  EXPECT_EQ(st.code(), StatusCode::kInvalidInput);
}

TEST(KinetoGzipTest, OpenDetectsGzipByMagicNotName) {
  std::string text = SampleText();
  std::string gz_named_json = TempPath("kineto_gzip_magic.json");
  std::string plain_named_gz = TempPath("kineto_plain.json.gz");
  WriteFile(gz_named_json, Gzip(text));
  WriteFile(plain_named_gz, text);
  for (const std::string& path : {gz_named_json, plain_named_gz}) {
    auto src = OpenChunkSource(path, 4096);
    ASSERT_TRUE(src.ok()) << src.status().message();
    Status st;
    EXPECT_EQ(Drain(src.value().get(), &st), text) << path;
    EXPECT_TRUE(st.ok());
  }
  std::remove(gz_named_json.c_str());
  std::remove(plain_named_gz.c_str());
}

TEST(KinetoGzipTest, OpenErrors) {
  auto missing = OpenChunkSource("/nonexistent/trace.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/trace.json"), std::string::npos);

  // A directory is refused when opened (it used to open and fail on the first read).
  auto dir = OpenChunkSource("/");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(dir.status().message().find("a directory"), std::string::npos)
      << dir.status().message();
}

}  // namespace
}  // namespace gpuvet
