// Character scanners shared by the kernel log line matchers and the Xid extractor: each matches a
// few bytes at a position and either consumes them or declines, so no matcher ever throws or
// backtracks (no std::regex: it is slow on long logs and recurses on long lines).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpuvet::kernel_log_internal {

// ASCII classes, locale-independent (std::isdigit and friends depend on the C locale).
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
inline bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Number of decimal digits at the start of `s`.
inline size_t CountDigits(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsDigit(s[i])) ++i;
  return i;
}

// Drops leading spaces.
inline std::string_view SkipSpaces(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}

// Matches "\d{N}" at s[pos..] and advances pos.
inline bool Digits(std::string_view s, size_t& pos, size_t n) {
  if (pos + n > s.size()) return false;
  for (size_t i = 0; i < n; ++i) {
    if (!IsDigit(s[pos + i])) return false;
  }
  pos += n;
  return true;
}

// Matches the character `c` at s[pos] and advances pos.
inline bool Char(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

// "PCI:0000:38:00", "0000:38:00", "00000000:3B:00.0", "38:00.1" -> "0000:38:00.0"; nullopt when
// `raw` is not a PCI address (kernel_log_xid.cc).
std::optional<std::string> NormalizePciAddress(std::string_view raw);

}  // namespace gpuvet::kernel_log_internal
