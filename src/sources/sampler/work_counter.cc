// WorkCounter: line splitting over arbitrary chunks, and the number extraction rules of
// work_counter.h. std::regex is slow but runs once per output line, not per byte.
#include "sources/sampler/work_counter.h"

#include <cstdlib>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

constexpr size_t kMaxLine = 64 * 1024;

// The first decimal number in `s` ("1,234" is read as 1; "1.5e3" as 1500).
std::optional<double> FirstNumber(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    bool digit = std::isdigit(static_cast<unsigned char>(s[i]));
    bool signed_digit = (s[i] == '-' || s[i] == '+' || s[i] == '.') && i + 1 < s.size() &&
                        std::isdigit(static_cast<unsigned char>(s[i + 1]));
    if (!digit && !signed_digit) continue;
    std::string tail(s.substr(i, 64));
    char* end = nullptr;
    double v = std::strtod(tail.c_str(), &end);
    if (end != tail.c_str()) return v;
  }
  return std::nullopt;
}

}  // namespace

Result<std::unique_ptr<WorkCounter>> WorkCounter::Create(const std::string& pattern,
                                                         WorkMode mode) {
  try {
    std::regex re(pattern, std::regex::ECMAScript | std::regex::optimize);
    return std::unique_ptr<WorkCounter>(new WorkCounter(std::move(re), mode));
  } catch (const std::regex_error& e) {
    return InvalidInput("--work-regex '" + pattern +
                        "' is not a valid regular expression: " + e.what());
  }
}

std::optional<double> WorkCounter::ValueOf(std::string_view line) const {
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(line.begin(), line.end(), m, re_)) return std::nullopt;
  // Sub-matches as views by offset (an empty match may sit at end(), which must not be
  // dereferenced).
  auto view = [&](size_t i) {
    return line.substr(static_cast<size_t>(m.position(i)), static_cast<size_t>(m.length(i)));
  };
  if (m.size() > 1 && m[1].matched) {
    if (auto v = ParseDouble(view(1))) return v;
    if (auto v = FirstNumber(view(1))) return v;
  }
  if (m.length(0) == 0) return std::nullopt;
  return FirstNumber(view(0));
}

void WorkCounter::ScanLine(std::string_view line) {
  std::optional<double> v = ValueOf(line);
  if (!v) return;
  ++matched_;
  if (mode_ == WorkMode::kTotal) {
    total_ = *v;
  } else {
    total_ = total_.value_or(0) + *v;
  }
}

void WorkCounter::Feed(std::string_view bytes, int stream) {
  Partial& p = partial_[stream == 0 ? 0 : 1];
  for (char c : bytes) {
    if (c == '\n' || c == '\r') {
      if (!p.text.empty()) ScanLine(p.text);
      p.text.clear();
      p.overlong = false;
    } else if (p.text.size() < kMaxLine) {
      p.text.push_back(c);
    } else {
      p.overlong = true;  // keep the first 64 KiB; the rest of this line is dropped
    }
  }
}

void WorkCounter::Flush() {
  for (Partial& p : partial_) {
    if (!p.text.empty()) ScanLine(p.text);
    p.text.clear();
    p.overlong = false;
  }
}

Result<double> ReadWorkFile(const std::string& path) {
  auto text = ReadFile(path, 4096);
  if (!text.ok()) return text.status();
  auto v = FirstNumber(*text);
  if (!v) return InvalidInput("--work-file " + path + " holds no number");
  return *v;
}

}  // namespace gpuvet
