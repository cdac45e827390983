// The tokenizer loops run over the current chunk with plain pointers and fall back to Refill()
// only at a chunk's end, so a token may span chunks without ever being copied whole.
#include "util/json_stream.h"

#include <array>
#include <cstring>

namespace gpuvet {
namespace {

// Byte classes (RFC 8259): whitespace is space, tab, LF, CR; inside a string every byte but '"',
// '\\' and the control characters U+0000..U+001F stands for itself; number characters are those
// of the number grammar.
struct ByteTables {
  std::array<bool, 256> space{};
  std::array<bool, 256> plain{};
  std::array<bool, 256> number{};
  constexpr ByteTables() {
    space[' '] = space['\t'] = space['\n'] = space['\r'] = true;
    for (int c = 0x20; c < 256; ++c) plain[c] = c != '"' && c != '\\';
    for (char c : std::string_view("0123456789+-.eE")) number[static_cast<uint8_t>(c)] = true;
  }
};
constexpr ByteTables kTables;

// The end of the run of plain string bytes starting at `p` (the first '"', '\\' or control
// character, or `end`). Eight bytes at a time while none of them can be special (the SWAR
// "has a byte less than n" / "has a zero byte" tests, which never miss one; a false alarm only
// hands the word to the byte loop), since kernel names and shapes make strings most of a trace.
const char* ScanPlain(const char* p, const char* end) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, sizeof w);
    const uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
    const uint64_t special =
        ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash);
    if (special & kHigh) break;
    p += 8;
  }
  while (p < end && kTables.plain[static_cast<uint8_t>(*p)]) ++p;
  return p;
}

// Longest number text ReadScalarText keeps; int64 needs 20 characters, an exact decimal time a
// few more.
constexpr size_t kMaxNumberText = 64;

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

constexpr uint32_t kReplacement = 0xFFFD;  // U+FFFD REPLACEMENT CHARACTER
bool IsHighSurrogate(uint32_t cp) { return cp >= 0xD800 && cp <= 0xDBFF; }
bool IsLowSurrogate(uint32_t cp) { return cp >= 0xDC00 && cp <= 0xDFFF; }

}  // namespace

JsonStream::JsonStream(ChunkSource* source, std::string origin)
    : source_(source), origin_(std::move(origin)) {}

bool JsonStream::Refill() {
  if (exhausted_) return false;
  chunk_offset_ += static_cast<uint64_t>(end_ - begin_);
  std::string_view chunk = source_->Next();
  if (chunk.empty()) {
    exhausted_ = true;
    begin_ = p_ = end_ = nullptr;
    return false;
  }
  begin_ = p_ = chunk.data();
  end_ = begin_ + chunk.size();
  return true;
}

const Status& JsonStream::DrainVerifiedSource() {
  static const Status kOk;
  if (!source_->VerifiesIntegrity()) return kOk;
  while (!exhausted_) {
    if (source_->Next().empty()) exhausted_ = true;
  }
  return source_->status();
}

int JsonStream::PeekSlow() {
  constexpr uint64_t kEightSpaces = 0x2020202020202020ULL;
  while (true) {
    // Pretty-printed traces indent every line: skip whole words of spaces first.
    while (end_ - p_ >= 8) {
      uint64_t w;
      std::memcpy(&w, p_, sizeof w);
      if (w != kEightSpaces) break;
      p_ += 8;
    }
    while (p_ < end_ && kTables.space[static_cast<uint8_t>(*p_)]) ++p_;
    if (p_ < end_) return static_cast<uint8_t>(*p_);
    if (!Refill()) return kEnd;
  }
}

int JsonStream::GetByte() {
  if (p_ == end_ && !Refill()) return kEnd;
  return static_cast<uint8_t>(*p_++);
}

bool JsonStream::Fail(std::string_view message) {
  if (failed_) return false;
  failed_ = true;
  at_end_ = p_ == end_ && exhausted_;
  std::string msg = origin_ + ": byte " + std::to_string(offset()) + ": ";
  if (at_end_) {
    msg += "input ends early";
    if (!source_->status().ok()) msg += " (" + source_->status().message() + ")";
  } else {
    msg += message;
  }
  status_ = InvalidInput(std::move(msg));
  return false;
}

bool JsonStream::ReadString(std::string* out) {
  out->clear();
  if (failed_) return false;
  if (Peek() != '"') return Fail("expected a string");
  ++p_;
  while (true) {
    const char* run = p_;
    p_ = ScanPlain(p_, end_);
    if (p_ > run && out->size() < kMaxKeptString) {
      out->append(run, std::min<size_t>(p_ - run, kMaxKeptString - out->size()));
    }
    if (p_ == end_) {
      if (!Refill()) return Fail("unterminated string");
      continue;
    }
    char c = *p_++;
    if (c == '"') return true;
    if (c != '\\') {
      --p_;
      return Fail("control character inside a string");
    }
    if (!ReadEscape(out)) return false;
  }
}

bool JsonStream::ReadHex4(uint32_t* value) {
  *value = 0;
  for (int i = 0; i < 4; ++i) {
    int c = GetByte();
    uint32_t digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      if (c != kEnd) --p_;
      return Fail("bad \\u escape: expected 4 hex digits");
    }
    *value = *value << 4 | digit;
  }
  return true;
}

// Called after a backslash. A high surrogate must be followed by "\u" and a low surrogate;
// anything else leaves U+FFFD in its place and is then read on its own.
bool JsonStream::ReadEscape(std::string* out) {
  std::string scratch;
  std::string* dst = out->size() < kMaxKeptString ? out : &scratch;
  int c = GetByte();
  while (true) {
    uint32_t cp;
    switch (c) {
      case '"':
        dst->push_back('"');
        return true;
      case '\\':
        dst->push_back('\\');
        return true;
      case '/':
        dst->push_back('/');
        return true;
      case 'b':
        dst->push_back('\b');
        return true;
      case 'f':
        dst->push_back('\f');
        return true;
      case 'n':
        dst->push_back('\n');
        return true;
      case 'r':
        dst->push_back('\r');
        return true;
      case 't':
        dst->push_back('\t');
        return true;
      case 'u':
        break;
      case kEnd:
        return Fail("unterminated string");
      default:
        --p_;
        return Fail("bad escape in a string");
    }
    if (!ReadHex4(&cp)) return false;
    if (!IsHighSurrogate(cp)) {
      AppendUtf8(IsLowSurrogate(cp) ? kReplacement : cp, dst);
      return true;
    }
    // A high surrogate: look for "\u" + low surrogate.
    int next = GetByte();
    if (next != '\\') {
      AppendUtf8(kReplacement, dst);
      if (next != kEnd) --p_;  // the byte is read again by the string loop
      return true;
    }
    c = GetByte();
    if (c != 'u') {
      AppendUtf8(kReplacement, dst);
      continue;  // an ordinary escape follows the lone surrogate
    }
    uint32_t low;
    if (!ReadHex4(&low)) return false;
    if (IsLowSurrogate(low)) {
      AppendUtf8(0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00), dst);
    } else {
      AppendUtf8(kReplacement, dst);
      AppendUtf8(IsHighSurrogate(low) ? kReplacement : low, dst);
    }
    return true;
  }
}

bool JsonStream::SkipString() {
  ++p_;  // the opening quote, already peeked
  while (true) {
    p_ = ScanPlain(p_, end_);
    if (p_ == end_) {
      if (!Refill()) return Fail("unterminated string");
      continue;
    }
    char c = *p_++;
    if (c == '"') return true;
    if (c != '\\') {
      --p_;
      return Fail("control character inside a string");
    }
    int e = GetByte();  // \uXXXX: the hex digits are plain bytes and skip as such
    if (e == kEnd) return Fail("unterminated string");
  }
}

bool JsonStream::ScanNumber(std::string* out) {
  if (out != nullptr) out->clear();
  bool too_long = false;
  while (true) {
    const char* run = p_;
    while (p_ < end_ && kTables.number[static_cast<uint8_t>(*p_)]) ++p_;
    if (out != nullptr && !too_long) {
      if (out->size() + (p_ - run) > kMaxNumberText) {
        too_long = true;
      } else {
        out->append(run, p_ - run);
      }
    }
    if (p_ < end_ || !Refill()) break;
  }
  if (too_long) out->clear();
  return true;
}

bool JsonStream::MatchLiteral(std::string_view word, std::string* out) {
  for (char w : word) {
    int c = GetByte();
    if (c != static_cast<uint8_t>(w)) {
      if (c != kEnd) --p_;
      return Fail("expected a value");
    }
  }
  if (out != nullptr) out->assign(word);
  return true;
}

bool JsonStream::SkipScalar() {
  int c = Peek();
  if (c == '-' || (c >= '0' && c <= '9')) return ScanNumber(nullptr);
  if (c == 't') return MatchLiteral("true", nullptr);
  if (c == 'f') return MatchLiteral("false", nullptr);
  if (c == 'n') return MatchLiteral("null", nullptr);
  return Fail("expected a value");
}

bool JsonStream::ReadScalarText(std::string* out) {
  out->clear();
  if (failed_) return false;
  int c = Peek();
  if (c == '-' || (c >= '0' && c <= '9')) return ScanNumber(out);
  if (c == 't') return MatchLiteral("true", out);
  if (c == 'f') return MatchLiteral("false", out);
  if (c == 'n') return MatchLiteral("null", out);
  return Fail("expected a number or a literal");
}

bool JsonStream::ExpectKey() {
  if (Peek() != '"') return Fail("expected a string key");
  if (!SkipString()) return false;
  if (Peek() != ':') return Fail("expected ':' after an object key");
  ++p_;
  return true;
}

bool JsonStream::SkipValue() {
  if (failed_) return false;
  stack_.clear();
  int c = Peek();
  while (true) {
    // Here a value starts at `c`.
    if (c == '{' || c == '[') {
      if (stack_.size() >= kMaxDepth) {
        return Fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
      }
      bool object = c == '{';
      ++p_;
      stack_.push_back(object ? 1 : 0);
      c = Peek();
      if (c == (object ? '}' : ']')) {
        ++p_;
        stack_.pop_back();
      } else {
        if (object && !ExpectKey()) return false;
        c = Peek();
        continue;
      }
    } else if (c == '"') {
      if (!SkipString()) return false;
    } else if (!SkipScalar()) {
      return false;
    }
    // A value ended: close containers until one continues with ','.
    while (true) {
      if (stack_.empty()) return true;
      bool object = stack_.back() == 1;
      c = Peek();
      if (c == ',') {
        ++p_;
        if (object && !ExpectKey()) return false;
        c = Peek();
        break;
      }
      if (c != (object ? '}' : ']')) {
        return Fail(object ? "expected ',' or '}' after an object member"
                           : "expected ',' or ']' after an array element");
      }
      ++p_;
      stack_.pop_back();
    }
  }
}

bool JsonStream::NextMember(bool* first, std::string* key) {
  if (failed_) return false;
  int c = Peek();
  if (*first) {
    *first = false;
    if (c == '}') {
      ++p_;
      return false;
    }
  } else if (c == ',') {
    ++p_;
  } else if (c == '}') {
    ++p_;
    return false;
  } else {
    return Fail("expected ',' or '}' after an object member");
  }
  if (Peek() != '"') return Fail("expected a string key");
  if (!ReadString(key)) return false;
  if (Peek() != ':') return Fail("expected ':' after an object key");
  ++p_;
  return true;
}

bool JsonStream::NextElement(bool* first) {
  if (failed_) return false;
  int c = Peek();
  if (*first) {
    *first = false;
    if (c == ']') {
      ++p_;
      return false;
    }
    return true;
  }
  if (c == ',') {
    ++p_;
    return true;
  }
  if (c == ']') {
    ++p_;
    return false;
  }
  return Fail("expected ',' or ']' after an array element");
}

}  // namespace gpuvet
