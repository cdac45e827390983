// Memory and plain-file chunk sources, and the opener that picks plain or gzip by magic bytes.
#include "util/chunk_source.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "util/file.h"
#include "util/gzip_stream.h"

namespace gpuvet {
namespace {

// Below this a chunk costs more in read() calls than it saves in memory.
constexpr size_t kMinChunkBytes = 4096;

class MemorySource : public ChunkSource {
 public:
  explicit MemorySource(std::string_view data) : data_(data) {}

  std::string_view Next() override {
    std::string_view out = data_;
    data_ = {};
    return out;
  }
  const Status& status() const override { return status_; }

 private:
  std::string_view data_;
  Status status_;
};

// Owns the file descriptor; reads with read(2), retrying EINTR.
class FileSource : public ChunkSource {
 public:
  FileSource(int fd, std::string path, size_t chunk_bytes)
      : fd_(fd), path_(std::move(path)), buf_(chunk_bytes) {}
  ~FileSource() override { close(fd_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  std::string_view Next() override {
    if (done_) return {};
    while (true) {
      ssize_t n = read(fd_, buf_.data(), buf_.size());
      if (n > 0) return {buf_.data(), static_cast<size_t>(n)};
      if (n < 0 && errno == EINTR) continue;
      done_ = true;
      if (n < 0) status_ = Unavailable(path_ + ": read failed: " + std::strerror(errno));
      return {};
    }
  }
  const Status& status() const override { return status_; }

 private:
  int fd_;
  std::string path_;
  std::vector<char> buf_;
  bool done_ = false;
  Status status_;
};

}  // namespace

std::unique_ptr<ChunkSource> MemoryChunkSource(std::string_view data) {
  return std::make_unique<MemorySource>(data);
}

Result<std::unique_ptr<ChunkSource>> OpenChunkSource(const std::string& path, size_t chunk_bytes) {
  chunk_bytes = std::max(chunk_bytes, kMinChunkBytes);
  // A FIFO, device or directory is refused here (OpenForReading), before any read could block.
  Result<int> opened = OpenForReading(path);
  if (!opened.ok()) return opened.status();
  const int fd = *opened;
  // RFC 1952 section 2.3.1: every gzip member starts with ID1 = 0x1f, ID2 = 0x8b.
  unsigned char magic[2] = {0, 0};
  ssize_t got;
  do {
    got = pread(fd, magic, sizeof(magic), 0);
  } while (got < 0 && errno == EINTR);
  if (got < 0) {
    int err = errno;
    close(fd);
    return Unavailable(path + ": read failed: " + std::strerror(err));
  }
  auto file = std::make_unique<FileSource>(fd, path, chunk_bytes);
  if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    return GzipChunkSource(std::move(file), path, chunk_bytes);
  }
  return std::unique_ptr<ChunkSource>(std::move(file));
}

}  // namespace gpuvet
