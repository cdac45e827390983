// UTF-8 validation and U+FFFD substitution of maximal subparts (see utf8.h).
#include "util/utf8.h"

namespace gpuvet {

namespace {

// Length of the well-formed sequence at s[i], or the length of its maximal invalid subpart
// negated (at least 1) when it is not well-formed. Table 3-7 of the Unicode standard: the second
// byte's range depends on the lead byte (E0: A0..BF, ED: 80..9F, F0: 90..BF, F4: 80..8F).
int SequenceAt(std::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  int len = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return -1;  // a continuation byte, C0/C1 (overlong) or F5..FF: never a lead byte
  }
  for (int k = 1; k < len; ++k) {
    if (i + k >= s.size()) return -k;
    const auto b = static_cast<unsigned char>(s[i + k]);
    const unsigned char min = k == 1 ? lo : 0x80, max = k == 1 ? hi : 0xBF;
    if (b < min || b > max) return -k;
  }
  return len;
}

}  // namespace

size_t FindInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // ASCII runs are the common case.
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    int n = SequenceAt(s, i);
    if (n < 0) return i;
    i += static_cast<size_t>(n);
  }
  return std::string_view::npos;
}

std::string MakeValidUtf8(std::string_view s) {
  size_t bad = FindInvalidUtf8(s);
  if (bad == std::string_view::npos) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  out.append(s.substr(0, bad));
  size_t i = bad;
  while (i < s.size()) {
    int n = SequenceAt(s, i);
    if (n > 0) {
      out.append(s.substr(i, static_cast<size_t>(n)));
      i += static_cast<size_t>(n);
    } else {
      out.append("\xEF\xBF\xBD");
      i += static_cast<size_t>(-n);
    }
  }
  return out;
}

void SanitizeUtf8(std::string& s) {
  if (!IsValidUtf8(s)) s = MakeValidUtf8(s);
}

}  // namespace gpuvet
