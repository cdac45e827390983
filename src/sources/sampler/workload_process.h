// The workload of `gpuvet record -- CMD ARGS`: started with posix_spawnp (no shell) with default
// signal dispositions and an empty mask, optionally with stdout/stderr through pipes so gpuvet
// can pass them through and scan them; and the signal relay that turns SIGINT, SIGTERM, SIGHUP,
// SIGQUIT, SIGUSR1, SIGUSR2 and SIGCHLD into bytes on a pipe, so one poll() loop handles signals,
// output and the sampling clock.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/status.h"

namespace gpuvet {

class Workload {
 public:
  // Starts argv[0] (searched in PATH) with argv. With capture_output its stdout and stderr are
  // pipes (stdout_fd()/stderr_fd(), non-blocking, owned here); stdin is always inherited.
  // NotFound/PermissionDenied/Unavailable naming the command when it cannot be started.
  static Result<std::unique_ptr<Workload>> Spawn(const std::vector<std::string>& argv,
                                                 bool capture_output);
  ~Workload();
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  int pid() const { return pid_; }
  int stdout_fd() const { return out_fd_; }  // -1 when not captured or closed
  int stderr_fd() const { return err_fd_; }
  void CloseStdout();
  void CloseStderr();

  // Reaps the child without blocking: its exit status once it ended (the exit code, or 128+N
  // when signal N killed it), nullopt while it runs.
  std::optional<int> Poll();
  // Sends `signal` to the child (no-op once it was reaped).
  void Signal(int signal) const;

 private:
  Workload() = default;
  int pid_ = -1;
  int out_fd_ = -1, err_fd_ = -1;
  std::optional<int> status_;
};

// One signal that reached gpuvet: its number and whether the kernel sent it to our whole process
// group (a terminal's Ctrl-C, a hang-up), in which case the workload, in the same group, got it
// too and must not get it twice.
struct RelayedSignal {
  int signal = 0;
  bool to_process_group = false;
};

// Installs the handlers on construction and restores the previous ones on destruction. One per
// process (the handlers write to a process-wide pipe); not thread-safe.
class SignalRelay {
 public:
  SignalRelay();
  ~SignalRelay();
  SignalRelay(const SignalRelay&) = delete;
  SignalRelay& operator=(const SignalRelay&) = delete;

  // Readable when a signal arrived (poll it with POLLIN).
  int fd() const;
  // The signals that arrived since the last call (SIGCHLD included), in order.
  std::vector<RelayedSignal> Drain();

  // The signals gpuvet record forwards to its workload.
  static const std::vector<int>& Forwarded();
};

}  // namespace gpuvet
