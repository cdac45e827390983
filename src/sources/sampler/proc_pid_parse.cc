// Per-process file parsers (see proc_pid_parse.h). The stat line is split after the last ')'
// because the comm field is the only one that can contain spaces or parentheses.
#include "sources/sampler/proc_pid_parse.h"

#include <fmt/format.h>

#include "sources/sampler/host_counters.h"
#include "util/strings.h"

namespace gpuvet {

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

Result<PidIo> ParsePidIo(std::string_view text) {
  PidIo io;
  struct Key {
    const char* name;
    uint64_t* out;
  };
  for (const Key& k : {Key{"rchar:", &io.rchar}, Key{"wchar:", &io.wchar}, Key{"syscr:", &io.syscr},
                       Key{"syscw:", &io.syscw}, Key{"read_bytes:", &io.read_bytes},
                       Key{"write_bytes:", &io.write_bytes}}) {
    std::optional<uint64_t> v = ParseKeyValue(text, k.name);
    if (!v) return InvalidInput(fmt::format("no numeric '{}' line", k.name));
    *k.out = *v;
  }
  return io;
}

Result<CgroupThrottle> ParseCgroupCpuStat(std::string_view text) {
  std::optional<uint64_t> nr = ParseKeyValue(text, "nr_throttled");
  std::optional<uint64_t> usec = ParseKeyValue(text, "throttled_usec");
  std::optional<uint64_t> ns = ParseKeyValue(text, "throttled_time");
  if (nr && usec) return CgroupThrottle{*nr, *usec};
  if (nr && ns) return CgroupThrottle{*nr, *ns / 1000};
  return NotSupported("cpu.stat without nr_throttled and throttled_usec/throttled_time");
}

}  // namespace gpuvet
