// The kernel log reader: reads /dev/kmsg record by record without ever blocking, or a saved log
// file (its tail when large), refuses binary data with a message naming the file, then parses
// the text and extracts Xid events and the other signals (kernel_log_parse.cc, kernel_log_xid.cc,
// kernel_log_signals.cc, kernel_log_events.cc).
#include "sources/kmsg/kernel_log.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <optional>
#include <utility>

#include "sources/kmsg/kernel_log_parse.h"
#include "sources/kmsg/kernel_log_signals.h"
#include "util/file.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// Stop reading a live /dev/kmsg after this much (the task's bound; the kernel ring buffer is
// CONFIG_LOG_BUF_SHIFT, 128 KiB to a few MiB, so this only guards against a non-kmsg device).
constexpr size_t kKmsgMaxBytes = 16u << 20;
// Saved logs larger than this are read from their tail (the recent events matter).
constexpr size_t kLogFileMaxBytes = 64u << 20;
// One /dev/kmsg read returns one record; the kernel caps a record with its dictionary at
// CONSOLE_EXT_LOG_MAX (8 KiB), so 16 KiB never gets EINVAL for a short buffer.
constexpr size_t kKmsgReadBuffer = 16384;
// EPIPE means the reader fell behind and records were overwritten; each one is reported once, so
// a long run of them means something else is wrong.
constexpr int kMaxConsecutiveEpipe = 1024;
// systemd journal files start with this signature (systemd journal-def.h).
constexpr std::string_view kJournalMagic = "LPKSHHRH";

// Reads a character device the /dev/kmsg way: one record per read() from the oldest record, until
// EAGAIN (no more records: never blocks, the fd is O_NONBLOCK) or the byte bound.
Result<std::string> ReadKmsgDevice(int fd, const std::string& shown_path) {
  // On /dev/kmsg SEEK_DATA moves to the oldest record still in the ring buffer; other devices
  // may refuse it, which is harmless.
  (void)::lseek(fd, 0, SEEK_DATA);
  std::string out;
  char buf[kKmsgReadBuffer];
  int epipe_run = 0;
  while (out.size() < kKmsgMaxBytes) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n > 0) {
      epipe_run = 0;
      out.append(buf, static_cast<size_t>(n));
      if (out.back() != '\n') out.push_back('\n');
      continue;
    }
    if (n == 0) break;
    int err = errno;
    if (err == EINTR) continue;
    if (err == EAGAIN || err == EWOULDBLOCK) break;
    if (err == EPIPE) {  // records were overwritten while reading: the next read continues
      if (++epipe_run > kMaxConsecutiveEpipe) break;
      continue;
    }
    return Status(StatusCode::kUnavailable,
                  fmt::format("cannot read {}: {}", shown_path, std::strerror(err)));
  }
  return out;
}

// Reads a regular file or pipe, keeping the last `max_bytes` of a larger regular file (from the
// start of a line).
Result<std::string> ReadLogStream(int fd, const struct stat& st, const std::string& shown_path,
                                  size_t max_bytes) {
  bool tail = S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes;
  if (tail && ::lseek(fd, st.st_size - static_cast<off_t>(max_bytes), SEEK_SET) < 0) {
    return Status(StatusCode::kUnavailable,
                  fmt::format("cannot seek in {}: {}", shown_path, std::strerror(errno)));
  }
  std::string out;
  char buf[65536];
  while (out.size() < max_bytes) {
    ssize_t n = ::read(fd, buf, std::min(sizeof(buf), max_bytes - out.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status(StatusCode::kUnavailable,
                    fmt::format("cannot read {}: {}", shown_path, std::strerror(errno)));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  if (tail) out.erase(0, std::min(out.size(), out.find('\n') + 1));
  return out;
}

// Refuses data that is not text: a systemd journal file, or mostly control bytes in the first
// 64 KiB (a compressed or binary dump). Stray NULs in a text log are tolerated.
Status CheckText(std::string_view data, const std::string& shown_path) {
  if (StartsWith(data, kJournalMagic)) {
    return InvalidInput(fmt::format(
        "{}: is a binary systemd journal file; export it with `journalctl -k -o short-iso "
        "--file {}`",
        shown_path, shown_path));
  }
  std::string_view head = data.substr(0, 65536);
  size_t control = 0;
  size_t first = std::string_view::npos;
  for (size_t i = 0; i < head.size(); ++i) {
    auto c = static_cast<unsigned char>(head[i]);
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0x1b) {
      ++control;
      if (first == std::string_view::npos) first = i;
    }
  }
  // A third of control bytes is far beyond any text log; NUL padding after a crash is local.
  if (!head.empty() && control * 3 > head.size()) {
    return InvalidInput(
        fmt::format("{}: binary data (first control byte at offset {}), not a text kernel log",
                    shown_path, first));
  }
  return Status::Ok();
}

// Opens `path` without blocking and reads it as a kernel log; `shown_path` names it in messages.
// A pipe is read only when the user named the path (`--kernel-log <(dmesg)`); at the default
// /dev/kmsg a FIFO or socket is refused, since reading it would say "no events" about a log that
// was never read.
Result<std::string> ReadLogPath(const std::string& path, const std::string& shown_path,
                                size_t max_bytes, bool user_named, int* open_errno) {
  *open_errno = 0;
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *open_errno = errno;
    return Status(StatusCode::kUnavailable,
                  fmt::format("cannot open {}: {}", shown_path, std::strerror(errno)));
  }
  struct stat st {};
  Result<std::string> data = Status(StatusCode::kInternal, "unreached");
  if (::fstat(fd, &st) != 0) {
    data = Status(StatusCode::kUnavailable,
                  fmt::format("cannot stat {}: {}", shown_path, std::strerror(errno)));
  } else if (S_ISDIR(st.st_mode)) {
    data = InvalidInput(fmt::format("{}: is a directory, not a kernel log", shown_path));
  } else if (S_ISCHR(st.st_mode)) {
    data = ReadKmsgDevice(fd, shown_path);
  } else if (!user_named && !S_ISREG(st.st_mode)) {
    data = InvalidInput(fmt::format(
        "{}: a {}, not the kernel log device or a file: refused (pass a saved log with "
        "--kernel-log FILE)",
        shown_path, S_ISFIFO(st.st_mode) ? "FIFO (named pipe)" : "socket or special file"));
  } else {
    // Pipes (`--kernel-log <(dmesg)`) are read to their end; regular files never block.
    if (!S_ISREG(st.st_mode)) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    data = ReadLogStream(fd, st, shown_path, max_bytes);
  }
  ::close(fd);
  if (data.ok()) {
    if (Status s = CheckText(*data, shown_path); !s.ok()) return s;
  }
  return data;
}

// Bounds that keep the wall-clock arithmetic far from overflow (year 5138; 300 years of uptime).
constexpr int64_t kMaxEpochS = 100'000'000'000;
constexpr double kMaxUptimeS = 1e10;

// The boot time in Unix seconds from the "btime" line of /proc/stat, or nullopt.
std::optional<int64_t> BootTime(const HostPaths& paths) {
  Result<std::string> stat = ReadFile(paths.Proc("stat"), 1 << 20);
  if (!stat.ok()) return std::nullopt;
  for (std::string_view line : Split(*stat, '\n')) {
    if (!StartsWith(line, "btime ")) continue;
    std::optional<int64_t> v = ParseInt(Trim(line.substr(6)));
    if (v && *v > 0 && *v < kMaxEpochS) return v;
  }
  return std::nullopt;
}

// /dev/kmsg stamps records in microseconds since boot. With the boot time known the record gets
// the wall-clock time in dmesg's ISO form ("2026-01-01T10:02:11,513007+00:00", so later steps read
// it as an absolute time); without it, the raw value with its unit ("227.996662 s after boot").
void DateKmsgRecords(std::vector<KernelLogRecord>& records, std::optional<int64_t> boot_time) {
  for (KernelLogRecord& r : records) {
    if (r.monotonic_s < 0 || r.time.empty() ||
        !std::isdigit(static_cast<unsigned char>(r.time.front())))
      continue;
    if (!boot_time || r.monotonic_s >= kMaxUptimeS) {
      r.time += " s after boot";
      continue;
    }
    const auto us = static_cast<int64_t>(std::llround(r.monotonic_s * 1e6));
    const std::time_t seconds = static_cast<std::time_t>(*boot_time + us / 1000000);
    std::tm tm{};
    if (::gmtime_r(&seconds, &tm) == nullptr) continue;
    r.time =
        fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d},{:06d}+00:00", tm.tm_year + 1900,
                    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us % 1000000);
  }
}

}  // namespace

KernelLogState ReadKernelLog(const HostPaths& paths, const std::string& log_file) {
  KernelLogState state;
  std::string text;
  int open_errno = 0;
  if (!log_file.empty()) {
    auto data = ReadLogPath(log_file, log_file, kLogFileMaxBytes, /*user_named=*/true, &open_errno);
    if (!data.ok()) {
      state.source = log_file;
      state.record_count = Reading<int>::Error(data.status().message());
      return state;
    }
    text = std::move(data).value();
  } else {
    // Messages name the host path, not the fixture path (the operator fixes the host).
    const std::string shown = "/dev/kmsg";
    state.source = shown;
    auto data =
        ReadLogPath(paths.Dev("kmsg"), shown, kKmsgMaxBytes, /*user_named=*/false, &open_errno);
    if (!data.ok()) {
      if (open_errno == ENOENT) {
        state.record_count = Reading<int>::Unsupported(
            "/dev/kmsg does not exist (common in containers); pass a saved log with "
            "--kernel-log FILE");
      } else if (open_errno == EACCES || open_errno == EPERM) {
        state.record_count = Reading<int>::Error(
            "cannot read /dev/kmsg: Permission denied (needs root, CAP_SYSLOG or "
            "kernel.dmesg_restrict=0); pass a saved log with --kernel-log FILE");
      } else {
        state.record_count = Reading<int>::Error(data.status().message());
      }
      return state;
    }
    text = std::move(data).value();
  }
  KernelLogFormat format;
  std::vector<KernelLogRecord> records =
      kernel_log_internal::ParseKernelLogWithFormat(text, &format);
  if (!log_file.empty()) {
    state.source = fmt::format("{} ({})", log_file, KernelLogFormatName(format));
  }
  if (format == KernelLogFormat::kKmsg) {
    // Only the live log is from this boot; a saved kmsg dump's boot time is unknown here.
    DateKmsgRecords(records, log_file.empty() ? BootTime(paths) : std::nullopt);
  }
  state.record_count = Reading<int>::Of(static_cast<int>(records.size()));
  state.xid_occurrences = ExtractXidOccurrences(records);
  state.xids = GroupXidOccurrences(state.xid_occurrences);
  state.xid_rate_limits = ExtractXidRateLimits(records);
  state.events = ExtractKernelEvents(records);
  state.nfs_outages = ExtractNfsOutages(records);
  return state;
}

}  // namespace gpuvet
