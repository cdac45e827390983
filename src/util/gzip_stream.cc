// zlib inflate behind the ChunkSource interface: one output buffer, refilled per Next() call.
#include "util/gzip_stream.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpuvet {
namespace {

class GzipSource : public ChunkSource {
 public:
  GzipSource(std::unique_ptr<ChunkSource> in, std::string origin, size_t chunk_bytes)
      : in_(std::move(in)), origin_(std::move(origin)), out_(std::max<size_t>(chunk_bytes, 4096)) {
    // windowBits 15 + 16: a gzip wrapper (not zlib, not raw deflate), zlib manual, inflateInit2.
    if (inflateInit2(&z_, 15 + 16) != Z_OK) {
      Stop(Internal(origin_ + ": zlib inflateInit2 failed"));
    } else {
      initialised_ = true;
    }
  }
  ~GzipSource() override {
    if (initialised_) inflateEnd(&z_);
  }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  std::string_view Next() override {
    while (!done_) {
      if (z_.avail_in == 0 && !FillInput()) return {};
      z_.next_out = reinterpret_cast<Bytef*>(out_.data());
      z_.avail_out = static_cast<uInt>(out_.size());
      uInt before_in = z_.avail_in;
      int rc = inflate(&z_, Z_NO_FLUSH);
      consumed_ += before_in - z_.avail_in;
      size_t produced = out_.size() - z_.avail_out;
      if (rc == Z_STREAM_END) {
        in_member_ = false;
        AfterMember();
      } else if (rc == Z_BUF_ERROR && produced == 0 && z_.avail_in > 0) {
        // No progress with input and output space left: cannot happen with sound data; stop
        // rather than spin.
        Stop(InvalidInput(origin_ + ": gzip data corrupt at compressed byte " +
                          std::to_string(consumed_) + " (inflate made no progress)"));
      } else if (rc == Z_OK || rc == Z_BUF_ERROR) {
        in_member_ = true;
      } else {
        // Z_DATA_ERROR (bad deflate data or check value), Z_MEM_ERROR, Z_NEED_DICT.
        std::string why = z_.msg != nullptr ? z_.msg : ("zlib error " + std::to_string(rc));
        Stop(InvalidInput(origin_ + ": gzip data corrupt at compressed byte " +
                          std::to_string(consumed_) + " (" + why + ")"));
      }
      if (produced > 0) return {out_.data(), produced};
    }
    return {};
  }

  const Status& status() const override { return status_; }
  bool VerifiesIntegrity() const override { return true; }
  std::string notice() const override { return notice_; }

 private:
  // Pulls the next compressed chunk; at its end decides between a clean end and a truncation.
  bool FillInput() {
    std::string_view chunk = in_->Next();
    if (!chunk.empty()) {
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(chunk.data()));
      z_.avail_in = static_cast<uInt>(chunk.size());
      return true;
    }
    if (!in_->status().ok()) {
      Stop(in_->status());
    } else if (in_member_ || consumed_ == 0) {
      Stop(InvalidInput(origin_ + ": gzip data ends early at compressed byte " +
                        std::to_string(consumed_)));
    } else {
      Stop(Status::Ok());
    }
    return false;
  }

  // After a member's end: another member may follow (RFC 1952 section 2.2); anything else is
  // trailing garbage that gzip(1) also ignores.
  void AfterMember() {
    if (z_.avail_in == 0) {
      std::string_view chunk = in_->Next();
      if (chunk.empty()) {
        Stop(in_->status());
        return;
      }
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(chunk.data()));
      z_.avail_in = static_cast<uInt>(chunk.size());
    }
    // RFC 1952: a member starts with ID1 0x1f, ID2 0x8b (only the first byte is checked when
    // the chunk ends after it).
    if (z_.next_in[0] != 0x1f || (z_.avail_in > 1 && z_.next_in[1] != 0x8b)) {
      NoteTrailingBytes();
      Stop(Status::Ok());
      return;
    }
    inflateReset(&z_);
  }

  // Counts the bytes after the last member (draining the input) for notice().
  void NoteTrailingBytes() {
    uint64_t trailing = z_.avail_in;
    z_.avail_in = 0;
    for (std::string_view chunk = in_->Next(); !chunk.empty(); chunk = in_->Next()) {
      trailing += chunk.size();
    }
    notice_ = origin_ + ": ignored " + std::to_string(trailing) +
              " byte(s) after the end of the gzip data at compressed byte " +
              std::to_string(consumed_) + " (not another gzip member)";
  }

  void Stop(Status s) {
    done_ = true;
    status_ = std::move(s);
  }

  std::unique_ptr<ChunkSource> in_;
  std::string origin_;
  std::vector<char> out_;
  z_stream z_{};
  bool initialised_ = false;
  bool done_ = false;
  bool in_member_ = false;  // inside a gzip member: its end has not been seen
  uint64_t consumed_ = 0;   // compressed bytes consumed so far
  Status status_;
  std::string notice_;
};

}  // namespace

std::unique_ptr<ChunkSource> GzipChunkSource(std::unique_ptr<ChunkSource> compressed,
                                             std::string origin, size_t chunk_bytes) {
  return std::make_unique<GzipSource>(std::move(compressed), std::move(origin), chunk_bytes);
}

}  // namespace gpuvet
