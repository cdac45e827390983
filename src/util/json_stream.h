// JsonStream: a pull tokenizer over a ChunkSource, for documents too big to hold (1 GB traces).
// The caller walks the structure it cares about and skips the rest without materialising it;
// skipping is iterative with a depth limit, so deeply nested garbage cannot overflow the stack.
// Errors are sticky (like a leveldb iterator's status): after one, every call returns false.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/chunk_source.h"
#include "util/status.h"

namespace gpuvet {

class JsonStream {
 public:
  static constexpr int kEnd = -1;  // Peek() at the end of the input
  // Nesting below which SkipValue gives up; Kineto traces nest under 10 levels.
  static constexpr size_t kMaxDepth = 512;
  // Longest string kept by ReadString; longer ones are cut (kernel names run to a few KiB).
  static constexpr size_t kMaxKeptString = 64 << 10;

  // Reads from `source`, which must outlive this object. `origin` (a file name) prefixes errors.
  JsonStream(ChunkSource* source, std::string origin);

  // The next non-whitespace byte (0-255), not consumed, or kEnd when the input is exhausted.
  int Peek() {
    // Fast paths: the next byte is there and above ' ', so it is not whitespace; or it is the
    // single space after a ',' or ':' of pretty-printed JSON.
    if (end_ - p_ >= 2) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c > ' ') return c;
      const auto d = static_cast<unsigned char>(p_[1]);
      if (c == ' ' && d > ' ') {
        ++p_;
        return d;
      }
    }
    return PeekSlow();
  }
  // Consumes the byte Peek() returned. Only valid right after Peek() returned a byte.
  void Advance() { ++p_; }

  // Reads the string value that starts at the next non-space byte into `out`, decoding escapes
  // (\uXXXX with surrogate pairs to UTF-8; a lone surrogate becomes U+FFFD). Keeps at most
  // kMaxKeptString bytes. False (and failed()) if it is not a well-formed string.
  bool ReadString(std::string* out);
  // Reads a number or a literal (true/false/null) as its text, unvalidated beyond its characters.
  // A number longer than 64 characters reads as "" (garbage to any numeric parse).
  bool ReadScalarText(std::string* out);
  // Skips one value of any type, checking its structure (brackets, commas, colons, strings).
  bool SkipValue();

  // Object iteration: call after Peek() == '{' and Advance(); then loop
  //   bool first = true; while (js.NextMember(&first, &key)) { read or skip the value }
  // NextMember consumes the key and ':' and returns true, or consumes '}' and returns false; it
  // also returns false on an error, so check failed() after the loop.
  bool NextMember(bool* first, std::string* key);
  // Array iteration, same shape: after '[' is consumed, NextElement returns true before each
  // element (the caller reads or skips it) and false after consuming ']' or on an error.
  bool NextElement(bool* first);

  // Records an error at the current offset ("ORIGIN: byte N: message"); always returns false.
  bool Fail(std::string_view message);

  bool failed() const { return failed_; }
  // True when the failure was the input ending (or the source stopping early), not bad syntax.
  bool failed_at_end() const { return failed_ && at_end_; }
  // The first error: InvalidInput "ORIGIN: byte N: message".
  const Status& status() const { return status_; }
  // The source's own status once it is exhausted (a truncated or corrupt gzip stream).
  const Status& source_status() const { return source_->status(); }
  // When the source verifies its data, reads it to the end (after a syntax error) and returns its
  // status: not ok when the garbage came from corrupt compressed data. Ok otherwise.
  const Status& DrainVerifiedSource();
  // Offset, in the (uncompressed) input, of the next unread byte.
  uint64_t offset() const { return chunk_offset_ + static_cast<uint64_t>(p_ - begin_); }
  // Bytes received from the source so far.
  uint64_t bytes_received() const { return chunk_offset_ + static_cast<uint64_t>(end_ - begin_); }

 private:
  int PeekSlow();
  bool Refill();
  int GetByte();  // next raw byte, consumed, or kEnd
  bool ReadEscape(std::string* out);
  bool ReadHex4(uint32_t* value);
  bool SkipString();
  bool SkipScalar();
  bool ScanNumber(std::string* out);
  bool MatchLiteral(std::string_view word, std::string* out);
  bool ExpectKey();

  ChunkSource* source_;
  std::string origin_;
  const char* begin_ = nullptr;  // current chunk
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  uint64_t chunk_offset_ = 0;  // input offset of begin_
  bool exhausted_ = false;
  bool failed_ = false;
  bool at_end_ = false;
  Status status_;
  std::vector<uint8_t> stack_;  // SkipValue's open containers: 1 object, 0 array
};

}  // namespace gpuvet
