// The command table: each entry registers one subcommand. Explicit, not self-registering (a
// static library drops unreferenced registrars silently).
#include "cli/commands.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cli/bench_command.h"
#include "cli/build_info.h"
#include "cli/check_command.h"
#include "cli/common/command_suggest.h"
#include "cli/debug_command.h"
#include "cli/explain_command.h"
#include "cli/exporter/exporter_command.h"
#include "cli/fleet_command.h"
#include "cli/record/analyze_command.h"
#include "cli/record/import_command.h"
#include "cli/record/record_command.h"
#include "cli/record/watch_command.h"
#include "cli/report_command.h"
#include "cli/trace_command.h"
#include "core/report.h"

namespace gpuvet {

namespace {

struct CommandEntry {
  const char* name;
  void (*add)(CLI::App& app, int* exit_code);
};

constexpr CommandEntry kCommands[] = {
    {"check", AddCheckCommand},       {"checks", AddChecksCommand},
    {"explain", AddExplainCommand},   {"bench", AddBenchCommand},
    {"trace", AddTraceCommand},       {"debug", AddDebugCommand},
    {"exporter", AddExporterCommand}, {"import", AddImportCommand},
    {"record", AddRecordCommand},     {"watch", AddWatchCommand},
    {"analyze", AddAnalyzeCommand},   {"fleet", AddFleetCommand},
    {"report", AddReportCommand},
};

// The first argument when it names no command (options come first only as --help/--version):
// "unknown command 'chek' — did you mean check?" and exit 2, before CLI11 answers with the
// generic "A subcommand is required". Returns -1 when argv has a command (or none at all).
int RejectUnknownCommand(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return -1;
  std::vector<std::string> names;
  for (const CommandEntry& c : kCommands) {
    if (std::strcmp(c.name, argv[1]) == 0) return -1;
    names.emplace_back(c.name);
  }
  std::optional<std::string> close = SuggestCommand(argv[1], names);
  if (close) {
    std::fprintf(stderr, "gpuvet: unknown command '%s' — did you mean %s?\n", argv[1],
                 close->c_str());
  } else {
    std::fprintf(stderr, "gpuvet: unknown command '%s'; `gpuvet --help` lists the commands\n",
                 argv[1]);
  }
  return kExitUsage;
}

}  // namespace

int RunCommandLine(int argc, char** argv) {
  CLI::App app{"gpuvet: tells you why your GPUs are slow or sick, and what to do about it."};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       std::string("gpuvet ") + BuildVersion() + " (commit " + BuildCommit() + ")");
  app.footer(
      "Exit codes: 0 healthy (warnings allowed), 1 unhealthy (a check failed), 2 usage or input "
      "error, 3 internal error.");
  if (int rc = RejectUnknownCommand(argc, argv); rc >= 0) return rc;
  int exit_code = kExitInternal;
  for (const CommandEntry& c : kCommands) c.add(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  return exit_code;
}

}  // namespace gpuvet
