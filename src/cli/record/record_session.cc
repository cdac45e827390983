// RunRecordLoop. Sampling times follow a fixed grid (start + k * interval) so a slow sample does
// not shift every later one; after a stall longer than an interval the grid restarts from now.
// Output of a captured workload is copied through unchanged before it is scanned. On a terminal a
// status line (elapsed, samples, the live label) is redrawn after each sample and cleared before
// the workload's output is copied, so the two never share a line.
#include "cli/record/record_session.h"

#include <poll.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <string>

#include "analysis/recording/recording_analyze.h"
#include "core/bottleneck.h"
#include "sources/host/pid_stat.h"
#include "sources/kmsg/kernel_log_follow.h"
#include "sources/recording/recording_store.h"
#include "sources/sampler/sampler.h"
#include "sources/sampler/workload_process.h"

namespace gpuvet {

namespace {

double Now() {
  timeval tv = {};
  gettimeofday(&tv, nullptr);
  return tv.tv_sec + tv.tv_usec * 1e-6;
}

// Writes all of `data` to `fd`; gives up silently when our own stdout/stderr is gone (the
// workload must keep running whatever happens to gpuvet's terminal).
void WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      pollfd p = {fd, POLLOUT, 0};
      poll(&p, 1, 100);
      continue;
    }
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// The status line on stderr: "\r" + text + erase-to-end; Clear() blanks it before other output.
class StatusLine {
 public:
  explicit StatusLine(bool on) : on_(on) {}
  ~StatusLine() { Clear(); }
  void Show(const std::string& text) {
    if (!on_) return;
    std::string line = "\r" + text + "\033[K";
    WriteAll(STDERR_FILENO, line.data(), line.size());
    shown_ = true;
  }
  void Clear() {
    if (!on_ || !shown_) return;
    WriteAll(STDERR_FILENO, "\r\033[K", 4);
    shown_ = false;
  }

 private:
  bool on_;
  bool shown_ = false;
};

std::string Elapsed(double s) {
  long t = static_cast<long>(s);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%02ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  return buf;
}

// The faults a change of the sampler's notes announces: "sampler.gpu.N" = "lost: …" (a GPU
// lost), "sampler.gpu.hang" (an NVML call hung), "sampler.gpu.recovered" (NVML answers again).
// `seen` holds the notes already turned into events.
std::vector<RecordingEvent> FaultsFromNotes(const std::map<std::string, std::string>& notes,
                                            std::map<std::string, std::string>& seen, double t) {
  std::vector<RecordingEvent> out;
  for (const auto& [key, value] : notes) {
    auto it = seen.find(key);
    if (it != seen.end() && it->second == value) continue;
    seen[key] = value;
    RecordingEvent e;
    e.t = t;
    e.message = value;
    if (key == "sampler.gpu.hang") {
      e.kind = RecordingEventKind::kNvmlHung;
      e.subject = "nvml";
    } else if (key == "sampler.gpu.recovered") {
      e.kind = RecordingEventKind::kNvmlRecovered;
      e.subject = "nvml";
    } else if (key.rfind("sampler.gpu.", 0) == 0 && value.rfind("lost", 0) == 0 &&
               key.find('.', 12) == std::string::npos) {
      e.kind = RecordingEventKind::kGpuLost;
      e.subject = "gpu" + key.substr(12);
    } else {
      continue;
    }
    out.push_back(std::move(e));
  }
  return out;
}

// Copies what is available on `from` to `to` and feeds the counter; false at EOF or error.
bool Pump(int from, int to, WorkCounter* counter, int stream, StatusLine& status) {
  char buf[65536];
  for (int rounds = 0; rounds < 16; ++rounds) {
    ssize_t n = read(from, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    if (n <= 0) return false;
    status.Clear();
    WriteAll(to, buf, static_cast<size_t>(n));
    if (counter != nullptr) counter->Feed(std::string_view(buf, static_cast<size_t>(n)), stream);
  }
  return true;
}

// True once `pid` has exited: no such process, no stat file under `paths`, or a zombie (ended,
// not yet reaped by its parent), which is gone for recording purposes.
bool ProcessGone(const HostPaths& paths, int pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  Result<PidStat> st = ReadPidStat(paths, pid);
  if (!st.ok()) return st.status().code() != StatusCode::kInvalidInput;
  return st->state == 'Z';
}

}  // namespace

RecordOutcome RunRecordLoop(Sampler& sampler, RecordingWriter* writer, SignalRelay& relay,
                            const RecordTarget& target, double interval_s, double start_unix_s,
                            WorkCounter* work_regex, const std::string& work_file) {
  RecordOutcome outcome;
  Workload* child = target.workload;
  bool recording = writer != nullptr;
  StatusLine status(target.status_line && recording);
  std::deque<Sample> recent;  // the live label's window (status line only)
  std::map<std::string, std::string> seen_notes = sampler.meta().notes;
  bool stop = false;
  std::optional<double> work_total;
  std::string work_file_error;
  double next = start_unix_s + interval_s;

  auto take_sample = [&] {
    if (!recording) return;
    Sample s = sampler.Take();
    s.t = s.unix_time - start_unix_s;
    if (work_regex != nullptr && work_regex->total()) work_total = work_regex->total();
    if (!work_file.empty()) {
      auto v = ReadWorkFile(work_file);
      if (v.ok()) {
        work_total = *v;
      } else if (work_file_error != v.status().message()) {
        work_file_error = v.status().message();  // reported once per distinct error
        std::fprintf(stderr, "gpuvet record: %s\n", work_file_error.c_str());
      }
    }
    s.workload.work_total = work_total;
    std::vector<RecordingEvent> events = FaultsFromNotes(sampler.meta().notes, seen_notes, s.t);
    if (target.kernel_log != nullptr) {
      std::vector<RecordingEvent> k = target.kernel_log->Poll(s.t);
      events.insert(events.end(), k.begin(), k.end());
    }
    Status st = Status::Ok();
    for (const RecordingEvent& e : events) {
      if (st.ok()) st = writer->AppendEvent(e);
      if (st.ok()) ++outcome.events;
    }
    if (st.ok()) st = writer->Append(s);
    if (!st.ok()) {
      recording = false;
      outcome.write_error = st.message();
      status.Clear();
      std::fprintf(stderr, "gpuvet record: %s; recording stopped, the workload keeps running\n",
                   st.message().c_str());
      return;
    }
    ++outcome.samples;
    if (target.status_line) {
      recent.push_back(std::move(s));
      if (recent.size() > 10) recent.pop_front();
      LiveVerdict v =
          VerdictForWindow(sampler.meta(), std::vector<Sample>(recent.begin(), recent.end()));
      status.Show("gpuvet record: " + Elapsed(recent.back().t) + "  " +
                  std::to_string(outcome.samples) + " samples  " +
                  std::string(BottleneckName(v.label)) +
                  (outcome.events ? "  " + std::to_string(outcome.events) + " events" : ""));
    }
  };

  while (!stop) {
    std::vector<pollfd> fds;
    fds.push_back({relay.fd(), POLLIN, 0});
    if (child != nullptr && child->stdout_fd() >= 0) fds.push_back({child->stdout_fd(), POLLIN, 0});
    if (child != nullptr && child->stderr_fd() >= 0) fds.push_back({child->stderr_fd(), POLLIN, 0});
    double wait_s = recording ? std::max(0.0, next - Now()) : 0.5;
    if (target.duration_s && recording) {
      wait_s = std::min(wait_s, std::max(0.0, start_unix_s + *target.duration_s - Now()));
    }
    int rc = poll(fds.data(), fds.size(), static_cast<int>(std::ceil(wait_s * 1000)));
    if (rc < 0 && errno != EINTR) break;

    for (const RelayedSignal& sig : relay.Drain()) {
      if (sig.signal == SIGCHLD) continue;  // handled by Poll below
      if (child != nullptr) {
        if (!sig.to_process_group) child->Signal(sig.signal);
      } else {
        stop = true;  // host or --pid recording: a signal ends it cleanly
      }
    }
    if (child != nullptr) {
      if (child->stdout_fd() >= 0 &&
          !Pump(child->stdout_fd(), STDOUT_FILENO, work_regex, 0, status)) {
        child->CloseStdout();
      }
      if (child->stderr_fd() >= 0 &&
          !Pump(child->stderr_fd(), STDERR_FILENO, work_regex, 1, status)) {
        child->CloseStderr();
      }
      if (auto code = child->Poll()) {
        outcome.exit_code = code;
        // Pass through what the workload wrote before it ended (grandchildren that keep the
        // pipe open do not hold gpuvet: only what is already there is read).
        if (child->stdout_fd() >= 0) Pump(child->stdout_fd(), STDOUT_FILENO, work_regex, 0, status);
        if (child->stderr_fd() >= 0) Pump(child->stderr_fd(), STDERR_FILENO, work_regex, 1, status);
        if (work_regex != nullptr) work_regex->Flush();
        stop = true;
      }
    }
    if (target.attached_pid > 0 && ProcessGone(target.paths, target.attached_pid)) stop = true;
    double now = Now();
    if (target.duration_s && now >= start_unix_s + *target.duration_s) {
      if (child == nullptr) stop = true;
      if (recording) take_sample();
      recording = false;  // with a workload: stop sampling, keep waiting for it
      continue;
    }
    if (stop) {
      take_sample();  // the partial last interval
      break;
    }
    if (recording && now >= next) {
      take_sample();
      next += interval_s;
      if (next <= now) next = now + interval_s;  // fell behind: restart the grid
    }
  }
  status.Clear();
  outcome.end_unix_s = Now();
  return outcome;
}

}  // namespace gpuvet
