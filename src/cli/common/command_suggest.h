// "Did you mean": the closest command name to a mistyped one, by edit distance, so
// `gpuvet chek` answers "unknown command 'chek' — did you mean check?" instead of CLI11's
// generic "A subcommand is required".
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet {

// Levenshtein distance between `a` and `b` counting an adjacent transposition as one edit
// (optimal string alignment): "chek" → "check" is 1, "chekc" → "check" is 1. Bytes, not
// characters; O(|a|·|b|) time, O(|b|) memory.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `typed`, when close enough to be a typo: edit distance at most 1 for
// a typed name of up to 4 bytes, 2 up to 8, else 3 (ties go to the first candidate); failing
// that, the one candidate that starts with `typed` (3 bytes or more; "anal" → analyze, while
// "che" matches check and checks and answers nothing). nullopt when nothing is close.
std::optional<std::string> SuggestCommand(std::string_view typed,
                                          const std::vector<std::string>& candidates);

}  // namespace gpuvet
