// ExporterProcess: fork/exec with a stderr pipe read by poll() until the listening line shows.
#include "exporter_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace gpuvet::e2e {

namespace {
constexpr const char* kListening = "listening on http://";
}

ExporterProcess::ExporterProcess(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env, int timeout_s) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fds[1], 2);
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(devnull, 1);
    for (const std::string& e : env) putenv(strdup(e.c_str()));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  err_fd_ = fds[0];
  fcntl(err_fd_, F_SETFL, O_NONBLOCK);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    DrainStderr(100);
    size_t at = err_.find(kListening);
    if (at != std::string::npos && err_.find('\n', at) != std::string::npos) {
      std::string rest = err_.substr(at + std::strlen(kListening));
      size_t colon = rest.rfind(':', rest.find('/'));
      port_ = std::atoi(rest.c_str() + colon + 1);
      return;
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {  // exited before listening
      DrainStderr(0);
      pid_ = -1;
      return;
    }
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

ExporterProcess::~ExporterProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (err_fd_ >= 0) close(err_fd_);
}

void ExporterProcess::DrainStderr(int timeout_ms) {
  if (err_fd_ < 0) return;
  pollfd p{err_fd_, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return;
  char buf[4096];
  for (;;) {
    ssize_t n = read(err_fd_, buf, sizeof(buf));
    if (n <= 0) break;
    err_.append(buf, static_cast<size_t>(n));
  }
}

int ExporterProcess::Stop(int timeout_s) {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    DrainStderr(0);
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      DrainStderr(0);
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return -1;
}

long ExporterProcess::RssKib() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

double ExporterProcess::CpuSeconds() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(stat.substr(close + 2));
  std::string f;
  long utime = 0, stime = 0;
  // Fields after the command: state is field 3; utime and stime are fields 14 and 15.
  for (int i = 3; i <= 15 && (fields >> f); ++i) {
    if (i == 14) utime = std::atol(f.c_str());
    if (i == 15) stime = std::atol(f.c_str());
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace gpuvet::e2e
