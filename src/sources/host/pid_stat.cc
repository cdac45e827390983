// /proc/PID/stat parser and reader (see pid_stat.h). The line is split after the last ')'
// because the comm field is the only one that can contain spaces or parentheses.
#include "sources/host/pid_stat.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// A stat line is at most a few hundred bytes (comm is cut at 64); this bounds a hostile file.
constexpr size_t kMaxStatBytes = 4096;

}  // namespace

Result<PidStat> ParsePidStat(std::string_view text) {
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return InvalidInput("stat line without '(comm)'");
  }
  PidStat s;
  std::optional<int64_t> pid = ParseInt(text.substr(0, open));
  if (!pid || *pid <= 0 || *pid > INT32_MAX) return InvalidInput("stat line without a pid");
  s.pid = static_cast<int>(*pid);
  s.comm = std::string(text.substr(open + 1, close - open - 1));
  // Fields from (3) on; w[0] is field 3.
  std::vector<std::string_view> w = SplitWhitespace(text.substr(close + 1));
  if (w.size() < 22) {
    return InvalidInput(fmt::format("stat line truncated ({} fields after comm)", w.size()));
  }
  if (w[0].size() != 1) return InvalidInput("stat state is not one letter");
  s.state = w[0][0];
  auto num = [&](int field) { return ParseInt(w[static_cast<size_t>(field - 3)]); };
  std::optional<int64_t> ppid = num(4), utime = num(14), stime = num(15), threads = num(20),
                         start = num(22), rss = num(24);
  if (!ppid || !utime || !stime || !threads || !start || !rss || *utime < 0 || *stime < 0 ||
      *start < 0 || *ppid < 0 || *threads < 0) {
    return InvalidInput("stat line with a non-numeric field");
  }
  s.ppid = static_cast<int>(*ppid);
  s.utime = static_cast<uint64_t>(*utime);
  s.stime = static_cast<uint64_t>(*stime);
  s.num_threads = static_cast<int>(*threads);
  s.starttime = static_cast<uint64_t>(*start);
  s.rss_pages = *rss;
  return s;
}

Result<PidStat> ReadStatFile(const std::string& path) {
  Result<std::string> text = ReadFile(path, kMaxStatBytes);
  if (!text.ok()) return text.status();
  Result<PidStat> st = ParsePidStat(*text);
  if (!st.ok()) return InvalidInput(path + ": " + st.status().message());
  return st;
}

Result<PidStat> ReadPidStat(const HostPaths& paths, int pid) {
  return ReadStatFile(paths.Proc(std::to_string(pid) + "/stat"));
}

}  // namespace gpuvet
