// The workload's work counter for `gpuvet record --work-regex/--work-file` (work per joule): a
// number taken from the workload's output lines or from a file the job rewrites. In total mode
// the number is the cumulative count so far ("step 1200/5000" -> 1200); in increment mode each
// matching line adds its number ("processed 256 samples" -> +256).
#pragma once

#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include "util/status.h"

namespace gpuvet {

enum class WorkMode { kTotal, kIncrement };

// Scans text for the pattern. Not thread-safe.
class WorkCounter {
 public:
  // InvalidInput naming the pattern when it is not a valid ECMAScript regular expression.
  static Result<std::unique_ptr<WorkCounter>> Create(const std::string& pattern, WorkMode mode);

  // Feeds raw output bytes in any chunking; lines end at '\n' or '\r' (progress bars redraw with
  // '\r'). `stream` (0 stdout, 1 stderr) keeps the partial lines of two outputs apart. A line
  // longer than 64 KiB is scanned by its first 64 KiB.
  void Feed(std::string_view bytes, int stream = 0);
  // Scans what is buffered of each stream as a last line (call at the end of the output).
  void Flush();

  // The counter so far; absent until a line matched with a number.
  std::optional<double> total() const { return total_; }
  int64_t matched_lines() const { return matched_; }

  // The number a line contributes: the pattern's first capture group when it matched and is a
  // number, else the first number inside the match; nullopt when the line does not match.
  std::optional<double> ValueOf(std::string_view line) const;

 private:
  WorkCounter(std::regex re, WorkMode mode) : re_(std::move(re)), mode_(mode) {}
  void ScanLine(std::string_view line);

  std::regex re_;
  WorkMode mode_;
  struct Partial {
    std::string text;
    bool overlong = false;
  };
  Partial partial_[2];
  std::optional<double> total_;
  int64_t matched_ = 0;
};

// Reads a counter file (--work-file): its first number, e.g. "12800\n" or "samples=12800".
// NotFound/PermissionDenied when unreadable, InvalidInput when it holds no number.
Result<double> ReadWorkFile(const std::string& path);

}  // namespace gpuvet
