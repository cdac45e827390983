// `gpuvet record`: flags -> Sampler + RecordingWriter (+ the kernel log followed) -> (spawn the
// workload) -> RunRecordLoop -> Finish. Exit codes: the workload's own (128+N when signal N killed
// it; 127/126 when it could not be started), also when the recording could not be created or
// written (a wrapper never stops the job it wraps: it says the recording failed); 0 for --pid and
// host recordings; 2 for bad flags, an existing output without --force, or (without a workload to
// run) an output that cannot be created.
#include "cli/record/record_command.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>

#include "cli/common/cli_util.h"
#include "cli/common/duration_flag.h"
#include "cli/common/sampler_flags.h"
#include "cli/record/analyze_command.h"
#include "cli/record/record_session.h"
#include "core/gpu_owner.h"
#include "core/report.h"
#include "sources/host/gpu_owner.h"
#include "sources/kmsg/kernel_log_follow.h"
#include "sources/recording/recording_store.h"
#include "sources/sampler/sampler.h"
#include "sources/sampler/workload_process.h"

#ifndef GPUVET_VERSION
#define GPUVET_VERSION "dev"
#endif

namespace gpuvet {

namespace {

struct RecordFlags {
  std::string out;
  std::string interval = "1s";
  std::string duration;
  int pid = 0;
  std::vector<std::string> command;
  std::string work_regex;
  std::string work_mode = "total";
  std::string work_file;
  std::string work_unit;
  SamplerFlags sampler;
  bool no_analyze = false;
  bool force = false;
  std::string kernel_log;  // a log file to follow instead of /dev/kmsg
  bool no_kernel_log = false;
  std::string format = "text";  // of the diagnosis
  std::string html;             // --html FILE: the diagnosis as an HTML page too
  std::optional<std::string> target;
  std::optional<double> price_per_gpu_hour;
};

double NowUnix() {
  timeval tv = {};
  gettimeofday(&tv, nullptr);
  return tv.tv_sec + tv.tv_usec * 1e-6;
}

int RunRecord(const RecordFlags& flags) {
  if (flags.no_analyze && !flags.html.empty()) {
    return UsageError("record", "--html needs the diagnosis: drop --no-analyze");
  }
  auto interval = ParseDurationFlag("--interval", flags.interval);
  if (!interval.ok()) return UsageError("record", interval.status().message());
  if (*interval < 0.1 || *interval > 60) {
    return UsageError("record", "--interval must be between 100ms and 60s, not " + flags.interval);
  }
  std::optional<double> duration;
  if (!flags.duration.empty()) {
    auto d = ParseDurationFlag("--duration", flags.duration);
    if (!d.ok()) return UsageError("record", d.status().message());
    duration = *d;
  }
  if (flags.pid != 0 && !flags.command.empty()) {
    return UsageError("record", "give either --pid PID or -- CMD ARGS, not both");
  }
  if (flags.pid == 0 && flags.command.empty() && !duration) {
    return UsageError("record",
                      "nothing to record: give -- CMD ARGS, --pid PID, or --duration for the host");
  }
  if (flags.pid < 0 || (flags.pid > 0 && kill(flags.pid, 0) != 0 && errno == ESRCH)) {
    return UsageError("record", "--pid " + std::to_string(flags.pid) + ": no such process");
  }
  if (!flags.work_regex.empty() && flags.command.empty()) {
    return UsageError("record", "--work-regex reads the workload's output: it needs -- CMD ARGS");
  }
  std::unique_ptr<WorkCounter> counter;
  if (!flags.work_regex.empty()) {
    auto c = WorkCounter::Create(
        flags.work_regex, flags.work_mode == "increment" ? WorkMode::kIncrement : WorkMode::kTotal);
    if (!c.ok()) return UsageError("record", c.status().message());
    counter = std::move(c.value());
  }

  struct stat existing = {};
  if (!flags.force && lstat(flags.out.c_str(), &existing) == 0) {
    return UsageError("record",
                      flags.out + " already exists: give another -o, or --force to replace it");
  }

  auto sampler = Sampler::Create(ToSamplerOptions(flags.sampler, flags.pid));
  if (!sampler.ok()) return UsageError("record", sampler.status().message());

  RecordingMeta meta = (*sampler)->meta();
  meta.producer = std::string("gpuvet record ") + GPUVET_VERSION;
  meta.command = flags.command;
  meta.target_pid = flags.pid;
  meta.interval_s = *interval;
  meta.start_unix_s = NowUnix();
  if (counter || !flags.work_file.empty()) {
    meta.work_unit = flags.work_unit.empty() ? "units" : flags.work_unit;
    meta.notes["work.source"] =
        counter ? "--work-regex " + flags.work_regex + " (" + flags.work_mode + ")"
                : "--work-file " + flags.work_file;
  }

  // Who runs the recorded job (docs/gpu-owners.md): the --pid process, else gpuvet itself, whose
  // cgroup, uid and Slurm environment the spawned workload inherits.
  {
    std::optional<std::string> passwd;
    const HostPaths paths(flags.sampler.root);
    const GpuProcessOwner owner = flags.pid > 0
                                      ? ReadProcessOwner(paths, std::to_string(flags.pid),
                                                         static_cast<uint32_t>(flags.pid), &passwd)
                                      : ReadProcessOwner(paths, "self", 0, &passwd);
    AddOwnerNotes(owner, &meta.notes);
  }

  std::unique_ptr<KernelLogFollower> kernel_log;
  if (!flags.no_kernel_log) {
    auto k = KernelLogFollower::Open(HostPaths(flags.sampler.root), flags.kernel_log);
    if (k.ok()) {
      kernel_log = std::move(k.value());
      meta.notes["record.kernel_log"] = "followed: " + kernel_log->path();
    } else {
      meta.notes["record.kernel_log"] = "not followed: " + k.status().message();
      if (!flags.kernel_log.empty()) return UsageError("record", k.status().message());
      std::fprintf(stderr, "gpuvet record: %s; recording without it\n",
                   k.status().message().c_str());
    }
  }

  // The file is created before anything runs. Without a workload an unwritable output is a usage
  // error; with one the workload still runs (a wrapper must not stop the job it wraps).
  auto writer = RecordingWriter::Create(flags.out, meta);
  std::string create_error;
  if (!writer.ok()) {
    if (flags.command.empty()) return UsageError("record", writer.status().message());
    create_error = writer.status().message();
    std::fprintf(stderr, "gpuvet record: %s; running the workload without recording it\n",
                 create_error.c_str());
  }
  RecordingWriter* w = writer.ok() ? writer->get() : nullptr;

  // Signals are relayed before the child exists, so none is lost between spawn and the loop.
  signal(SIGPIPE, SIG_IGN);
  SignalRelay relay;
  std::unique_ptr<Workload> workload;
  if (!flags.command.empty()) {
    auto w = Workload::Spawn(flags.command, counter != nullptr);
    if (!w.ok()) {
      std::fprintf(stderr, "gpuvet record: %s\n", w.status().message().c_str());
      int code = w.status().code() == StatusCode::kNotFound ? 127 : 126;  // as POSIX shells
      if (writer.ok()) (void)(*writer)->Finish(NowUnix(), code);
      return code;
    }
    workload = std::move(w.value());
    meta.target_pid = workload->pid();
    (*sampler)->SetRootPid(workload->pid());
    if (Status st = writer.ok() ? (*writer)->UpdateMeta(meta) : Status::Ok(); !st.ok()) {
      std::fprintf(stderr, "gpuvet record: %s; recording stopped, the workload keeps running\n",
                   st.message().c_str());
    }
  }

  RecordTarget target;
  target.workload = workload.get();
  target.attached_pid = flags.pid;
  target.paths = HostPaths(flags.sampler.root);
  target.duration_s = duration;
  target.kernel_log = kernel_log.get();
  target.status_line = isatty(STDERR_FILENO) == 1;
  RecordOutcome outcome = RunRecordLoop(**sampler, w, relay, target, *interval, meta.start_unix_s,
                                        counter.get(), flags.work_file);
  if (w == nullptr) {
    std::fprintf(stderr,
                 "gpuvet record: the recording failed: nothing was recorded (%s); the workload "
                 "ran to its end\n",
                 create_error.c_str());
    return workload ? outcome.exit_code.value_or(kExitInternal) : kExitUsage;
  }
  if (outcome.write_error.empty()) {
    std::optional<int> exit_code = workload ? outcome.exit_code : std::nullopt;
    Status st = (*writer)->UpdateNotes((*sampler)->meta().notes);
    if (st.ok()) st = (*writer)->Finish(outcome.end_unix_s, exit_code);
    if (st.ok()) {
      std::fprintf(
          stderr, "recording written to %s (%lld samples%s)\n", flags.out.c_str(),
          static_cast<long long>(outcome.samples),
          outcome.events ? (", " + std::to_string(outcome.events) + " events").c_str() : "");
    } else {
      std::fprintf(stderr, "gpuvet record: %s\n", st.message().c_str());
    }
  } else {
    std::fprintf(
        stderr, "gpuvet record: the recording failed: %s is incomplete (%lld samples): %s\n",
        flags.out.c_str(), static_cast<long long>(outcome.samples), outcome.write_error.c_str());
  }
  // The diagnosis of what was recorded (also of an incomplete file: it holds every sample up to
  // the write error). It goes to stdout after the workload's own output has ended.
  if (!flags.no_analyze && outcome.samples > 0) {
    AnalyzeFlags analyze;
    analyze.format = flags.format;
    analyze.target = flags.target;
    analyze.price_per_gpu_hour = flags.price_per_gpu_hour;
    analyze.html = flags.html;
    std::fflush(stdout);
    if (AnalyzeAndPrint(flags.out, analyze) != kExitHealthy) {
      std::fprintf(stderr, "gpuvet record: the recording could not be analysed (see above)\n");
    }
  }
  if (workload) return outcome.exit_code.value_or(kExitInternal);
  return kExitHealthy;
}

}  // namespace

void AddRecordCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<RecordFlags>();
  CLI::App* cmd = app.add_subcommand(
      "record",
      "Record GPUs, host and a workload's processes over time into a recording file: "
      "gpuvet record -o run.gpuvet -- CMD ARGS");
  cmd->add_option("-o,--output", flags->out, "The recording file to write")->required();
  cmd->add_option("--interval", flags->interval, "Sampling interval, 100ms to 60s (default 1s)");
  cmd->add_option("--duration", flags->duration,
                  "Stop recording after this long (alone: record the host only)");
  cmd->add_option("--pid", flags->pid, "Attach to this running process and its children");
  cmd->add_option("--work-regex", flags->work_regex,
                  "Count work from the workload's output: the first capture group (else the "
                  "first number) of each matching line");
  cmd->add_option("--work-mode", flags->work_mode,
                  "total: the number is the count so far; increment: each line adds it")
      ->check(CLI::IsMember({"total", "increment"}));
  cmd->add_option("--work-file", flags->work_file,
                  "A file whose content is the workload's work count so far");
  cmd->add_option("--work-unit", flags->work_unit, "What the work count counts (samples, tokens)");
  AddSamplerFlags(cmd, &flags->sampler, "Do not read GPUs (host and processes only)");
  cmd->add_flag("--force", flags->force, "Replace the -o file when it exists");
  cmd->add_option("--kernel-log", flags->kernel_log,
                  "Follow this kernel log file (appended to during the run) instead of /dev/kmsg");
  cmd->add_flag("--no-kernel-log", flags->no_kernel_log, "Do not follow the kernel log");
  cmd->add_flag("--no-analyze", flags->no_analyze,
                "Do not print the diagnosis at the end (run `gpuvet analyze FILE` later)");
  cmd->add_option("--format", flags->format, "Diagnosis format: text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--html", flags->html,
                  "Also write the diagnosis as one self-contained HTML page to this file");
  cmd->add_option("--target", flags->target,
                  "Forecast the speedup on this GPU model (e.g. H200; see `gpuvet analyze`)");
  cmd->add_option("--price-per-gpu-hour", flags->price_per_gpu_hour,
                  "Price of one GPU hour, for work per dollar");
  cmd->add_option("command", flags->command, "The workload: -- CMD ARGS");
  cmd->callback([flags, exit_code] { *exit_code = RunRecord(*flags); });
}

}  // namespace gpuvet
