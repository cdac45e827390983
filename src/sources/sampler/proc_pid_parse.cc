// Per-process file parsers (see proc_pid_parse.h): key/value files, so each value is looked up by
// its key and a missing key is an error rather than a zero.
#include "sources/sampler/proc_pid_parse.h"

#include <fmt/format.h>

#include "sources/sampler/host_counters.h"
#include "util/strings.h"

namespace gpuvet {

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
