// `gpuvet bench`. Every input error (bad flag, unreadable policy or baseline) is reported as exit
// code 2 before anything is measured, so a typo never costs a benchmark run. The progress bar
// goes to stderr and only to a terminal, so redirected output stays machine-readable.
#include "cli/bench_command.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "cli/common/cli_util.h"
#include "core/bench.h"
#include "core/bench_document.h"
#include "core/policy.h"
#include "core/report.h"
#include "output/html/html_report.h"
#include "output/json/bench_json.h"
#include "output/text/bench_text.h"
#include "rules/bench_rules.h"
#include "sources/bench/bench_engine.h"
#include "util/file.h"
#include "util/strings.h"

#ifndef GPUVET_VERSION
#define GPUVET_VERSION "dev"
#endif

namespace gpuvet {

namespace {

// "0,1,3" -> {0, 1, 3}; an InvalidInput naming the bad entry otherwise.
Result<std::vector<int>> ParseGpuList(const std::string& text) {
  std::vector<int> out;
  if (Trim(text).empty()) return out;
  for (std::string_view part : Split(text, ',')) {
    auto v = ParseInt(part);
    if (!v || *v < 0 || *v > 1023) {
      return InvalidInput(fmt::format("--gpus: '{}' is not a GPU index (expected e.g. 0,1)",
                                      std::string(Trim(part))));
    }
    out.push_back(static_cast<int>(*v));
  }
  return out;
}

// A one-line bar redrawn in place: "[#####.....]  42 %  gpu0 h2d_pinned".
void DrawProgress(std::string_view step, double fraction) {
  constexpr int kBar = 30;
  int done = static_cast<int>(fraction * kBar + 0.5);
  done = done < 0 ? 0 : (done > kBar ? kBar : done);
  std::string bar(done, '#');
  bar += std::string(kBar - done, '.');
  std::fprintf(stderr, "\r[%s] %3.0f %%  %-40.40s", bar.c_str(), fraction * 100,
               std::string(step).c_str());
  std::fflush(stderr);
}

}  // namespace

int RunBench(const BenchFlags& flags) {
  if (flags.quick && flags.full)
    return UsageError("bench", "--quick and --full exclude each other");
  if (!flags.plan.empty() && flags.plan != "tiny") {
    return UsageError("bench", "--plan takes only 'tiny' (a test plan for the fake driver)");
  }
  if (flags.format != "text" && flags.format != "json") {
    return UsageError("bench", "--format must be text or json, not '" + flags.format + "'");
  }
  auto gpus = ParseGpuList(flags.gpus);
  if (!gpus.ok()) return UsageError("bench", gpus.status().message());

  Policy policy;
  if (!flags.policy.empty()) {
    auto loaded = LoadPolicy(flags.policy);
    if (!loaded.ok()) return UsageError("bench", loaded.status().message());
    policy = std::move(loaded).value();
  }
  BenchBaseline baseline;
  if (!flags.baseline.empty()) {
    auto text = ReadFile(flags.baseline, 64 << 20);
    if (!text.ok()) return UsageError("bench", "cannot read baseline: " + text.status().message());
    auto parsed = ParseBenchBaseline(text.value(), flags.baseline);
    if (!parsed.ok()) return UsageError("bench", parsed.status().message());
    baseline = std::move(parsed).value();
  }
  if (!flags.root.empty()) {
    struct stat st;
    if (::stat(flags.root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return UsageError("bench", "--root " + flags.root + " is not a directory");
    }
  }

  Result<ReportTime> now = ResolveNow(flags.now);
  if (!now.ok()) return UsageError("bench", now.status().message());

  BenchOptions options;
  options.cuda_lib = flags.cuda_lib;
  options.full = flags.full;
  options.numa_compare = flags.numa_compare;
  options.gpus = gpus.value();
  options.paths = HostPaths(flags.root);
  const bool progress = ::isatty(STDERR_FILENO) == 1;
  // The driver calls are not individually time-bounded, so the whole run is: the engine runs on
  // its own thread and keeps `live` current (the run so far, the step, the call in flight); if
  // the driver stops answering, the report keeps what was measured and says where it hung, and
  // the process exits without waiting for the stuck thread.
  auto live = std::make_shared<BenchLive>();
  options.live = live;
  if (progress) options.progress = DrawProgress;
  int timeout_s = flags.timeout_s;
  if (timeout_s <= 0) timeout_s = flags.full ? 1800 : 300;

  BenchReport report;
  report.gpuvet_version = GPUVET_VERSION;
  report.generated_at = now->iso;
  report.policy_source = policy.source;
  report.baseline_source = flags.baseline;
  auto result = std::make_shared<std::promise<BenchRun>>();
  std::future<BenchRun> done = result->get_future();
  const bool tiny = flags.plan == "tiny";
  std::thread([result, options, tiny] {
    result->set_value(tiny ? RunBenchmarksWithPlan(options, bench::TinyPlan())
                           : RunBenchmarks(options));
  }).detach();
  bool hung = done.wait_for(std::chrono::seconds(timeout_s)) != std::future_status::ready;
  if (hung) {
    report.run = TimedOutRun(*live, timeout_s);
    if (report.run.mode.empty()) report.run.mode = tiny ? "tiny" : (flags.full ? "full" : "quick");
  } else {
    report.run = done.get();
  }
  if (progress) std::fprintf(stderr, "\r%-80s\r", "");
  if (report.run.state == BenchState::kBadRequest) {
    if (hung) std::fflush(stderr);
    return UsageError("bench", report.run.detail);
  }
  if (!options.gpus.empty() && (report.run.state == BenchState::kDriverMissing ||
                                report.run.state == BenchState::kNoDevice)) {
    // --gpus names GPUs that cannot exist here: a usage error, as with a driver that lists fewer.
    std::vector<std::string> asked;
    for (int g : options.gpus) asked.push_back(std::to_string(g));
    return UsageError("bench", fmt::format("--gpus {}: no such GPU, no CUDA device is visible ({})",
                                           Join(asked, ","), report.run.detail));
  }

  BenchJudgement judged =
      JudgeBench(report.run, policy, flags.baseline.empty() ? nullptr : &baseline);
  report.expectations = std::move(judged.expectations);
  report.findings = std::move(judged.findings);
  report.verdict = WorstSeverity(report.findings);

  std::string rendered;
  if (flags.format == "json") {
    rendered = RenderBenchJson(report);
  } else {
    TextOptions text;
    text.color = UseColor(flags.color);
    text.verbose = flags.verbose;
    rendered = RenderBenchText(report, text);
  }
  std::fwrite(rendered.data(), 1, rendered.size(), stdout);
  std::fflush(stdout);
  if (!flags.html.empty()) {
    Result<std::string> page =
        html::RenderHtmlFromJson(RenderBenchJson(report), "gpuvet bench", nullptr, now->iso);
    Status written = page.ok() ? WriteFileAtomic(flags.html, *page) : page.status();
    if (!written.ok()) return UsageError("bench", "--html: " + written.message());
  }
  // Nothing measured is not a pass: the node's GPUs were never exercised.
  const int code = report.verdict == Severity::kFail || NothingMeasured(report.run) ? kExitUnhealthy
                                                                                    : kExitHealthy;
  // A thread stuck inside the driver must not hold the exit up (static destructors would wait
  // on the driver's locks): leave at once.
  if (hung) {
    std::fflush(stderr);
    std::_Exit(code);
  }
  return code;
}

void AddBenchCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<BenchFlags>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "Are this node's GPUs as fast as they should be? Measures copies, memory, compute, launch "
      "cost and P2P, and judges each figure against what the GPU and link should deliver.");
  cmd->add_flag("--quick", flags->quick, "Short run, about 10 s (the default)");
  cmd->add_flag("--full", flags->full, "Longer run with larger buffers and more samples");
  cmd->add_flag("--numa-compare", flags->numa_compare,
                "Also copy from a NUMA node remote to each GPU (the cost of the wrong socket)");
  cmd->add_option("--gpus", flags->gpus, "CUDA ordinals to measure, e.g. 0,1 (default: all)");
  cmd->add_option("--baseline", flags->baseline,
                  "Compare with an earlier `gpuvet bench --format json` output");
  cmd->add_option("--policy", flags->policy, "Policy file (TOML); see docs/policy.md [bench]");
  cmd->add_option("--format", flags->format, "Output format: text or json");
  cmd->add_option("--cuda-lib", flags->cuda_lib, "Path of libcuda.so.1 to load")
      ->envname("GPUVET_CUDA_LIB");
  cmd->add_option("--root", flags->root, "Read /sys under this directory (fixture trees)");
  cmd->add_option("--html", flags->html,
                  "Also write the report as one self-contained HTML page to this file");
  cmd->add_option("--now", flags->now, "Timestamp to print instead of the clock (tests)");
  cmd->add_option("--color", flags->color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_flag("-v,--verbose", flags->verbose, "Also list passed checks and every meaning");
  cmd->add_option("--timeout-s", flags->timeout_s,
                  "Give up when the driver does not answer for this long (default 300, 1800 with "
                  "--full)")
      ->check(CLI::Range(1, 86400));
  cmd->add_option("--plan", flags->plan, "")->group("");  // hidden: "tiny" for the fake driver
  cmd->callback([flags, exit_code] { *exit_code = RunBench(*flags); });
}

}  // namespace gpuvet
