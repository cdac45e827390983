// `gpuvet fleet`: flag parsing, loading the fleet from either source, the audit and its output.
// Exit codes of audit: 0 no node to quarantine, 1 at least one, 2 usage or input error.
#include "cli/fleet_command.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/common/cli_util.h"
#include "core/report.h"
#include "output/json/fleet_json.h"
#include "output/text/fleet_text.h"
#include "rules/fleet/fleet_audit.h"
#include "sources/fleet/fleet_prometheus.h"
#include "sources/fleet/fleet_reports.h"
#include "util/strings.h"

#ifndef GPUVET_VERSION
#define GPUVET_VERSION "dev"
#endif

namespace gpuvet {

Result<double> ParseDuration(const std::string& text) {
  double total = 0;
  size_t i = 0;
  if (text.empty()) return InvalidInput("empty duration");
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
      ++i;
    }
    if (start == i || i == text.size()) {
      return InvalidInput(fmt::format("'{}' is not a duration like 24h, 30m, 90s or 7d", text));
    }
    std::optional<double> n = ParseDouble(text.substr(start, i - start));
    double unit = 0;
    switch (text[i]) {
      case 's':
        unit = 1;
        break;
      case 'm':
        unit = 60;
        break;
      case 'h':
        unit = 3600;
        break;
      case 'd':
        unit = 86400;
        break;
    }
    if (!n || unit == 0) {
      return InvalidInput(fmt::format("'{}' is not a duration like 24h, 30m, 90s or 7d", text));
    }
    total += *n * unit;
    ++i;
  }
  if (total <= 0) return InvalidInput(fmt::format("duration '{}' must be positive", text));
  return total;
}

bool LoadAndAudit(const FleetFlags& flags, const char* command, FleetReport* report,
                  int* exit_code) {
  auto fail = [&](const std::string& message) {
    *exit_code = UsageError(command, message);
    return false;
  };
  if (flags.reports.empty() == flags.prometheus.empty()) {
    return fail("give exactly one of --reports DIR or --prometheus URL");
  }
  Result<double> window = ParseDuration(flags.window);
  if (!window.ok()) return fail("--window: " + window.status().message());
  Result<ReportTime> now = ResolveNow(flags.now);
  if (!now.ok()) return fail(now.status().message());
  Policy policy;
  if (!flags.policy.empty()) {
    auto loaded = LoadPolicy(flags.policy);
    if (!loaded.ok()) return fail(loaded.status().message());
    policy = std::move(loaded).value();
  }
  Result<FleetInput> input = InvalidInput("no input");
  if (!flags.reports.empty()) {
    input = ReadFleetReports(flags.reports, now->unix_s, *window);
  } else {
    auto client = PrometheusClient::Create(flags.prometheus, flags.http_timeout_s,
                                           static_cast<size_t>(flags.http_max_mb) << 20);
    if (!client.ok()) return fail(client.status().message());
    input = ReadFleetFromPrometheus(*client.value(), now->unix_s, *window);
  }
  if (!input.ok()) return fail(input.status().message());
  if (input->nodes.empty()) {
    return fail(fmt::format("{}: no gpuvet check or bench report found ({} files skipped{})",
                            input->origin, input->skipped.size(),
                            input->skipped.empty() ? ""
                                                   : ", e.g. " + input->skipped[0].source + ": " +
                                                         input->skipped[0].reason));
  }
  *report = AuditFleet(*input, policy);
  report->gpuvet_version = GPUVET_VERSION;
  report->generated_at = now->iso;
  return true;
}

namespace {

int RunAudit(const FleetFlags& flags) {
  if (flags.format != "text" && flags.format != "json") {
    return UsageError("fleet audit", "--format must be text or json, not '" + flags.format + "'");
  }
  FleetReport report;
  int exit_code = 0;
  if (!LoadAndAudit(flags, "fleet audit", &report, &exit_code)) return exit_code;
  bool quarantine = false;
  for (const FleetNodeResult& n : report.nodes) quarantine = quarantine || n.quarantine;
  exit_code = quarantine ? kExitUnhealthy : kExitHealthy;
  std::string out = flags.format == "json" ? RenderFleetJson(report, exit_code)
                                           : RenderFleetText(report, flags.verbose);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return exit_code;
}

void AddInputFlags(CLI::App* cmd, FleetFlags* f) {
  cmd->add_option("--reports", f->reports,
                  "Directory (recursive) of `gpuvet check/bench --format json` reports");
  cmd->add_option("--prometheus", f->prometheus,
                  "Prometheus base URL scraping `gpuvet exporter` (http://host:9090)");
  cmd->add_option("--window", f->window, "Audit window for trends: 24h, 30m, 7d (default 24h)");
  cmd->add_option("--policy", f->policy, "Policy file ([driver], [fleet]); see docs/policy.md");
  cmd->add_option("--now", f->now, "End of the window and report timestamp (ISO 8601; tests)");
  cmd->add_option("--http-timeout", f->http_timeout_s,
                  "Seconds per Prometheus request, for the whole request (connect to last byte)")
      ->check(CLI::Range(0.1, 600.0));
  cmd->add_option("--http-max-mb", f->http_max_mb,
                  "Refuse a Prometheus answer larger than this many MiB (default 128)")
      ->check(CLI::Range(1, 65536));
}

}  // namespace

void AddFleetCommand(CLI::App& app, int* exit_code) {
  CLI::App* fleet = app.add_subcommand(
      "fleet", "Which nodes of the fleet drifted, degraded or regressed, and which to drain?");
  fleet->require_subcommand(1);

  auto audit_flags = std::make_shared<FleetFlags>();
  CLI::App* audit = fleet->add_subcommand(
      "audit", "Rank the fleet's nodes by what is wrong with them and list those to quarantine");
  AddInputFlags(audit, audit_flags.get());
  audit->add_option("--format", audit_flags->format, "Output format: text or json");
  audit->add_flag("-v,--verbose", audit_flags->verbose, "Add each finding's meaning and decision");
  audit->callback([audit_flags, exit_code] { *exit_code = RunAudit(*audit_flags); });

  auto q = std::make_shared<FleetFlags>();
  CLI::App* quarantine = fleet->add_subcommand(
      "quarantine",
      "Print (or with --apply run) the Slurm drain / Kubernetes taint commands for the nodes the "
      "audit quarantines, or undo them");
  AddInputFlags(quarantine, q.get());
  quarantine->add_option("--apply", q->apply, "Run the commands: slurm or k8s")
      ->check(CLI::IsMember({"slurm", "k8s"}));
  quarantine->add_option("--undo", q->undo, "Release these nodes (Slurm: only drains gpuvet set)")
      ->expected(1, -1);
  quarantine->add_flag("--undo-all", q->undo_all, "Release every node gpuvet quarantined");
  quarantine
      ->add_option("--max-fraction", q->max_fraction,
                   "Circuit breaker: refuse to quarantine more than this share of the fleet "
                   "at once (default 0.10; at least one node is always allowed)")
      ->check(CLI::Range(0.0, 1.0));
  quarantine
      ->add_option("--command-timeout", q->command_timeout_s,
                   "Seconds each scontrol/kubectl call may take")
      ->check(CLI::Range(0.1, 3600.0));
  quarantine->callback([q, exit_code] {
    if (!q->undo.empty() || q->undo_all) {
      if (!q->reports.empty() || !q->prometheus.empty()) {
        *exit_code = UsageError("fleet quarantine",
                                "--undo/--undo-all release nodes; they take no --reports or "
                                "--prometheus");
        return;
      }
      *exit_code = RunQuarantine(*q, nullptr);
      return;
    }
    FleetReport report;
    if (!LoadAndAudit(*q, "fleet quarantine", &report, exit_code)) return;
    *exit_code = RunQuarantine(*q, &report);
  });
}

}  // namespace gpuvet
