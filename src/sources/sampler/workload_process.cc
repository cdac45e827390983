// posix_spawnp with pipes and default signal state for the workload, and a self-pipe signal relay
// (the only async-signal-safe way to hand signals to a poll() loop).
#include "sources/sampler/workload_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace gpuvet {

namespace {

// The relay's pipe: a signal handler can reach nothing but globals.
int g_relay_write_fd = -1;
int g_relay_read_fd = -1;

void RelayHandler(int signal, siginfo_t* info, void*) {
  int saved = errno;
  unsigned char msg[2] = {
      static_cast<unsigned char>(signal),
      static_cast<unsigned char>(info != nullptr && info->si_code == SI_KERNEL)};
  if (g_relay_write_fd >= 0) {
    ssize_t ignored = write(g_relay_write_fd, msg, sizeof(msg));
    (void)ignored;  // a full pipe already holds enough wake-ups
  }
  errno = saved;
}

struct SavedAction {
  int signal;
  struct sigaction action;
};
std::vector<SavedAction> g_saved;

}  // namespace

Result<std::unique_ptr<Workload>> Workload::Spawn(const std::vector<std::string>& argv,
                                                  bool capture_output) {
  if (argv.empty()) return InvalidInput("no command to run");
  std::unique_ptr<Workload> w(new Workload());
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if (capture_output && (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)) {
    return Unavailable(std::string("cannot create pipes for the workload: ") +
                       std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (capture_output) {
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  // gpuvet ignores SIGPIPE and catches the relayed signals: the workload starts with defaults.
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (capture_output) {
    close(out[1]);
    close(err[1]);
  }
  if (rc != 0) {
    if (capture_output) {
      close(out[0]);
      close(err[0]);
    }
    std::string message = "cannot run '" + argv[0] + "': " + std::strerror(rc);
    if (rc == ENOENT) return NotFound(message);
    if (rc == EACCES || rc == EPERM) return PermissionDenied(message);
    return Unavailable(message);
  }
  w->pid_ = pid;
  if (capture_output) {
    w->out_fd_ = out[0];
    w->err_fd_ = err[0];
    fcntl(w->out_fd_, F_SETFL, fcntl(w->out_fd_, F_GETFL) | O_NONBLOCK);
    fcntl(w->err_fd_, F_SETFL, fcntl(w->err_fd_, F_GETFL) | O_NONBLOCK);
  }
  return w;
}

Workload::~Workload() {
  CloseStdout();
  CloseStderr();
}

void Workload::CloseStdout() {
  if (out_fd_ >= 0) close(out_fd_);
  out_fd_ = -1;
}

void Workload::CloseStderr() {
  if (err_fd_ >= 0) close(err_fd_);
  err_fd_ = -1;
}

std::optional<int> Workload::Poll() {
  if (status_ || pid_ <= 0) return status_;
  int wstatus = 0;
  pid_t r = waitpid(pid_, &wstatus, WNOHANG);
  if (r == pid_) {
    if (WIFEXITED(wstatus)) status_ = WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus)) status_ = 128 + WTERMSIG(wstatus);
  } else if (r < 0 && errno == ECHILD) {
    status_ = 255;  // reaped elsewhere: the status is lost
  }
  return status_;
}

void Workload::Signal(int signal) const {
  if (!status_ && pid_ > 0) kill(pid_, signal);
}

const std::vector<int>& SignalRelay::Forwarded() {
  static const std::vector<int> kSignals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
  return kSignals;
}

SignalRelay::SignalRelay() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
    g_relay_read_fd = fds[0];
    g_relay_write_fd = fds[1];
  }
  struct sigaction sa = {};
  sa.sa_sigaction = RelayHandler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  std::vector<int> signals = Forwarded();
  signals.push_back(SIGCHLD);
  for (int s : signals) {
    SavedAction saved{s, {}};
    sigaction(s, &sa, &saved.action);
    g_saved.push_back(saved);
  }
}

SignalRelay::~SignalRelay() {
  for (const SavedAction& s : g_saved) sigaction(s.signal, &s.action, nullptr);
  g_saved.clear();
  if (g_relay_write_fd >= 0) close(g_relay_write_fd);
  if (g_relay_read_fd >= 0) close(g_relay_read_fd);
  g_relay_write_fd = g_relay_read_fd = -1;
}

int SignalRelay::fd() const { return g_relay_read_fd; }

std::vector<RelayedSignal> SignalRelay::Drain() {
  std::vector<RelayedSignal> out;
  unsigned char buf[256];
  while (g_relay_read_fd >= 0) {
    ssize_t n = read(g_relay_read_fd, buf, sizeof(buf));
    if (n <= 0) break;
    for (ssize_t i = 0; i + 1 < n; i += 2) out.push_back({buf[i], buf[i + 1] != 0});
  }
  return out;
}

}  // namespace gpuvet
