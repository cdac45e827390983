// `gpuvet report`: read each input (a recording streamed through sources/recording and
// analysis/recording, a JSON document as text) -> one section per input (output/html/html_*) -> one
// page written atomically. Every input is read before anything is written, so a bad input leaves
// no partial page.
#include "cli/report_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "cli/common/cli_util.h"
#include "cli/record/analyze_command.h"
#include "core/hw/gpu_specs.h"
#include "core/report.h"
#include "output/html/html_report.h"
#include "output/html/html_timeline.h"
#include "output/json/analyze_json.h"
#include "util/file.h"

namespace gpuvet {
namespace {

struct ReportFlags {
  std::vector<std::string> inputs;
  std::string out;
  std::string now;
  std::string target;
  double price_per_gpu_hour = 0;
  bool has_target = false, has_price = false;
};

// A recording file is SQLite (docs/recording.md); everything else is read as JSON.
bool LooksLikeRecording(const std::string& path) {
  Result<std::string> head = ReadFile(path, 16);
  return head.ok() && head->size() == 16 &&
         head->compare(0, 16, std::string("SQLite format 3\0", 16)) == 0;
}

int RunReport(const ReportFlags& flags) {
  Result<ReportTime> now = ResolveNow(flags.now);
  if (!now.ok()) return UsageError("report", now.status().message());
  if (flags.has_target && !FindGpuSpec(flags.target)) {
    return UsageError("report",
                      "unknown --target '" + flags.target + "'; known GPUs: " + GpuSpecKeys());
  }
  if (flags.has_price && !(flags.price_per_gpu_hour > 0)) {
    return UsageError("report", "--price-per-gpu-hour must be a positive number");
  }
  std::vector<html::Section> sections;
  std::map<std::string, int> ids;
  for (const std::string& path : flags.inputs) {
    Result<html::Section> section = InvalidInput("");
    if (LooksLikeRecording(path)) {
      AnalyzeOptions options;
      if (flags.has_target) options.target_gpu = flags.target;
      if (flags.has_price) options.price_per_gpu_hour = flags.price_per_gpu_hour;
      html::Timeline timeline;
      Result<AnalyzeReport> report = AnalyzeRecordingFile(path, options, &timeline);
      if (!report.ok()) return UsageError("report", report.status().message());
      report.value().generated_at = now->iso;
      section = html::SectionFromJsonText(RenderAnalyzeJson(*report), path, &timeline, ids);
    } else {
      Result<std::string> text = ReadFile(path);
      if (!text.ok()) return UsageError("report", text.status().message());
      section = html::SectionFromJsonText(*text, path, nullptr, ids);
    }
    if (!section.ok()) return UsageError("report", section.status().message());
    sections.push_back(std::move(section).value());
  }
  std::string page = html::RenderReportPage(sections, now->iso);
  Status written = WriteFileAtomic(flags.out, page);
  if (!written.ok()) return UsageError("report", "-o: " + written.message());
  std::fprintf(stderr, "report written to %s (%zu bytes, %zu input%s)\n", flags.out.c_str(),
               page.size(), sections.size(), sections.size() == 1 ? "" : "s");
  return kExitHealthy;
}

}  // namespace

void AddReportCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write one self-contained HTML page from gpuvet JSON reports (check, bench, trace, "
      "analyze, fleet) and recordings: gpuvet report INPUT... -o report.html");
  cmd->add_option("inputs", flags->inputs, "gpuvet --format json outputs and recording files")
      ->required();
  cmd->add_option("-o,--output", flags->out, "The HTML file to write")->required();
  CLI::Option* target = cmd->add_option(
      "--target", flags->target, "For recordings: forecast the speedup on this GPU (H200, B200 …)");
  CLI::Option* price = cmd->add_option("--price-per-gpu-hour", flags->price_per_gpu_hour,
                                       "For recordings: price of one GPU-hour");
  cmd->add_option("--now", flags->now, "Timestamp to print instead of the clock (tests)");
  cmd->callback([=] {
    flags->has_target = target->count() > 0;
    flags->has_price = price->count() > 0;
    *exit_code = RunReport(*flags);
  });
}

}  // namespace gpuvet
