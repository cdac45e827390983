// `gpuvet watch`: Sampler -> output/text/watch_view every interval. On a terminal it draws in the
// alternate screen (plain ANSI: cursor home, clear to end; works in tmux and over SSH), keeps a
// short utilisation history per GPU, reads each GPU's PCIe link from sysfs, colours GPU rows and
// the verdict (not with NO_COLOR or --color never), and restores the screen, cursor and terminal
// mode on `q`, SIGINT/SIGTERM/SIGHUP or after --count samples. Exit codes: 0, or 2 for bad flags.
#include "cli/record/watch_command.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <termios.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <deque>
#include <map>

#include "analysis/recording/recording_analyze.h"
#include "cli/common/cli_util.h"
#include "cli/common/duration_flag.h"
#include "cli/common/sampler_flags.h"
#include "core/bottleneck.h"
#include "core/host_paths.h"
#include "core/hw/pcie.h"
#include "core/report.h"
#include "output/text/watch_view.h"
#include "sources/host/pci_sysfs.h"
#include "sources/nvml/nvml_source.h"
#include "sources/sampler/sampler.h"
#include "sources/sampler/workload_process.h"
#include "util/file.h"

namespace gpuvet {

namespace {

struct WatchFlags {
  std::string interval = "1s";
  int pid = 0;
  int count = 0;
  std::string color = "auto";
  SamplerFlags sampler;
};

// Puts a terminal stdin into non-canonical, no-echo mode for single key presses, and restores it.
class RawKeys {
 public:
  RawKeys() {
    if (isatty(STDIN_FILENO) != 1 || tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    termios raw = saved_;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    active_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
  }
  ~RawKeys() {
    if (active_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  RawKeys(const RawKeys&) = delete;
  RawKeys& operator=(const RawKeys&) = delete;
  bool active() const { return active_; }

  // True when `q` (or Q) was pressed; reads whatever keys are waiting.
  bool QuitPressed() {
    if (!active_) return false;
    char buf[32];
    bool quit = false;
    for (ssize_t n; (n = read(STDIN_FILENO, buf, sizeof(buf))) > 0;) {
      for (ssize_t i = 0; i < n; ++i) quit |= buf[i] == 'q' || buf[i] == 'Q';
    }
    return quit;
  }

 private:
  termios saved_ = {};
  bool active_ = false;
};

// The GPU's current PCIe link from sysfs ("Gen4 x16"); degraded when the width is below the
// GPU's maximum or the link is down. A lower generation alone is not flagged: idle GPUs drop to
// Gen1 to save power.
WatchLink ReadLink(const HostPaths& paths, const RecordedGpu& gpu) {
  WatchLink link{"-", false};
  if (gpu.pci_bus_id.empty()) return link;
  std::string dir = "bus/pci/devices/" + NormalizePciBusId(gpu.pci_bus_id) + "/";
  Result<std::string> speed = ReadFile(paths.Sys(dir + "current_link_speed"), 256);
  Result<std::string> width = ReadFile(paths.Sys(dir + "current_link_width"), 256);
  if (!speed.ok() || !width.ok()) return link;
  Result<double> gts = ParseLinkSpeed(*speed);
  Result<int> lanes = ParseLinkWidth(*width);
  if (!lanes.ok() && lanes.status().code() == StatusCode::kNotSupported) {
    return {"down", gpu.pcie_width_max.has_value()};
  }
  if (!gts.ok() || !lanes.ok()) return link;
  link.text = fmt::format("Gen{} x{}", PcieGenFromGts(*gts), *lanes);
  link.degraded = gpu.pcie_width_max && *lanes < *gpu.pcie_width_max;
  return link;
}

double NowUnix() {
  timeval tv = {};
  gettimeofday(&tv, nullptr);
  return tv.tv_sec + tv.tv_usec * 1e-6;
}

std::string Clock(double unix_s) {
  time_t t = static_cast<time_t>(unix_s);
  std::tm tm = {};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

int TerminalWidth() {
  winsize ws = {};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 120;
}

void Write(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

// The live verdict over the recent samples (analysis/recording/recording_analyze.h): "label
// (detail): evidence -> decision".
std::string FormatVerdict(const LiveVerdict& v) {
  std::string s(BottleneckName(v.label));
  if (v.detail != Subcase::kNone) s += fmt::format(" ({})", SubcaseName(v.detail));
  if (!v.evidence.empty()) s += ": " + v.evidence;
  if (!v.decision.empty()) s += " -> " + v.decision;
  return s;
}

int RunWatch(const WatchFlags& flags) {
  auto interval = ParseDurationFlag("--interval", flags.interval);
  if (!interval.ok()) return UsageError("watch", interval.status().message());
  if (*interval < 0.1 || *interval > 60) {
    return UsageError("watch", "--interval must be between 100ms and 60s, not " + flags.interval);
  }
  if (flags.count < 0) return UsageError("watch", "--count must be positive");
  if (flags.pid < 0 || (flags.pid > 0 && kill(flags.pid, 0) != 0 && errno == ESRCH)) {
    return UsageError("watch", "--pid " + std::to_string(flags.pid) + ": no such process");
  }
  auto sampler = Sampler::Create(ToSamplerOptions(flags.sampler, flags.pid));
  if (!sampler.ok()) return UsageError("watch", sampler.status().message());

  const bool tty = isatty(STDOUT_FILENO) == 1;
  const bool color = tty && UseColor(flags.color);
  RawKeys keys;
  const HostPaths paths(flags.sampler.root);
  // One history point per sample, as many as fit beside the label (at most 60).
  std::map<int, std::deque<double>> history;
  signal(SIGPIPE, SIG_IGN);
  SignalRelay relay;                       // SIGINT/SIGTERM/SIGHUP end the view cleanly
  if (tty) Write("\x1b[?1049h\x1b[?25l");  // alternate screen, hide cursor
  const double start = NowUnix();
  double next = start + *interval;
  int shown = 0;
  bool stop = false;
  // The verdict looks at the last 30 s (at least 5 samples): long enough to see a feeder
  // pattern, short enough to follow a change of phase.
  const size_t window = std::max<size_t>(5, static_cast<size_t>(std::ceil(30.0 / *interval)));
  std::deque<Sample> recent;
  while (!stop && (flags.count == 0 || shown < flags.count)) {
    double wait = std::max(0.0, next - NowUnix());
    pollfd p[2] = {{relay.fd(), POLLIN, 0}, {keys.active() ? STDIN_FILENO : -1, POLLIN, 0}};
    poll(p, 2, static_cast<int>(std::ceil(wait * 1000)));
    for (const RelayedSignal& s : relay.Drain()) {
      if (s.signal != SIGCHLD && s.signal != SIGUSR1 && s.signal != SIGUSR2) stop = true;
    }
    if (keys.QuitPressed()) stop = true;
    if (stop || NowUnix() < next) continue;
    next += *interval;
    if (next <= NowUnix()) next = NowUnix() + *interval;
    Sample sample = (*sampler)->Take();
    sample.t = sample.unix_time - start;
    RecordingMeta meta = (*sampler)->meta();
    meta.interval_s = *interval;
    meta.start_unix_s = start;
    recent.push_back(sample);
    while (recent.size() > window) recent.pop_front();
    const LiveVerdict verdict =
        VerdictForWindow(meta, std::vector<Sample>(recent.begin(), recent.end()));
    if (tty) {
      WatchViewOptions view;
      view.width = TerminalWidth();
      view.clock = Clock(sample.unix_time);
      view.verdict = FormatVerdict(verdict);
      view.verdict_severity = LabelSeverity(verdict.label, verdict.detail);
      view.color = color;
      const size_t points = static_cast<size_t>(std::clamp(view.width - 14, 10, 60));
      for (const GpuSample& g : sample.gpus) {
        std::deque<double>& h = history[g.gpu];
        h.push_back(g.util_pct.value_or(-1));
        while (h.size() > points) h.pop_front();
        view.util_history[g.gpu] = std::vector<double>(h.begin(), h.end());
      }
      for (const RecordedGpu& g : meta.gpus) view.links[g.index] = ReadLink(paths, g);
      std::string frame = RenderWatchFrame(meta, sample, view);
      // Home, then each line followed by clear-to-end-of-line, then clear the rest.
      std::string out = "\x1b[H";
      size_t pos = 0;
      while (pos < frame.size()) {
        size_t end = frame.find('\n', pos);
        out += frame.substr(pos, end - pos) + "\x1b[K\n";
        pos = end + 1;
      }
      Write(out + "\x1b[J");
    } else {
      std::string line = RenderWatchLine(sample);
      if (!line.empty() && line.back() == '\n') {
        line.insert(line.size() - 1, fmt::format(" verdict={}", BottleneckName(verdict.label)));
      }
      Write(line);
    }
    if (flags.pid > 0 && kill(flags.pid, 0) != 0 && errno == ESRCH) stop = true;
    ++shown;
  }
  if (tty) Write("\x1b[?25h\x1b[?1049l");  // cursor back, leave the alternate screen
  return kExitHealthy;
}

}  // namespace

void AddWatchCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<WatchFlags>();
  CLI::App* cmd = app.add_subcommand(
      "watch", "Live view of GPUs, host and a workload's busiest processes, every interval");
  cmd->add_option("--interval", flags->interval, "Refresh interval, 100ms to 60s (default 1s)");
  cmd->add_option("--pid", flags->pid, "Also show this process tree's busiest processes/threads");
  cmd->add_option("--count", flags->count, "Stop after this many samples (default: until q)");
  cmd->add_option("--color", flags->color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  AddSamplerFlags(cmd, &flags->sampler, "Do not read GPUs");
  cmd->callback([flags, exit_code] { *exit_code = RunWatch(*flags); });
}

}  // namespace gpuvet
