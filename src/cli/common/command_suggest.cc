// Edit distance and the closest command (see command_suggest.h).
#include "cli/common/command_suggest.h"

#include <algorithm>

namespace gpuvet {

size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rows of the DP table: the one before last (for transpositions), the last, this one.
  std::vector<size_t> before(b.size() + 1), last(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) last[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    std::swap(before, last);
    std::swap(last, row);
  }
  return last[b.size()];
}

std::optional<std::string> SuggestCommand(std::string_view typed,
                                          const std::vector<std::string>& candidates) {
  if (typed.empty()) return std::nullopt;
  const size_t budget = typed.size() <= 4 ? 1 : typed.size() <= 8 ? 2 : 3;
  std::optional<std::string> best;
  size_t best_distance = budget + 1;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(typed, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  if (best) return best;
  // A unique prefix ("anal" → analyze) is what the user meant too.
  if (typed.size() < 3) return std::nullopt;
  std::optional<std::string> prefix;
  for (const std::string& c : candidates) {
    if (c.size() > typed.size() && c.compare(0, typed.size(), typed) == 0) {
      if (prefix) return std::nullopt;  // ambiguous: "che" → check, checks
      prefix = c;
    }
  }
  return prefix;
}

}  // namespace gpuvet
