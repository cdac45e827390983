// `gpuvet debug dump-nvml`: record this node's NVML answers as a fake-NVML scenario.
#include "cli/debug_command.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>

#include "core/report.h"
#include "sources/nvml/nvml_source.h"
#include "sources/nvml/scenario_json.h"
#include "util/file.h"

namespace gpuvet {

namespace {

struct DumpFlags {
  std::string nvml_lib;
  std::string output;
  int timeout_ms = 2000;
};

int DumpNvml(const DumpFlags& flags) {
  NvmlOptions opts;
  opts.library_path = flags.nvml_lib;
  opts.call_timeout = std::chrono::milliseconds(flags.timeout_ms);
  GpuInventory inv = ReadNvml(opts);
  if (inv.state != GpuSourceState::kOk) {
    std::fprintf(stderr, "gpuvet debug dump-nvml: NVML unavailable: %s\n", inv.detail.c_str());
    return kExitUsage;
  }
  std::string json = WriteScenario(inv);
  if (flags.output.empty() || flags.output == "-") {
    std::fwrite(json.data(), 1, json.size(), stdout);
    return kExitHealthy;
  }
  if (Status s = WriteFileAtomic(flags.output, json); !s.ok()) {
    std::fprintf(stderr, "gpuvet debug dump-nvml: %s\n", s.message().c_str());
    return kExitUsage;
  }
  std::fprintf(stderr, "wrote %zu GPU(s) to %s\n", inv.gpus.size(), flags.output.c_str());
  return kExitHealthy;
}

}  // namespace

void AddDebugCommand(CLI::App& app, int* exit_code) {
  CLI::App* debug = app.add_subcommand("debug", "");  // empty description: hidden from help
  debug->group("");
  debug->require_subcommand(1);
  auto flags = std::make_shared<DumpFlags>();
  CLI::App* dump = debug->add_subcommand(
      "dump-nvml",
      "Write this node's NVML answers as a fake-NVML scenario (docs/nvml-scenario.md)");
  dump->add_option("-o,--output", flags->output, "Output file (default: stdout)");
  dump->add_option("--nvml-lib", flags->nvml_lib, "Path of libnvidia-ml.so.1 to load")
      ->envname("GPUVET_NVML_LIB");
  dump->add_option("--nvml-timeout-ms", flags->timeout_ms, "Per-call timeout");
  // Its own exit codes: the inherited footer would promise check's healthy/unhealthy meanings.
  dump->footer(
      "Exit codes: 0 scenario written, 2 usage error, NVML unavailable or output not writable, "
      "3 internal error.");
  dump->callback([flags, exit_code] { *exit_code = DumpNvml(*flags); });
}

}  // namespace gpuvet
