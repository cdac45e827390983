// `gpuvet exporter`: validates flags, binds, starts the collection thread, prints the bound
// address on stderr, then serves until SIGINT/SIGTERM. Signals are taken by a dedicated sigwait
// thread, so shutdown is an ordinary function call (stop the server, join the collector), not
// handler code.
#include "cli/exporter/exporter_command.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "cli/common/cli_util.h"
#include "cli/exporter/exporter_collector.h"
#include "cli/exporter/exporter_server.h"
#include "core/report.h"
#include "util/file.h"
#include "util/strings.h"

#ifndef GPUVET_VERSION
#define GPUVET_VERSION "dev"
#endif

namespace gpuvet {

namespace {
// How long a stop waits for a collection in progress before abandoning it.
constexpr std::chrono::milliseconds kStopWait{500};
}  // namespace

std::optional<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  text = Trim(text);
  size_t n = 0;
  while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
  if (n == 0 || n > 9) return std::nullopt;
  auto number = ParseInt(text.substr(0, n));
  if (!number || *number <= 0) return std::nullopt;
  std::string_view unit = text.substr(n);
  long long ms = 0;
  if (unit == "ms") {
    ms = *number;
  } else if (unit.empty() || unit == "s") {
    ms = *number * 1000LL;
  } else if (unit == "m") {
    ms = *number * 60'000LL;
  } else if (unit == "h") {
    ms = *number * 3'600'000LL;
  } else {
    return std::nullopt;
  }
  return std::chrono::milliseconds(ms);
}

bool ParseListenAddress(std::string_view text, std::string* host, int* port) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::string_view h = text.substr(0, colon);
  std::string_view p = text.substr(colon + 1);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (h.find(':') != std::string_view::npos && text.front() != '[') return false;
  auto number = ParseInt(p);
  if (!number || *number < 0 || *number > 65535 || p.empty()) return false;
  *host = h.empty() ? "0.0.0.0" : std::string(h);
  *port = static_cast<int>(*number);
  return true;
}

int RunExporter(const ExporterFlags& flags) {
  ServerOptions server_options;
  if (!ParseListenAddress(flags.listen, &server_options.host, &server_options.port)) {
    return UsageError(
        "exporter", "--listen must be HOST:PORT, [IPV6]:PORT or :PORT, not '" + flags.listen + "'");
  }
  auto interval = ParseDuration(flags.collect_interval);
  if (!interval || *interval < std::chrono::milliseconds(100)) {
    return UsageError("exporter",
                      "--collect-interval must be a duration of at least 100ms "
                      "(e.g. 15s, 500ms, 1m), not '" +
                          flags.collect_interval + "'");
  }
  if (!flags.root.empty()) {
    struct stat st;
    if (::stat(flags.root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return UsageError("exporter", "--root " + flags.root + " is not a directory");
    }
  }
  if (!flags.kernel_log.empty() && !PathExists(flags.kernel_log)) {
    return UsageError("exporter", "--kernel-log " + flags.kernel_log + ": no such file");
  }
  CollectorOptions options;
  options.root = flags.root;
  options.kernel_log = flags.kernel_log;
  options.nvml.library_path = flags.nvml_lib;
  options.nvml.call_timeout = std::chrono::milliseconds(flags.nvml_timeout_ms);
  options.interval = *interval;
  options.gpuvet_version = GPUVET_VERSION;
  if (!flags.policy.empty()) {
    auto loaded = LoadPolicy(flags.policy);
    if (!loaded.ok()) return UsageError("exporter", loaded.status().message());
    options.policy = std::move(loaded).value();
  }

  // Block the stop signals in every thread created from here on; one thread waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // A client that disconnects mid-response must not kill the process.
  signal(SIGPIPE, SIG_IGN);

  Collector collector(options);
  ExporterServer server(collector, server_options);
  Result<int> port = server.Bind();
  if (!port.ok()) return UsageError("exporter", port.status().message());

  // Serve at once; the first collection runs on the collector's thread, so a kernel file or an
  // NVML call that blocks never keeps the exporter from answering (it is stale and unready).
  collector.Start();

  std::atomic<bool> stopping{false};
  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    stopping = true;
    server.Stop();  // also effective when it comes before Run() starts
  });

  std::string shown_host = server_options.host.find(':') != std::string::npos
                               ? "[" + server_options.host + "]"
                               : server_options.host;
  std::fprintf(stderr, "gpuvet exporter: listening on http://%s:%d/metrics\n", shown_host.c_str(),
               *port);
  std::fflush(stderr);

  bool ran = server.Run();
  if (!stopping) pthread_kill(signal_thread.native_handle(), SIGTERM);  // wake the waiter
  signal_thread.join();
  if (!ran && !stopping) {
    std::fprintf(stderr, "gpuvet exporter: the HTTP server stopped unexpectedly\n");
    std::fflush(stderr);
    if (!collector.StopWithin(kStopWait)) std::_Exit(kExitInternal);
    return kExitInternal;
  }
  // SIGTERM must end the process within a second whatever the collection is doing: a
  // collection blocked in a file read or inside NVML cannot be interrupted, so it is left
  // behind and the process ends without unwinding (nothing is buffered that would be lost).
  if (!collector.StopWithin(kStopWait)) {
    std::fprintf(stderr,
                 "gpuvet exporter: stopped (a collection blocked in NVML or a file read was "
                 "abandoned)\n");
    std::fflush(stderr);
    std::_Exit(kExitHealthy);
  }
  std::fprintf(stderr, "gpuvet exporter: stopped\n");
  return kExitHealthy;
}

void AddExporterCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ExporterFlags>();
  CLI::App* cmd = app.add_subcommand(
      "exporter",
      "Serve this node's GPU metrics and check results to Prometheus (/metrics, /healthz, "
      "/readyz).");
  cmd->add_option("--listen", flags->listen,
                  "Address to listen on: HOST:PORT, [IPV6]:PORT or :PORT for all interfaces "
                  "(port 0 picks a free port; the bound address is printed on stderr)");
  cmd->add_option(
      "--collect-interval", flags->collect_interval,
      "Time between collections (15s, 500ms, 1m); scrapes are served from the last one");
  cmd->add_option("--root", flags->root,
                  "Read /proc, /sys and /dev under this directory (containers, fixture trees)");
  cmd->add_option("--nvml-lib", flags->nvml_lib, "Path of libnvidia-ml.so.1 to load")
      ->envname("GPUVET_NVML_LIB");
  cmd->add_option("--nvml-timeout-ms", flags->nvml_timeout_ms,
                  "Give up on an NVML call after this many milliseconds")
      ->check(CLI::Range(10, 600000));
  cmd->add_option("--kernel-log", flags->kernel_log,
                  "Read Xid reports from this log file instead of /dev/kmsg");
  cmd->add_option("--policy", flags->policy,
                  "Policy file (TOML) for the check results; see docs/policy.md");
  cmd->callback([flags, exit_code] { *exit_code = RunExporter(*flags); });
}

}  // namespace gpuvet
