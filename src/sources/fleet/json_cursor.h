// A validating pull reader over one JSON text, for readers that need a few fields of a large
// document: it walks the bytes once, hands out the members and elements the caller asks for and
// skips every other value at memory speed without building anything. It accepts exactly the
// RFC 8259 grammar nlohmann::json::parse accepts (strings checked for control characters, escapes
// and well-formed UTF-8; numbers by the JSON grammar, a number no double holds is an error) except
// a leading byte-order mark, which it refuses: a caller falls back to nlohmann for any text this
// reader refuses, to report the error in nlohmann's words. Never throws; after the first error
// every call returns false and failed() is true.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace gpuvet {

// A JSON number as nlohmann types it: an integer without fraction or exponent that fits int64
// (negative) or uint64 (non-negative) keeps its integer type, anything else is a double.
struct JsonNumber {
  enum class Kind { kInteger, kUnsigned, kFloat };
  Kind kind = Kind::kFloat;
  int64_t integer = 0;
  uint64_t unsigned_integer = 0;
  double value = 0;  // the number as a double, whatever its kind (nlohmann's get<double>())
};

// Whether `key` is the string literal `word`: a length check, then a compare of a length known
// when compiling, which the compiler inlines (readers test every member key against a few words).
template <size_t N>
inline bool KeyIs(std::string_view key, const char (&word)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), word, N - 1) == 0;
}

class JsonCursor {
 public:
  // What the next value is, from its first byte (kError: none can start there, or failed()).
  enum class Type { kObject, kArray, kString, kNumber, kTrue, kFalse, kNull, kError };

  // `text` must outlive the cursor.
  explicit JsonCursor(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  // The type of the next value, after whitespace; consumes nothing else.
  Type Peek() {
    if (failed_) return Type::kError;
    SkipSpace();
    return p_ == end_ ? Type::kError : TypeAt(*p_);
  }

  // Consumes '{'. Then NextMember(first, key) with `first` true initially: true with `key` set
  // (valid until the next call) and the cursor at the member's value, which the caller must
  // consume (Read*, Skip or a nested Begin*); false after the closing '}' or on error.
  bool BeginObject();
  bool NextMember(bool& first, std::string_view& key);

  // Consumes '['. Then NextElement(first): true with the cursor at the next element (which the
  // caller must consume), false after the closing ']' or on error.
  bool BeginArray();
  bool NextElement(bool& first);

  // Consumes a string value into `out` (escapes decoded; the view is valid until the next call).
  bool ReadString(std::string_view& out);
  // Consumes a number value.
  bool ReadNumber(JsonNumber& out);
  // Consumes any one value (nested containers included, iteratively: depth is not limited).
  bool Skip();
  // Skip, handing out the value's text (a cursor over it reads the same value later).
  bool SkipRaw(std::string_view& raw);
  // True when only whitespace is left (call after the top-level value).
  bool AtEnd();

  bool failed() const { return failed_; }

 private:
  // The separator before a container's next item: false at `close` (consumed) or on an error,
  // else true with the cursor past the ',' (none before the first item).
  bool NextItem(bool& first, char close);
  bool Fail() {
    failed_ = true;
    return false;
  }
  // The type a value starting with byte `c` has (kError: none starts with it).
  static Type TypeAt(char c);
  // Skips whitespace. Inline for the common cases of pretty-printed JSON (no whitespace at all,
  // or the one space after a colon); longer runs go to SkipSpaceRun.
  void SkipSpace() {
    if (p_ == end_ || static_cast<unsigned char>(*p_) > ' ') return;
    if (*p_ == ' ' && end_ - p_ >= 2 && static_cast<unsigned char>(p_[1]) > ' ') {
      ++p_;
      return;
    }
    SkipSpaceRun();
  }
  void SkipSpaceRun();
  // Consumes a string starting at '"'; decodes into scratch_ when `decode`.
  bool ScanString(bool decode, std::string_view* out);
  bool ScanNumber(JsonNumber* out);
  // Converts the number text [start, p_) (`integral`: no fraction or exponent) as nlohmann does.
  bool ScanNumberValue(const char* start, bool integral, JsonNumber* out);
  bool ScanLiteral();
  // Consumes a scalar (string, number or literal) starting at p_ (not whitespace) or fails.
  bool SkipScalarHere();

  const char* p_;
  const char* end_;
  bool failed_ = false;
  std::string scratch_;  // decoded strings and keys with escapes
  std::string stack_;    // Skip's open containers
};

}  // namespace gpuvet
