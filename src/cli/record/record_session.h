// The loop of `gpuvet record`: one poll() over the signal relay, the workload's output pipes and
// the sampling clock. Samples go to the RecordingWriter; a write error is reported once and stops
// the recording, never the workload.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/host_paths.h"
#include "sources/sampler/work_counter.h"

namespace gpuvet {

class KernelLogFollower;
class Sampler;
class RecordingWriter;
class Workload;
class SignalRelay;

struct RecordTarget {
  Workload* workload = nullptr;  // record -- CMD: the child (signals forwarded, output scanned)
  int attached_pid = 0;          // record --pid: ends when it is gone (or a zombie)
  HostPaths paths;               // where attached_pid's /proc/PID/stat is read (--root)
  std::optional<double> duration_s;
  KernelLogFollower* kernel_log = nullptr;  // followed while sampling; null: not followed
  bool status_line = false;                 // a one-line status on stderr (a terminal)
};

struct RecordOutcome {
  std::optional<int> exit_code;  // the child's (128+N when killed by signal N)
  int64_t samples = 0;
  std::string write_error;  // empty when every sample was written
  double end_unix_s = 0;
  int64_t events = 0;  // kernel log events and recorder faults stored
};

// Runs until the workload ends (or the attached process is gone, or the duration passed, or a
// signal stops a host/attach recording). With a null `writer` (the recording could not be
// created) nothing is sampled, but the workload runs, its output is passed through and its exit
// code returned. New sampler notes that say a GPU was lost or an NVML call hung (or recovered)
// are stored as events at the sample's time, with the kernel log's events. Not thread-safe; owns
// nothing it is given.
RecordOutcome RunRecordLoop(Sampler& sampler, RecordingWriter* writer, SignalRelay& relay,
                            const RecordTarget& target, double interval_s, double start_unix_s,
                            WorkCounter* work_regex, const std::string& work_file);

}  // namespace gpuvet
