// `gpuvet analyze FILE`: what a recorded job waited on, phase by phase, and whether a bigger GPU
// would help. Also the entry `record` calls when the workload ends (AnalyzeAndPrint).
#pragma once

#include <optional>
#include <string>

#include "analysis/recording/recording_options.h"
#include "core/analyze_report.h"
#include "util/status.h"

namespace CLI {
class App;
}

namespace gpuvet {

namespace html {
struct Timeline;
}

// Streams the recording at `path` through the analysis (two passes of a RecordingCursor) and,
// when `timeline` is given, a third pass that fills it for the HTML page; memory does not grow
// with the length of the recording. `report.source` is `path`; `generated_at` is left to the
// caller. An error when the file cannot be opened or read (garbled, not a recording).
Result<AnalyzeReport> AnalyzeRecordingFile(const std::string& path, const AnalyzeOptions& options,
                                           html::Timeline* timeline);

struct AnalyzeFlags {
  std::string format = "text";               // "text" or "json"
  std::string color = "auto";                // auto, always, never
  std::optional<std::string> target;         // --target GPU model for the upgrade forecast
  std::optional<double> price_per_gpu_hour;  // --price-per-gpu-hour
  std::optional<std::string> trace;  // --trace: a trace taken during the recording (forecast)
  std::string now;                   // --now: timestamp instead of the clock (tests); empty = clock
  std::string html;  // --html FILE: also write the HTML report (output/html/html_report.h) there
};

// Reads the recording at `path`, analyses it and prints the report on stdout (and, with
// `flags.html`, writes the HTML page with every sample on its timeline). Returns 0 when a
// report was printed (whatever it says), 2 when the file cannot be read (garbled, truncated, not
// a recording; the message names the file on stderr) or the target GPU is unknown.
int AnalyzeAndPrint(const std::string& path, const AnalyzeFlags& flags);

void AddAnalyzeCommand(CLI::App& app, int* exit_code);

}  // namespace gpuvet
