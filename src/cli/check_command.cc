// `gpuvet check`: the node acceptance suite. Sources -> rules -> renderer, with every input error
// (bad flag, unreadable policy or capture) reported as exit code 2 before anything is measured.
#include "cli/check_command.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "cli/common/cli_util.h"
#include "core/catalogue.h"
#include "core/host_paths.h"
#include "core/policy.h"
#include "core/report.h"
#include "output/html/html_report.h"
#include "output/json/json_renderer.h"
#include "output/metrics/metrics_renderer.h"
#include "output/text/text_renderer.h"
#include "rules/rules.h"
#include "sources/host/host_source.h"
#include "sources/kmsg/kernel_log.h"
#include "sources/nvml/nvidia_smi_text.h"
#include "sources/nvml/nvml_source.h"
#include "util/file.h"
#include "util/strings.h"

#ifndef GPUVET_VERSION
#define GPUVET_VERSION "dev"
#endif

namespace gpuvet {

namespace {

// Areas whose checks read only GPU data; with --nvidia-smi-xml only these run (the capture comes
// from another machine, so this host's /proc and /sys say nothing about it).
bool IsGpuArea(std::string_view area) {
  return IsGpuOnlyArea(area);  // the rule table's gpu_only column
}

// Areas judged from the kernel log alone (Xid, kernel signals, and whether the log was read):
// with --nvidia-smi-xml they run on the capture's --kernel-log.
bool IsKernelLogArea(std::string_view area) { return area == "xid" || area == "kernel"; }

bool Matches(const std::vector<std::string>& selectors, const std::string& id) {
  for (const std::string& s : selectors) {
    if (s == id || s == AreaOf(id)) return true;
  }
  return false;
}

std::vector<std::string> SplitSelectors(const std::vector<std::string>& raw) {
  std::vector<std::string> out;
  for (const std::string& r : raw) {
    for (std::string_view part : Split(r, ',')) {
      part = Trim(part);
      if (!part.empty()) out.emplace_back(part);
    }
  }
  return out;
}

// Areas of the catalogue that belong to other commands (`gpuvet trace`, `gpuvet bench`).
bool IsOtherCommandArea(std::string_view area) { return area == "trace" || area == "bench"; }

// Whether a finding of `area` is reported: a capture from another host has only GPU areas, plus
// the kernel-log areas when its kernel log was given.
bool AreaRuns(std::string_view area, bool offline, bool offline_log) {
  if (IsOtherCommandArea(area)) return false;
  return !offline || IsGpuArea(area) || (offline_log && IsKernelLogArea(area));
}

// The check ids --only and --skip leave to run (flags.only/skip already split).
std::vector<std::string_view> SelectedIds(const CheckFlags& flags, bool offline, bool offline_log) {
  std::vector<std::string_view> ids;
  for (const CatalogueEntry& e : Catalogue()) {
    const std::string id(e.id);
    if (!AreaRuns(e.area, offline, offline_log)) continue;
    if (!flags.only.empty() && !Matches(flags.only, id)) continue;
    if (Matches(flags.skip, id)) continue;
    ids.push_back(e.id);
  }
  return ids;
}

}  // namespace

int RunCheck(const CheckFlags& in_flags) {
  CheckFlags flags = in_flags;
  flags.only = SplitSelectors(flags.only);
  flags.skip = SplitSelectors(flags.skip);
  for (const auto* list : {&flags.only, &flags.skip}) {
    for (const std::string& s : *list) {
      if (!FindCatalogueEntry(s) && !IsCatalogueArea(s)) {
        return UsageError(
            "check",
            fmt::format("'{}' is neither a check id nor an area; `gpuvet checks` lists them", s));
      }
    }
  }
  if (!flags.nvidia_smi_xml.empty() && !flags.nvidia_smi_q.empty()) {
    return UsageError("check", "give one capture: --nvidia-smi-xml or --nvidia-smi-q, not both");
  }
  // The capture file and the format its flag names (either flag reads either format).
  const std::string& capture_path =
      flags.nvidia_smi_q.empty() ? flags.nvidia_smi_xml : flags.nvidia_smi_q;
  const CaptureFormat capture_flag_format =
      flags.nvidia_smi_q.empty() ? CaptureFormat::kXml : CaptureFormat::kQueryText;
  const bool offline = !capture_path.empty();
  const bool offline_log = offline && !flags.kernel_log.empty();
  if (!flags.only.empty() || !flags.skip.empty()) {
    std::vector<std::string_view> selected = SelectedIds(flags, offline, offline_log);
    if (selected.empty()) {
      std::string what = flags.only.empty() ? "" : "--only " + Join(flags.only, ",");
      if (!flags.skip.empty())
        what += (what.empty() ? "" : " ") + ("--skip " + Join(flags.skip, ","));
      return UsageError(
          "check",
          fmt::format("{} selects no check that `gpuvet check` runs{}; `gpuvet checks` lists them",
                      what,
                      offline_log ? " on a --nvidia-smi-xml capture"
                      : offline   ? " on a --nvidia-smi-xml capture (xid and kernel need the "
                                    "capture's --kernel-log)"
                                  : ""));
    }
  }
  if (flags.format != "text" && flags.format != "json") {
    return UsageError("check", "--format must be text or json, not '" + flags.format + "'");
  }
  Result<ReportTime> now = ResolveNow(flags.now);
  if (!now.ok()) return UsageError("check", now.status().message());

  Policy policy;
  if (!flags.policy.empty()) {
    auto loaded = LoadPolicy(flags.policy);
    if (!loaded.ok()) return UsageError("check", loaded.status().message());
    policy = std::move(loaded).value();
  }

  if (!flags.root.empty()) {
    struct stat st;
    if (::stat(flags.root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return UsageError("check", "--root " + flags.root + " is not a directory");
    }
  }
  if (!flags.kernel_log.empty() && !PathExists(flags.kernel_log)) {
    return UsageError("check", "--kernel-log " + flags.kernel_log + ": no such file");
  }
  if (!flags.textfile.empty()) {
    std::string dir = flags.textfile.substr(0, flags.textfile.rfind('/') + 1);
    struct stat st;
    if (!dir.empty() && (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))) {
      return UsageError("check",
                        "--textfile " + flags.textfile + ": directory " + dir + " does not exist");
    }
  }
  if (!flags.env_file.empty() && !PathExists(flags.env_file)) {
    return UsageError("check", "--env-file " + flags.env_file + ": no such file");
  }
  HostPaths paths(flags.root);
  if (flags.pid != 0 && !PathExists(paths.Proc(std::to_string(flags.pid)))) {
    return UsageError("check", fmt::format("--pid {}: no such process", flags.pid));
  }

  CheckReport report;
  report.gpuvet_version = GPUVET_VERSION;
  report.generated_at = now->iso;
  report.policy_source = policy.source;

  if (offline) {
    // The capture comes from another host: this host's /proc, /sys and environment say nothing
    // about it. Only the capture's own kernel log (--kernel-log) can join it.
    for (auto [set, flag] :
         {std::pair{!flags.root.empty(), "--root"}, std::pair{flags.pid != 0, "--pid"},
          std::pair{!flags.env_file.empty(), "--env-file"}}) {
      if (set) {
        return UsageError(
            "check", fmt::format("{} reads a live node and cannot apply to --nvidia-smi-xml (a "
                                 "capture from another host); give the capture's kernel log "
                                 "with --kernel-log, or check the node without the capture",
                                 flag));
      }
    }
    CaptureFormat detected = CaptureFormat::kUnknown;
    auto inv = LoadNvidiaSmiCapture(capture_path, capture_flag_format, &detected);
    if (!inv.ok()) return UsageError("check", inv.status().message());
    if (detected != capture_flag_format) {
      std::fprintf(stderr, "gpuvet check: %s is `%s` output, not `%s`: read as such\n",
                   capture_path.c_str(), std::string(CaptureFormatName(detected)).c_str(),
                   std::string(CaptureFormatName(capture_flag_format)).c_str());
    }
    report.gpus = std::move(inv).value();
    // A saved broken-node output (nvidia-smi could not reach the driver) is a verdict: its state.
    if (report.gpus.state == GpuSourceState::kOk && report.gpus.gpus.empty()) {
      const Reading<int>& attached = report.gpus.device_count;
      return UsageError(
          "check",
          fmt::format("{}: the capture holds no <gpu> element{}: nothing to check", capture_path,
                      attached.has() && *attached > 0
                          ? fmt::format(" (attached_gpus says {})", *attached)
                          : ""));
    }
    if (!flags.kernel_log.empty()) {
      // Xid and other kernel signals of the captured host, matched to the capture's GPUs by PCI
      // address.
      report.host.kernel_log = ReadKernelLog(paths, flags.kernel_log);
    }
  } else {
    NvmlOptions nvml;
    nvml.library_path = flags.nvml_lib;
    nvml.call_timeout = std::chrono::milliseconds(flags.nvml_timeout_ms);
    // An overall budget, so a node whose calls each answer just inside their own timeout still
    // ends: --timeout, or by default 5 s per GPU (at least 10 s). A healthy read of eight GPUs
    // takes well under a second.
    nvml.budget = std::chrono::seconds(flags.timeout_s);
    nvml.budget_per_gpu = std::chrono::seconds(5);
    report.gpus = ReadNvml(nvml);
  }

  if (!offline) {
    HostOptions host;
    host.pid = flags.pid;
    host.kernel_log_file = flags.kernel_log;
    host.env_file = flags.env_file;
    for (const GpuState& g : report.gpus.gpus) {
      if (g.minor_number.has()) host.gpu_minors.push_back(*g.minor_number);
      if (g.compute_processes.has()) {
        for (const GpuProcess& p : *g.compute_processes) host.gpu_pids.push_back(p.pid);
      }
    }
    report.host = ReadHostState(paths, host);
  }

  CheckInput input{report.host, report.gpus};
  for (Finding& f : RunRules(input, policy)) {
    std::string area = AreaOf(f.id);
    if (!AreaRuns(area, offline, offline_log)) continue;
    if (!flags.only.empty() && !Matches(flags.only, f.id)) continue;
    if (Matches(flags.skip, f.id)) continue;
    report.findings.push_back(std::move(f));
  }
  report.verdict = WorstSeverity(report.findings);

  std::string rendered;
  if (flags.format == "json") {
    rendered = RenderJson(report);
  } else {
    TextOptions text;
    text.color = UseColor(flags.color);
    text.verbose = flags.verbose;
    rendered = RenderText(report, text);
  }
  std::fwrite(rendered.data(), 1, rendered.size(), stdout);
  std::fflush(stdout);
  if (!flags.textfile.empty()) {
    Status written = WriteFileAtomic(flags.textfile, RenderCheckTextfile(report, now->unix_s));
    if (!written.ok()) return UsageError("check", "--textfile: " + written.message());
  }
  if (!flags.html.empty()) {
    Result<std::string> page =
        html::RenderHtmlFromJson(RenderJson(report), "gpuvet check", nullptr, now->iso);
    Status written = page.ok() ? WriteFileAtomic(flags.html, *page) : page.status();
    if (!written.ok()) return UsageError("check", "--html: " + written.message());
  }
  return report.verdict == Severity::kFail ? kExitUnhealthy : kExitHealthy;
}

void AddCheckCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<CheckFlags>();
  CLI::App* cmd = app.add_subcommand("check",
                                     "Is this node fit to take work? Runs every node "
                                     "check and prints findings with a verdict.");
  cmd->add_option("--root", flags->root,
                  "Read /proc, /sys and /dev under this directory (fixture trees, containers)");
  cmd->add_option("--kernel-log", flags->kernel_log,
                  "Read the kernel log from this saved dmesg/journalctl/kmsg file instead of "
                  "/dev/kmsg");
  cmd->add_option("--env-file", flags->env_file,
                  "Check GPU visibility variables from this file (KEY=VALUE lines or a copy of "
                  "/proc/PID/environ) instead of the process's environment");
  cmd->add_option("--nvml-lib", flags->nvml_lib, "Path of libnvidia-ml.so.1 to load")
      ->envname("GPUVET_NVML_LIB");
  cmd->add_option("--nvml-timeout-ms", flags->nvml_timeout_ms,
                  "Give up on an NVML call after this many milliseconds")
      ->check(CLI::Range(10, 600000));
  cmd->add_option("--timeout", flags->timeout_s,
                  "Overall time budget in seconds for asking NVML (default: 5 per GPU, at least "
                  "10); past it the check ends with what it has and fails naming what did not "
                  "answer")
      ->check(CLI::Range(1, 86400));
  cmd->add_option("--policy", flags->policy, "Policy file (TOML); see docs/policy.md");
  cmd->add_option("--format", flags->format, "Output format: text or json");
  cmd->add_option("--only", flags->only, "Run only these check ids or areas (comma-separated)");
  cmd->add_option("--skip", flags->skip, "Skip these check ids or areas (comma-separated)");
  cmd->add_option("--pid", flags->pid,
                  "Check this process: NUMA placement, cgroup limits, whether it uses a GPU")
      ->check(CLI::Range(1, 1 << 30));
  cmd->add_option("--nvidia-smi-xml", flags->nvidia_smi_xml,
                  "Run the GPU checks on a saved `nvidia-smi -q -x` capture instead of NVML (with "
                  "--kernel-log, also the Xid and kernel-log checks on that log); plain "
                  "`nvidia-smi -q` text is detected and read too");
  cmd->add_option("--nvidia-smi-q", flags->nvidia_smi_q,
                  "Like --nvidia-smi-xml, for a saved plain-text `nvidia-smi -q` report");
  cmd->add_option("--now", flags->now, "Timestamp to print instead of the clock (tests)");
  cmd->add_option("--color", flags->color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_flag("-v,--verbose", flags->verbose, "Also list passed checks and every meaning");
  cmd->add_option("--textfile", flags->textfile,
                  "Also write the check results as Prometheus metrics to this file, atomically, "
                  "for node_exporter's textfile collector (name it *.prom)");
  cmd->add_option("--html", flags->html,
                  "Also write the report as one self-contained HTML page to this file");
  cmd->callback([flags, exit_code] { *exit_code = RunCheck(*flags); });
}

}  // namespace gpuvet
