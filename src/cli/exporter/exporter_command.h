// `gpuvet exporter`: serves the node's GPU metrics and check results to Prometheus.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace gpuvet {

struct ExporterFlags {
  std::string listen = "127.0.0.1:9835";  // --listen HOST:PORT (port 0: any free port)
  std::string collect_interval = "15s";   // --collect-interval
  std::string root;                       // --root
  std::string nvml_lib;                   // --nvml-lib (or GPUVET_NVML_LIB)
  int nvml_timeout_ms = 2000;             // --nvml-timeout-ms
  std::string kernel_log;                 // --kernel-log FILE
  std::string policy;                     // --policy FILE
};

// Registers the `exporter` subcommand on `app`; the callback stores its exit code in *exit_code.
void AddExporterCommand(CLI::App& app, int* exit_code);

// Runs the exporter until SIGINT or SIGTERM. Returns 0 after a clean stop, 2 for bad flags or an
// address that cannot be bound.
int RunExporter(const ExporterFlags& flags);

// "15s", "500ms", "2m", "1h", or plain seconds ("15"); nullopt for anything else or <= 0.
std::optional<std::chrono::milliseconds> ParseDuration(std::string_view text);

// "HOST:PORT", "[V6]:PORT" or ":PORT" (all interfaces) -> host and port; false when malformed.
bool ParseListenAddress(std::string_view text, std::string* host, int* port);

}  // namespace gpuvet
