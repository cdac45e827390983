// KernelLogFollower: a non-blocking descriptor positioned at the end of the log; Poll reads what
// arrived since, ClassifyFollowedLines turns the lines into events through ParseKernelLog,
// ExtractXidOccurrences and ClassifyKernelMessage.
#include "sources/kmsg/kernel_log_follow.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sources/kmsg/kernel_log.h"
#include "sources/kmsg/kernel_log_signals.h"

namespace gpuvet {

namespace {

constexpr size_t kMaxReadPerPoll = 1 << 20;
constexpr int kMaxRecordsPerPoll = 4096;
constexpr size_t kMaxLine = 8192;  // longer lines are cut (kmsg records are at most ~1 KiB)

RecordingEventKind KindOf(const KernelSignalMatch& m) {
  switch (m.signal) {
    case KernelSignal::kNfsNotResponding:
      return m.detail == "ok" ? RecordingEventKind::kNfsOk : RecordingEventKind::kNfsNotResponding;
    case KernelSignal::kHungTask:
      return RecordingEventKind::kHungTask;
    case KernelSignal::kIoError:
      return RecordingEventKind::kIoError;
    case KernelSignal::kOomKill:
      return RecordingEventKind::kOomKill;
    default:
      return RecordingEventKind::kKernelOther;
  }
}

}  // namespace

std::vector<RecordingEvent> ClassifyFollowedLines(std::string_view text, double t) {
  std::vector<RecordingEvent> out;
  std::vector<KernelLogRecord> records = ParseKernelLog(text);
  for (const XidOccurrence& x : ExtractXidOccurrences(records)) {
    RecordingEvent e;
    e.t = t;
    e.kind = RecordingEventKind::kXid;
    e.subject = x.pci_address;
    e.message = x.text.substr(0, kMaxLine);
    out.push_back(std::move(e));
  }
  std::vector<int> oom_pids;  // an OOM header and its "Killed process" line are one event
  for (const KernelLogRecord& r : records) {
    std::optional<KernelSignalMatch> m = ClassifyKernelMessage(r.text);
    if (!m) continue;
    if (m->signal == KernelSignal::kOomKill) {
      bool seen = false;
      for (int p : oom_pids) seen |= p == m->pid;
      if (seen && m->pid != 0) continue;
      oom_pids.push_back(m->pid);
    } else if (m->continuation && m->signal != KernelSignal::kNfsNotResponding) {
      continue;
    }
    RecordingEvent e;
    e.t = t;
    e.kind = KindOf(*m);
    e.subject = m->key;
    e.message = r.text.substr(0, kMaxLine);
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::unique_ptr<KernelLogFollower>> KernelLogFollower::Open(const HostPaths& paths,
                                                                   const std::string& log_file) {
  const std::string path = log_file.empty() ? paths.Dev("kmsg") : log_file;
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return Unavailable("cannot follow the kernel log " + path + ": " + std::strerror(errno) +
                       (errno == EACCES || errno == EPERM
                            ? " (reading /dev/kmsg needs root or CAP_SYSLOG; or give "
                              "--kernel-log FILE)"
                            : ""));
  }
  struct stat st = {};
  if (fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISREG(st.st_mode))) {
    close(fd);
    return Unavailable("cannot follow the kernel log " + path +
                       ": not a character device or regular file");
  }
  // /dev/kmsg: SEEK_END moves past the last record; a file: to its end.
  lseek(fd, 0, SEEK_END);
  return std::unique_ptr<KernelLogFollower>(new KernelLogFollower(path, fd, S_ISCHR(st.st_mode)));
}

KernelLogFollower::KernelLogFollower(std::string path, int fd, bool device)
    : path_(std::move(path)), fd_(fd), device_(device) {}

KernelLogFollower::~KernelLogFollower() {
  if (fd_ >= 0) close(fd_);
}

std::vector<RecordingEvent> KernelLogFollower::Poll(double t) {
  std::string text;
  char buf[8192];
  if (device_) {
    for (int i = 0; i < kMaxRecordsPerPoll && text.size() < kMaxReadPerPoll; ++i) {
      ssize_t n = read(fd_, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EPIPE) continue;  // records overwritten before we read them
      if (n <= 0) break;                      // EAGAIN: nothing more now
      text.append(buf, static_cast<size_t>(n));
      if (text.back() != '\n') text += '\n';
    }
    return ClassifyFollowedLines(text, t);
  }
  text = std::move(partial_);
  partial_.clear();
  size_t got = 0;
  while (got < kMaxReadPerPoll) {
    ssize_t n = read(fd_, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    got += static_cast<size_t>(n);
  }
  size_t end = text.rfind('\n');
  if (end == std::string::npos) {
    partial_ = text.size() > kMaxLine ? std::string() : std::move(text);  // no end in sight: drop
    return {};
  }
  partial_ = text.substr(end + 1);
  if (partial_.size() > kMaxLine) partial_.clear();
  text.resize(end + 1);
  return ClassifyFollowedLines(text, t);
}

}  // namespace gpuvet
