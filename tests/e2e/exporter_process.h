// A `gpuvet exporter` child process for end-to-end tests: started with --listen 127.0.0.1:0,
// its bound port read from the "listening on" line it prints on stderr, stopped with SIGTERM.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace gpuvet::e2e {

class ExporterProcess {
 public:
  // Starts `argv` (argv[0] an absolute path) with `env` added to this process's environment and
  // waits up to `timeout_s` for the "listening on http://HOST:PORT/metrics" line. port() is 0
  // when it did not appear (the child is then killed; stderr() says why).
  ExporterProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                  int timeout_s = 30);
  // Kills the child if it still runs.
  ~ExporterProcess();
  ExporterProcess(const ExporterProcess&) = delete;
  ExporterProcess& operator=(const ExporterProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  // What the child printed on stderr so far (up to the listening line, plus the rest after Stop).
  const std::string& stderr_text() const { return err_; }

  // Sends SIGTERM and waits up to `timeout_s`; returns the exit code, or -1 when it was killed or
  // did not exit in time.
  int Stop(int timeout_s = 20);

  // Resident set size of the child in KiB (VmRSS), or -1.
  long RssKib() const;
  // User + system CPU seconds the child has used (from /proc/PID/stat), or -1.
  double CpuSeconds() const;

 private:
  void DrainStderr(int timeout_ms);

  pid_t pid_ = -1;
  int err_fd_ = -1;
  int port_ = 0;
  std::string err_;
};

}  // namespace gpuvet::e2e
