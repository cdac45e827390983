// Small string helpers shared by every parser. Nothing here knows about GPUs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace gpuvet {

// Removes leading and trailing ASCII whitespace.
std::string_view Trim(std::string_view s);

// Splits on `sep`; keeps empty fields. Split("a,,b", ',') == {"a", "", "b"}.
std::vector<std::string_view> Split(std::string_view s, char sep);

// Splits on runs of ASCII whitespace; drops empty fields.
std::vector<std::string_view> SplitWhitespace(std::string_view s);

bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);
std::string ToLower(std::string_view s);

// Whole-string numeric parses (after trimming); nullopt on any garbage or overflow.
std::optional<int64_t> ParseInt(std::string_view s);
std::optional<uint64_t> ParseUint(std::string_view s);
std::optional<double> ParseDouble(std::string_view s);

// Parses a Linux CPU list ("0-3,8,10-11"). Returns the sorted CPU ids or an InvalidInput status.
Result<std::vector<int>> ParseCpuList(std::string_view s);

// Formats sorted CPU ids back to the compact list form ("0-3,8").
std::string FormatCpuList(const std::vector<int>& cpus);

// Shell-style glob match supporting '*' and '?' (used for version allow-lists).
bool GlobMatch(std::string_view pattern, std::string_view text);

// Joins with a separator.
std::string Join(const std::vector<std::string>& parts, std::string_view sep);

}  // namespace gpuvet
