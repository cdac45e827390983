// Following the kernel log while `gpuvet record` samples: /dev/kmsg (from its end: only what is
// logged during the run) or a log file being appended to (from its end, like `tail -f`), read
// without blocking and in bounded chunks, each new line classified with the same classifiers
// `check` uses (Xid, NFS not responding / OK, hung tasks, I/O errors, OOM kills, the other kernel
// signals) into RecordingEvents.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_paths.h"
#include "core/recording.h"
#include "util/status.h"

namespace gpuvet {

class KernelLogFollower {
 public:
  // Opens `log_file`, or paths.Dev("kmsg") when it is empty, positioned at its end. Unavailable
  // (naming the file and why) when it cannot be opened: the recording goes on without it.
  static Result<std::unique_ptr<KernelLogFollower>> Open(const HostPaths& paths,
                                                         const std::string& log_file);
  ~KernelLogFollower();
  KernelLogFollower(const KernelLogFollower&) = delete;
  KernelLogFollower& operator=(const KernelLogFollower&) = delete;

  // Reads what was logged since the last call (at most 1 MiB or 4096 records; the rest waits for
  // the next call) and returns its classified events, each at time `t` (seconds since the
  // recording started: the time it was read, within one sampling interval of when it was
  // logged). Never blocks. Lines that are no signal are dropped.
  std::vector<RecordingEvent> Poll(double t);

  // The file followed, as given.
  const std::string& path() const { return path_; }

 private:
  KernelLogFollower(std::string path, int fd, bool device);
  std::string path_;
  int fd_ = -1;
  bool device_ = false;  // /dev/kmsg: one record per read()
  std::string partial_;  // a file's last line, not yet ended by '\n'
};

// The events of complete kernel log lines `text` (any format ParseKernelLog reads), at time `t`.
// Pure; the classifier of KernelLogFollower::Poll.
std::vector<RecordingEvent> ClassifyFollowedLines(std::string_view text, double t);

}  // namespace gpuvet
