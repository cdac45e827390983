// `gpuvet fleet audit` and `gpuvet fleet quarantine`: load the fleet (a report directory or the
// Prometheus API) -> audit (rules/fleet_audit) -> render (output/fleet_*) or plan and run the
// quarantine commands (rules/quarantine_plan, cli/fleet_quarantine.cc).
#pragma once

#include <string>
#include <vector>

#include "core/fleet.h"
#include "core/policy.h"
#include "util/status.h"

namespace CLI {
class App;
}

namespace gpuvet {

// Exit codes of `gpuvet fleet quarantine` beyond those of check (0, 1, 2, 3).
inline constexpr int kExitBreaker = 4;       // the circuit breaker refused; nothing was changed
inline constexpr int kExitActionFailed = 5;  // at least one command failed or a node was refused

// Flags shared by audit and quarantine.
struct FleetFlags {
  std::string reports;     // --reports DIR
  std::string prometheus;  // --prometheus URL
  std::string window = "24h";
  std::string policy;
  std::string now;  // --now ISO time: end of the window and the report's timestamp
  double http_timeout_s = 10;
  int http_max_mb = 128;  // --http-max-mb: cap on one Prometheus answer
  // audit
  std::string format = "text";
  bool verbose = false;
  // quarantine
  std::string apply;  // "", "slurm", "k8s"
  std::vector<std::string> undo;
  bool undo_all = false;
  double max_fraction = 0.10;
  double command_timeout_s = 30;
};

// "24h", "30m", "90s", "7d", "1h30m" as seconds; InvalidInput otherwise.
Result<double> ParseDuration(const std::string& text);

// Registers `fleet` with its `audit` and `quarantine` subcommands.
void AddFleetCommand(CLI::App& app, int* exit_code);

// Loads the policy and the fleet and runs the audit. On error prints the message and sets
// *exit_code (kExitUsage); returns false.
bool LoadAndAudit(const FleetFlags& flags, const char* command, FleetReport* report,
                  int* exit_code);

// `gpuvet fleet quarantine` after the audit (or without one for --undo); returns the exit code.
int RunQuarantine(const FleetFlags& flags, const FleetReport* report);

}  // namespace gpuvet
