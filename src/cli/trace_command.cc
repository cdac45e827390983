// `gpuvet trace`: read (sources/trace_input) -> analyse (analysis/) -> render (output/trace_*).
// Exit codes: 0 a report was produced (whatever it says), 2 nothing could be read, 3 internal.
#include "cli/trace_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "analysis/trace/analyze.h"
#include "analysis/trace/trace_compare.h"
#include "analysis/trace/trace_forecast.h"
#include "cli/common/cli_util.h"
#include "core/hw/gpu_specs.h"
#include "core/report.h"
#include "output/forecast_render.h"
#include "output/html/html_report.h"
#include "output/json/trace_compare_json.h"
#include "output/json/trace_json.h"
#include "output/text/trace_compare_text.h"
#include "output/text/trace_text.h"
#include "sources/trace/trace_input.h"
#include "util/file.h"

namespace gpuvet {

namespace {

struct TraceFlags {
  std::string path;
  std::string compare;  // run B of `--compare` ("" when not comparing)
  std::string format = "text";
  std::string color = "auto";
  std::string html;                   // --html FILE: also write the report as an HTML page
  std::optional<std::string> target;  // --target: upgrade forecast to this GPU ("list": the table)
  std::optional<std::string> source;  // --source: the trace's GPU when it does not say
};

// With --html FILE, writes the page of `json` (the report as the JSON renderer wrote it, so page
// and JSON agree). Healthy, or a usage error naming what could not be written.
int WriteHtml(const TraceFlags& flags, const std::string& json) {
  if (flags.html.empty()) return kExitHealthy;
  Result<ReportTime> now = ResolveNow("");
  Result<std::string> page =
      html::RenderHtmlFromJson(json, flags.path, nullptr, now.ok() ? now->iso : "");
  Status written = page.ok() ? WriteFileAtomic(flags.html, *page) : page.status();
  if (!written.ok()) return UsageError("trace", "--html: " + written.message());
  return kExitHealthy;
}

// `gpuvet trace A --compare B`: both inputs must be readable; the comparison is the output.
int RunCompare(const TraceFlags& flags) {
  if (flags.target) {
    return UsageError("trace",
                      "--target is not available with --compare: forecast each run on "
                      "its own (gpuvet trace A --target GPU)");
  }
  Result<TraceInput> a = ReadTraceInput(flags.path);
  Result<TraceInput> b = a.ok() ? ReadTraceInput(flags.compare) : Result<TraceInput>(a.status());
  for (const Result<TraceInput>* in : {&a, &b}) {
    if (in->ok()) continue;
    std::fprintf(stderr, "gpuvet trace --compare: %s\n", in->status().message().c_str());
    return kExitUsage;
  }
  std::vector<std::string> problems_a = a->problems, problems_b = b->problems;
  TraceComparison c =
      CompareTraces(std::move(a.value().ranks), std::move(b.value().ranks), TraceOptions{});
  c.a.problems = std::move(problems_a);
  c.b.problems = std::move(problems_b);
  std::string out = flags.format == "json" ? RenderTraceCompareJson(c)
                                           : RenderTraceCompareText(c, UseColor(flags.color));
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return WriteHtml(flags, RenderTraceCompareJson(c));
}

int RunTrace(const TraceFlags& flags) {
  const GpuSpec* target = nullptr;
  if (flags.target) {
    if (*flags.target == "list") {
      std::string list = RenderGpuSpecList();
      std::fwrite(list.data(), 1, list.size(), stdout);
      return kExitHealthy;
    }
    target = FindGpuSpec(*flags.target);
    if (!target) {
      return UsageError("trace", "unknown --target '" + *flags.target +
                                     "'; known GPUs: " + GpuSpecKeys() + " (or --target list)");
    }
  }
  if (flags.source && !FindGpuSpec(*flags.source)) {
    return UsageError("trace",
                      "unknown --source '" + *flags.source + "'; known GPUs: " + GpuSpecKeys());
  }
  if (flags.path.empty()) return UsageError("trace", "a trace file or directory is required");
  if (!flags.compare.empty()) return RunCompare(flags);
  Result<TraceInput> input = ReadTraceInput(flags.path);
  if (!input.ok()) {
    std::fprintf(stderr, "gpuvet trace: %s\n", input.status().message().c_str());
    return kExitUsage;
  }
  std::vector<std::string> problems = input->problems;
  TraceOptions options;
  options.time_budget = target != nullptr;
  TraceReport report = AnalyzeTraces(std::move(input.value().ranks), options);
  if (target) ForecastTraceReport(report, *target, flags.source);
  // Files of a directory that could not be read at all still belong in the report.
  for (const std::string& p : problems) {
    Finding f;
    f.id = "trace.input";
    f.subject = "input";
    f.severity = Severity::kWarn;
    f.summary = "skipped a file that could not be read: " + p;
    report.findings.push_back(std::move(f));
    report.worst = std::max(report.worst, Severity::kWarn);
  }
  std::string out = flags.format == "json" ? RenderTraceJson(report)
                                           : RenderTraceText(report, UseColor(flags.color));
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return WriteHtml(flags, RenderTraceJson(report));
}

}  // namespace

void AddTraceCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<TraceFlags>();
  CLI::App* cmd = app.add_subcommand(
      "trace",
      "Diagnose a PyTorch profiler (Kineto JSON, .json.gz) or Nsight Systems (SQLite "
      "export) trace: what does the GPU wait on?");
  cmd->add_option("--compare", flags->compare,
                  "Compare with run B (a trace file or a directory of per-rank traces): what "
                  "makes B slower or faster per step than the first path (run A)");
  // Not required by CLI11 so that `trace --target list` needs no path; RunTrace insists otherwise.
  cmd->add_option("path", flags->path, "Trace file, or a directory of per-rank trace files");
  cmd->add_option("--format", flags->format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--color", flags->color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("--html", flags->html,
                  "Also write the report as one self-contained HTML page to this file");
  cmd->add_option("--target", flags->target,
                  "Forecast the speedup on this GPU (H200, B200, H100 SXM …; 'list' for the "
                  "table)");
  cmd->add_option("--source", flags->source,
                  "The GPU the trace ran on, when its deviceProperties do not say");
  cmd->callback([flags, exit_code] { *exit_code = RunTrace(*flags); });
}

}  // namespace gpuvet
