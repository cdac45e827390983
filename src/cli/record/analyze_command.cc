// `gpuvet analyze`: read (sources/recording_store, streamed through a RecordingCursor twice, and a
// third time for --html's timeline, each pass read ahead on a second thread) -> analyse
// (analysis/recording_analyze, RecordingAnalysis) -> render (output/analyze_*). Memory is bounded
// whatever the length of the recording. Exit codes: 0 a report was produced, 2 nothing usable to
// read or a bad flag, 3 internal.
#include "cli/record/analyze_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "analysis/recording/recording_analyze.h"
#include "analysis/trace/analyze.h"
#include "cli/common/cli_util.h"
#include "core/hw/gpu_specs.h"
#include "core/report.h"
#include "output/html/html_report.h"
#include "output/html/html_timeline.h"
#include "output/json/analyze_json.h"
#include "output/text/analyze_text.h"
#include "sources/recording/read_ahead.h"
#include "sources/recording/recording_store.h"
#include "sources/trace/trace_input.h"
#include "util/file.h"

namespace gpuvet {

Result<AnalyzeReport> AnalyzeRecordingFile(const std::string& path, const AnalyzeOptions& options,
                                           html::Timeline* timeline) {
  RecordingParts survey_parts;
  survey_parts.disks = survey_parts.nets = survey_parts.host = survey_parts.process_details = false;
  auto cursor = RecordingCursor::Open(path, survey_parts);
  if (!cursor.ok()) return cursor.status();
  RecordingCursor& c = **cursor;
  RecordingAnalysis analysis(c.meta(), options, static_cast<size_t>(c.sample_rows()));
  // Each pass reads the file on a second thread, ahead of the analysis on this one.
  auto next = [&c](Sample* s) { return c.Next(s); };
  // First pass: which GPUs the workload used and the means of the memory series. It reads the
  // GPUs and the processes' RSS only, so it costs less than the second.
  ForEachSampleReadAhead(next, [&analysis](const Sample& s) { analysis.Survey(s); });
  if (Status st = c.Rewind(RecordingParts()); !st.ok()) return st;
  std::optional<html::TimelineBuilder> builder;
  if (timeline != nullptr) builder.emplace();
  ForEachSampleReadAhead(next, [&](const Sample& s) {
    analysis.Add(s);
    if (builder) builder->Scan(s);
  });
  std::vector<std::string> input;
  if (!c.damage().empty()) {
    input.push_back("the recording is damaged: " + c.damage() +
                    "; the results cover those samples only");
  }
  input.insert(input.end(), c.warnings().begin(), c.warnings().end());
  AnalyzeReport report = analysis.Finish(c.events(), input);
  report.source = path;
  if (builder) {
    // A third pass draws the timeline: its buckets need the extent the second pass found. A
    // recording that cannot be read again gets a page without one.
    builder->Start(c.meta());
    if (c.Rewind(RecordingParts()).ok()) {
      ForEachSampleReadAhead(next, [&builder](const Sample& s) { builder->Add(s); });
      *timeline = builder->Finish(c.events());
    }
  }
  return report;
}

int AnalyzeAndPrint(const std::string& path, const AnalyzeFlags& flags) {
  if (flags.target && !FindGpuSpec(*flags.target)) {
    return UsageError("analyze",
                      "unknown --target '" + *flags.target + "'; known GPUs: " + GpuSpecKeys());
  }
  if (flags.price_per_gpu_hour && !(*flags.price_per_gpu_hour > 0)) {
    return UsageError("analyze", "--price-per-gpu-hour must be a positive number");
  }
  Result<ReportTime> now = ResolveNow(flags.now);
  if (!now.ok()) return UsageError("analyze", now.status().message());
  AnalyzeOptions options;
  if (flags.trace) {
    if (!flags.target) return UsageError("analyze", "--trace refines --target: give both");
    Result<TraceInput> input = ReadTraceInput(*flags.trace);
    if (!input.ok()) return UsageError("analyze", input.status().message());
    TraceOptions topt;
    topt.time_budget = true;
    TraceReport tr = AnalyzeTraces(std::move(input.value().ranks), topt);
    // The first rank with GPU work (its steady state when start-up was detected) splits the
    // busy time; docs/forecast.md gives the rules.
    for (const RankAnalysis& a : tr.ranks) {
      const RankAnalysis& w = a.steady_state.empty() ? a : a.steady_state.front();
      if (w.budget.parts.empty()) continue;
      options.trace_budget = w.budget;
      options.trace_gpu = a.gpu_name;
      options.trace_label = a.subject;
      break;
    }
    if (!options.trace_budget) {
      return UsageError("analyze", "--trace " + *flags.trace + ": no GPU work in the trace");
    }
  }
  options.target_gpu = flags.target;
  options.price_per_gpu_hour = flags.price_per_gpu_hour;
  html::Timeline timeline;
  Result<AnalyzeReport> analysed =
      AnalyzeRecordingFile(path, options, flags.html.empty() ? nullptr : &timeline);
  if (!analysed.ok()) return UsageError("analyze", analysed.status().message());
  AnalyzeReport& report = analysed.value();
  report.generated_at = now->iso;
  std::string out = flags.format == "json" ? RenderAnalyzeJson(report)
                                           : RenderAnalyzeText(report, UseColor(flags.color));
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (!flags.html.empty()) {
    Result<std::string> page =
        html::RenderHtmlFromJson(RenderAnalyzeJson(report), path, &timeline, now->iso);
    Status written = page.ok() ? WriteFileAtomic(flags.html, *page) : page.status();
    if (!written.ok()) return UsageError("analyze", "--html: " + written.message());
  }
  return kExitHealthy;
}

void AddAnalyzeCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<AnalyzeFlags>();
  auto path = std::make_shared<std::string>();
  auto target = std::make_shared<std::string>();
  auto price = std::make_shared<double>(0);
  CLI::App* cmd = app.add_subcommand(
      "analyze",
      "Diagnose a recording (gpuvet record, gpuvet import): what the job waited on, phase by "
      "phase, and whether a bigger GPU would help");
  cmd->add_option("file", *path, "Recording file")->required();
  cmd->add_option("--format", flags->format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--color", flags->color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  CLI::Option* target_opt = cmd->add_option(
      "--target", *target, "Forecast the speedup on this GPU (H200, H100 SXM, B200, A100 80GB …)");
  CLI::Option* price_opt =
      cmd->add_option("--price-per-gpu-hour", *price, "Price of one GPU-hour, for work per dollar");
  cmd->add_option("--html", flags->html,
                  "Also write the report as one self-contained HTML page to this file");
  cmd->add_option("--trace", flags->trace,
                  "A profiler trace taken during the recording: splits the busy time of the "
                  "--target forecast by what the kernels were");
  cmd->add_option("--now", flags->now, "Timestamp to print instead of the clock (tests)");
  cmd->callback([=] {
    if (target_opt->count()) flags->target = *target;
    if (price_opt->count()) flags->price_per_gpu_hour = *price;
    *exit_code = AnalyzeAndPrint(*path, *flags);
  });
}

}  // namespace gpuvet
