// Parsers for the sampler's host counters. They run once per sample on files of a few kilobytes,
// so they split lines by hand instead of building vectors of strings.
#include "sources/sampler/host_counters.h"

#include <fmt/format.h>

#include <cctype>

#include "util/strings.h"

namespace gpuvet {

namespace {

// The next whitespace-separated word of `s`, advancing it; empty at the end.
std::string_view NextWord(std::string_view& s) {
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  size_t e = b;
  while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e]))) ++e;
  std::string_view w = s.substr(b, e - b);
  s.remove_prefix(e);
  return w;
}

// Parses up to `n` unsigned numbers from `s` into `out`; returns how many were read, or -1 when a
// word is not a number.
int ReadNumbers(std::string_view s, uint64_t* out, int n) {
  int got = 0;
  while (got < n) {
    std::string_view w = NextWord(s);
    if (w.empty()) break;
    std::optional<uint64_t> v = ParseUint(w);
    if (!v || StartsWith(w, "0x")) return -1;
    out[got++] = *v;
  }
  return got;
}

Status LineError(int line_no, std::string_view line, std::string_view what) {
  return InvalidInput(fmt::format("line {}: {}: '{}'", line_no, what, Trim(line)));
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

Result<ProcStatCounters> ParseProcStat(std::string_view text) {
  ProcStatCounters out;
  int line_no = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    std::string_view rest = line;
    std::string_view key = NextWord(rest);
    if (StartsWith(key, "cpu")) {
      std::string_view num = key.substr(3);
      if (!num.empty() && !AllDigits(num)) continue;  // not a cpu line after all
      uint64_t v[8] = {};
      const int got = ReadNumbers(rest, v, 8);
      if (got < 4) return LineError(line_no, line, "expected at least 4 tick counters");
      CpuTicks t{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], got};
      if (num.empty()) {
        out.total = t;
        continue;
      }
      std::optional<uint64_t> cpu = ParseUint(num);
      if (!cpu || *cpu > 65535) return LineError(line_no, line, "implausible CPU number");
      if (out.cores.size() <= *cpu) out.cores.resize(*cpu + 1);
      out.cores[*cpu] = t;
    } else if (key == "procs_running") {
      std::optional<uint64_t> v = ParseUint(rest);
      if (!v || *v > 1000000) return LineError(line_no, line, "expected a process count");
      out.procs_running = static_cast<int>(*v);
    }
  }
  return out;
}

Result<std::vector<DiskCounters>> ParseDiskstats(std::string_view text) {
  std::vector<DiskCounters> out;
  int line_no = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    if (Trim(line).empty()) continue;
    std::string_view rest = line;
    NextWord(rest);  // major
    NextWord(rest);  // minor
    std::string_view name = NextWord(rest);
    // reads merged sectors_read ms_reading writes merged sectors_written ms_writing in_flight
    // io_ticks (then weighted time, discards…, flushes… on newer kernels).
    uint64_t v[10] = {};
    const int got = ReadNumbers(rest, v, 10);
    if (name.empty() || got < 10) {
      return LineError(line_no, line, "expected 'major minor name' and at least 11 counters");
    }
    out.push_back(DiskCounters{std::string(name), v[2], v[6], v[9]});
  }
  return out;
}

bool IsVirtualBlockDevice(std::string_view name) {
  for (std::string_view prefix : {"loop", "ram", "zram", "dm-", "sr", "fd"}) {
    if (StartsWith(name, prefix)) return true;
  }
  // "md0", "md127" (but not e.g. "mdisk"): software RAID over disks that are listed themselves.
  return StartsWith(name, "md") && AllDigits(name.substr(2));
}

bool IsPartition(std::string_view name, const std::vector<std::string>& all) {
  size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
  if (digits == 0 || digits == name.size()) return false;
  std::string_view parent = name.substr(0, digits);
  // "nvme0n1p2" / "mmcblk0p1": the parent ends in a digit and the partition adds "pN".
  if (parent.size() >= 2 && parent.back() == 'p' &&
      std::isdigit(static_cast<unsigned char>(parent[parent.size() - 2]))) {
    parent.remove_suffix(1);
  }
  for (const std::string& d : all) {
    if (d == parent) return true;
  }
  return false;
}

Result<std::vector<NetCounters>> ParseNetDev(std::string_view text) {
  std::vector<NetCounters> out;
  int line_no = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    if (Trim(line).empty()) continue;
    const size_t colon = line.find(':');
    if (line_no <= 2 && line.find('|') != std::string_view::npos) continue;  // header lines
    if (colon == std::string_view::npos) return LineError(line_no, line, "expected 'name:'");
    std::string_view name = Trim(line.substr(0, colon));
    // rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes …
    uint64_t v[9] = {};
    if (name.empty() || ReadNumbers(line.substr(colon + 1), v, 9) < 9) {
      return LineError(line_no, line, "expected an interface name and 16 counters");
    }
    out.push_back(NetCounters{std::string(name), v[0], v[8]});
  }
  return out;
}

std::optional<uint64_t> ParseKeyValue(std::string_view text, std::string_view key) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (StartsWith(line, key) && line.size() > key.size() &&
        std::isspace(static_cast<unsigned char>(line[key.size()]))) {
      std::optional<uint64_t> v = ParseUint(line.substr(key.size()));
      if (v && !StartsWith(Trim(line.substr(key.size())), "0x")) return v;
      return std::nullopt;
    }
    at = end + 1;
  }
  return std::nullopt;
}

}  // namespace gpuvet
