// UTF-8 validity: the one place gpuvet makes text from input (kernel logs, env files, captures,
// CSV logs, recordings, trace string tables) valid UTF-8 before it reaches a renderer. Invalid
// bytes are data, not an error: a kernel log line with a stray byte in a process name is still a
// line to judge. Each maximal invalid subpart (Unicode 15 §3.9, "U+FFFD substitution of maximal
// subparts", the W3C/WHATWG decoder's policy) becomes one U+FFFD, which is also what nlohmann's
// dump(error_handler_t::replace) writes, so text sanitised here and text caught by a renderer's
// safety net read the same.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpuvet {

// The offset of the first byte of `s` that does not start (or continue) a well-formed UTF-8
// sequence (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF; a sequence cut at
// the end counts as invalid at its first byte); std::string_view::npos when `s` is valid.
size_t FindInvalidUtf8(std::string_view s);

// True when `s` is well-formed UTF-8 (FindInvalidUtf8 finds nothing).
inline bool IsValidUtf8(std::string_view s) { return FindInvalidUtf8(s) == std::string_view::npos; }

// `s` with each maximal invalid subpart replaced by U+FFFD ("\xEF\xBF\xBD"); valid text is
// returned unchanged. Never fails.
std::string MakeValidUtf8(std::string_view s);

// Replaces `s` by MakeValidUtf8(s) when it is not valid (no copy when it is).
void SanitizeUtf8(std::string& s);

}  // namespace gpuvet
