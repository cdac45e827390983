// The validating pull reader (see json_cursor.h). Strings are scanned eight bytes at a time for
// the bytes that need attention (quote, backslash, control characters, non-ASCII); everything
// else is the RFC 8259 grammar written out, with the checks nlohmann's lexer makes.
#include "sources/fleet/json_cursor.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpuvet {

namespace {

#if !defined(__SSE2__)
// The eight-bytes-at-a-time fallback of PlainStringBytes (not built where SSE2 is).
constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighs = 0x8080808080808080ULL;

constexpr uint64_t HasZeroByte(uint64_t v) { return (v - kOnes) & ~v & kHighs; }

// Whether any of the eight bytes is '"', '\\', below 0x20 or at/above 0x80.
constexpr bool NeedsAttention(uint64_t x) {
  return ((x - 0x20 * kOnes) | x | HasZeroByte(x ^ ('"' * kOnes)) |
          HasZeroByte(x ^ ('\\' * kOnes))) &
         kHighs;
}
#endif

// How many bytes from `p` (with at least 16 before `end`, else 0) need no attention inside a
// string: not '"', '\\', a control character or non-ASCII.
inline size_t PlainStringBytes(const char* p, const char* end) {
  size_t n = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  while (end - p - static_cast<std::ptrdiff_t>(n) >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + n));
    // Signed: non-ASCII bytes are negative, so below 0x20 as well.
    const __m128i hit =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                     _mm_cmplt_epi8(x, space));
    const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (mask != 0) return n + static_cast<size_t>(std::countr_zero(mask));
    n += 16;
  }
#else
  while (end - p - static_cast<std::ptrdiff_t>(n) >= 8) {
    uint64_t x;
    std::memcpy(&x, p + n, 8);
    if (NeedsAttention(x)) break;
    n += 8;
  }
#endif
  return n;
}

// How many whitespace bytes start at `p` (16 at a time where SSE2 is there).
inline size_t SpaceBytes(const char* p, const char* end) {
  size_t n = 0;
#if defined(__SSE2__)
  while (end - p - static_cast<std::ptrdiff_t>(n) >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + n));
    const __m128i ws = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))),
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')),
                     _mm_cmpeq_epi8(x, _mm_set1_epi8('\t'))));
    const unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(ws)) & 0xFFFFu;
    if (other != 0) return n + static_cast<size_t>(std::countr_zero(other));
    n += 16;
  }
#endif
  while (p + n < end && (p[n] == ' ' || p[n] == '\n' || p[n] == '\r' || p[n] == '\t')) ++n;
  return n;
}

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The length of the well-formed UTF-8 sequence at `p` (RFC 3629, the table nlohmann's lexer
// checks: no overlong forms, no surrogates, nothing above U+10FFFF), 0 when it is not one.
size_t Utf8Length(const unsigned char* p, const unsigned char* end) {
  auto in = [&](size_t i, unsigned lo, unsigned hi) {
    return p + i < end && p[i] >= lo && p[i] <= hi;
  };
  const unsigned c = p[0];
  if (c >= 0xC2 && c <= 0xDF) return in(1, 0x80, 0xBF) ? 2 : 0;
  if (c == 0xE0) return in(1, 0xA0, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
    return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (c == 0xED) return in(1, 0x80, 0x9F) && in(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xF0) return in(1, 0x90, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) {
    return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  }
  if (c == 0xF4) return in(1, 0x80, 0x8F) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  return 0;
}

}  // namespace

void JsonCursor::SkipSpaceRun() {
  if (IsSpace(*p_)) p_ += SpaceBytes(p_, end_);
}

JsonCursor::Type JsonCursor::TypeAt(char c) {
  switch (c) {
    case '{':
      return Type::kObject;
    case '[':
      return Type::kArray;
    case '"':
      return Type::kString;
    case 't':
      return Type::kTrue;
    case 'f':
      return Type::kFalse;
    case 'n':
      return Type::kNull;
    default:
      return c == '-' || IsDigit(c) ? Type::kNumber : Type::kError;
  }
}

bool JsonCursor::BeginObject() {
  if (Peek() != Type::kObject) return Fail();
  ++p_;
  return true;
}

bool JsonCursor::NextItem(bool& first, char close) {
  if (failed_) return false;
  SkipSpace();
  if (p_ == end_) return Fail();
  if (*p_ == close) {
    ++p_;
    first = false;
    return false;
  }
  if (!first) {
    if (*p_ != ',') return Fail();
    ++p_;
  }
  first = false;
  return true;
}

bool JsonCursor::NextMember(bool& first, std::string_view& key) {
  if (!NextItem(first, '}')) return false;
  SkipSpace();
  if (p_ == end_ || *p_ != '"' || !ScanString(true, &key)) return Fail();
  SkipSpace();
  if (p_ == end_ || *p_ != ':') return Fail();
  ++p_;
  return true;
}

bool JsonCursor::BeginArray() {
  if (Peek() != Type::kArray) return Fail();
  ++p_;
  return true;
}

bool JsonCursor::NextElement(bool& first) { return NextItem(first, ']'); }

bool JsonCursor::ReadString(std::string_view& out) {
  if (Peek() != Type::kString) return Fail();
  return ScanString(true, &out);
}

bool JsonCursor::ReadNumber(JsonNumber& out) {
  if (Peek() != Type::kNumber) return Fail();
  return ScanNumber(&out);
}

bool JsonCursor::AtEnd() {
  if (failed_) return false;
  SkipSpace();
  return p_ == end_;
}

bool JsonCursor::ScanString(bool decode, std::string_view* out) {
  ++p_;  // the opening quote
  const char* start = p_;
  const char* segment = p_;  // start of the bytes not yet copied to scratch_
  bool escaped = false;
  for (;;) {
    p_ += PlainStringBytes(p_, end_);
    if (p_ == end_) return Fail();
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      if (decode) {
        if (escaped) {
          scratch_.append(segment, p_);
          *out = scratch_;
        } else {
          *out = std::string_view(start, static_cast<size_t>(p_ - start));
        }
      }
      ++p_;
      return true;
    }
    if (c == '\\') {
      if (decode) {
        if (!escaped) scratch_.clear();
        scratch_.append(segment, p_);
      }
      escaped = true;
      if (end_ - p_ < 2) return Fail();
      const char e = p_[1];
      p_ += 2;
      char plain = 0;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          plain = e;
          break;
        case 'b':
          plain = '\b';
          break;
        case 'f':
          plain = '\f';
          break;
        case 'n':
          plain = '\n';
          break;
        case 'r':
          plain = '\r';
          break;
        case 't':
          plain = '\t';
          break;
        case 'u': {
          auto hex4 = [&](uint32_t& v) {
            if (end_ - p_ < 4) return false;
            v = 0;
            for (int i = 0; i < 4; ++i) {
              const int h = HexValue(p_[i]);
              if (h < 0) return false;
              v = v * 16 + static_cast<uint32_t>(h);
            }
            p_ += 4;
            return true;
          };
          uint32_t cp;
          if (!hex4(cp)) return Fail();
          if (cp >= 0xDC00 && cp <= 0xDFFF) return Fail();  // a low surrogate alone
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low;
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return Fail();
            p_ += 2;
            if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) return Fail();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          if (decode) AppendUtf8(scratch_, cp);
          break;
        }
        default:
          return Fail();
      }
      if (plain != 0 && decode) scratch_ += plain;
      segment = p_;
      continue;
    }
    if (c < 0x20) return Fail();
    if (c >= 0x80) {
      const size_t n = Utf8Length(reinterpret_cast<const unsigned char*>(p_),
                                  reinterpret_cast<const unsigned char*>(end_));
      if (n == 0) return Fail();
      p_ += n;
      continue;
    }
    ++p_;
  }
}

bool JsonCursor::ScanNumber(JsonNumber* out) {
  const char* start = p_;
  bool integral = true;
  if (p_ < end_ && *p_ == '-') ++p_;
  if (p_ == end_ || !IsDigit(*p_)) return Fail();
  if (*p_ == '0') {
    ++p_;
  } else {
    while (p_ < end_ && IsDigit(*p_)) ++p_;
  }
  if (p_ < end_ && *p_ == '.') {
    integral = false;
    ++p_;
    if (p_ == end_ || !IsDigit(*p_)) return Fail();
    while (p_ < end_ && IsDigit(*p_)) ++p_;
  }
  bool exponent = false;
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    integral = false;
    exponent = true;
    ++p_;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
    if (p_ == end_ || !IsDigit(*p_)) return Fail();
    while (p_ < end_ && IsDigit(*p_)) ++p_;
  }
  // Skipped numbers are converted only when they could overflow a double (an exponent, or more
  // digits than DBL_MAX has): nlohmann refuses 1e999999 wherever it stands.
  if (out == nullptr) {
    if (!exponent && p_ - start <= 300) return true;
    JsonNumber ignored;
    return ScanNumberValue(start, integral, &ignored);
  }
  return ScanNumberValue(start, integral, out);
}

bool JsonCursor::ScanNumberValue(const char* start, bool integral, JsonNumber* out) {
  // As nlohmann's lexer: an integer that fits int64 (negative) or uint64 keeps its type; any
  // other number is strtod's double, and one no double holds (1e999999) is an error.
  if (integral) {
    if (*start == '-') {
      int64_t v;
      auto [end, ec] = std::from_chars(start, p_, v);
      if (ec == std::errc() && end == p_) {
        *out = {JsonNumber::Kind::kInteger, v, 0, static_cast<double>(v)};
        return true;
      }
    } else {
      uint64_t v;
      auto [end, ec] = std::from_chars(start, p_, v);
      if (ec == std::errc() && end == p_) {
        *out = {JsonNumber::Kind::kUnsigned, 0, v, static_cast<double>(v)};
        return true;
      }
    }
  }
  double v = 0;
  auto [end, ec] = std::from_chars(start, p_, v);
  if (ec == std::errc::result_out_of_range) {
    // from_chars refuses underflow too, which strtod (and so nlohmann) takes as 0 or a
    // subnormal: let strtod decide.
    std::string copy(start, p_);
    v = std::strtod(copy.c_str(), nullptr);
  } else if (ec != std::errc() || end != p_) {
    return Fail();
  }
  if (!std::isfinite(v)) return Fail();
  *out = {JsonNumber::Kind::kFloat, 0, 0, v};
  return true;
}

bool JsonCursor::ScanLiteral() {
  // The word the first byte names, all of it (nlohmann's lexer reads it byte by byte the same).
  std::string_view word;
  switch (*p_) {
    case 't':
      word = "true";
      break;
    case 'f':
      word = "false";
      break;
    case 'n':
      word = "null";
      break;
    default:
      return Fail();
  }
  if (static_cast<size_t>(end_ - p_) < word.size()) return Fail();
  for (size_t i = 1; i < word.size(); ++i) {
    if (p_[i] != word[i]) return Fail();
  }
  p_ += word.size();
  return true;
}

bool JsonCursor::SkipScalarHere() {
  switch (*p_) {
    case '"':
      return ScanString(false, nullptr);
    case 't':
    case 'f':
    case 'n':
      return ScanLiteral();
    default:
      if (*p_ == '-' || IsDigit(*p_)) return ScanNumber(nullptr);
      return Fail();
  }
}

bool JsonCursor::SkipRaw(std::string_view& raw) {
  if (Peek() == Type::kError) return Fail();
  const char* start = p_;
  if (!Skip()) return false;
  raw = std::string_view(start, static_cast<size_t>(p_ - start));
  return true;
}

bool JsonCursor::Skip() {
  const Type first = Peek();
  if (first == Type::kError) return Fail();
  if (first != Type::kObject && first != Type::kArray) return SkipScalarHere();
  stack_.clear();
  // Alternates between a value position (top of the loop) and the position after a value (the
  // inner loop), with the open containers on stack_.
  for (;;) {
    SkipSpace();
    if (p_ == end_) return Fail();
    bool closed_now = false;
    if (*p_ == '{' || *p_ == '[') {
      const char open = *p_++;
      SkipSpace();
      if (p_ < end_ && *p_ == (open == '{' ? '}' : ']')) {
        ++p_;
        closed_now = true;
      } else {
        stack_ += open;
        if (open == '{') {
          if (p_ == end_ || *p_ != '"' || !ScanString(false, nullptr)) return Fail();
          SkipSpace();
          if (p_ == end_ || *p_ != ':') return Fail();
          ++p_;
        }
        continue;
      }
    }
    if (!closed_now && !SkipScalarHere()) return false;
    // After a value: a separator (then a value position) or closing brackets.
    for (;;) {
      if (stack_.empty()) return true;
      SkipSpace();
      if (p_ == end_) return Fail();
      const char top = stack_.back();
      if (*p_ == ',') {
        ++p_;
        if (top == '{') {
          SkipSpace();
          if (p_ == end_ || *p_ != '"' || !ScanString(false, nullptr)) return Fail();
          SkipSpace();
          if (p_ == end_ || *p_ != ':') return Fail();
          ++p_;
        }
        break;
      }
      if (*p_ != (top == '{' ? '}' : ']')) return Fail();
      ++p_;
      stack_.pop_back();
    }
  }
}

}  // namespace gpuvet
