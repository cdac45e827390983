// `gpuvet import`: the log parsed (sources/smi_log_import) and streamed into the writer
// (sources/recording_store). Exit codes: 0 the recording was written, 2 the log could not be read
// or parsed, or OUT not written.
#include "cli/record/import_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/common/cli_util.h"
#include "core/report.h"
#include "sources/recording/smi_log_import.h"

namespace gpuvet {

namespace {

struct ImportFlags {
  std::string path;
  std::string out;
  std::string format = "auto";
  std::string columns;
  double interval_s = 1.0;
};

int RunImport(const ImportFlags& flags) {
  SmiImportOptions o;
  o.format = flags.format == "dmon"        ? SmiLogFormat::kDmon
             : flags.format == "query-csv" ? SmiLogFormat::kQueryCsv
                                           : SmiLogFormat::kAuto;
  o.csv_columns = flags.columns;
  o.interval_s = flags.interval_s;
  // Streams the log into the writer: two passes over the file a buffer at a time, one
  // transaction per kImportSamplesPerCommit samples. A killed import leaves a readable file of the
  // committed batches, without an end time; a refused log writes nothing.
  SmiRecordingSink sink(flags.out);
  if (Status st = StreamSmiLog(flags.path, o, &sink); !st.ok()) {
    return UsageError("import", st.message());
  }
  const RecordingMeta& meta = sink.meta();
  size_t gpus = meta.gpus.size();
  std::printf("imported %lld samples of %zu GPU%s (interval %.3g s) from %s\n",
              static_cast<long long>(sink.samples()), gpus, gpus == 1 ? "" : "s", meta.interval_s,
              flags.path.c_str());
  auto ignored = meta.notes.find("import.ignored_columns");
  if (ignored != meta.notes.end()) {
    std::printf("ignored columns (no recording field): %s\n", ignored->second.c_str());
  }
  std::printf("recording written to %s\n", flags.out.c_str());
  return kExitHealthy;
}

}  // namespace

void AddImportCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ImportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Turn an `nvidia-smi dmon` or `nvidia-smi --query-gpu=... --format=csv` log into a "
      "recording for `gpuvet analyze`");
  cmd->add_option("file", flags->path, "The nvidia-smi log")->required();
  cmd->add_option("-o,--output", flags->out, "The recording to write")->required();
  cmd->add_option("--format", flags->format, "Log format: auto, dmon or query-csv")
      ->check(CLI::IsMember({"auto", "dmon", "query-csv"}));
  cmd->add_option("--columns", flags->columns,
                  "The --query-gpu field list of a CSV log written with `noheader`");
  cmd->add_option("--interval", flags->interval_s,
                  "Seconds between samples when the log has no timestamps (default 1)")
      ->check(CLI::Range(0.001, 86400.0));
  cmd->callback([flags, exit_code] { *exit_code = RunImport(*flags); });
}

}  // namespace gpuvet
