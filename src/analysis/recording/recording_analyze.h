// The entry point of `gpuvet analyze` (and of the diagnosis printed at the end of `record`): from
// a Recording to an AnalyzeReport — steady phases with labels, the run's labels and verdict,
// periodic stalls, memory growth, throttling, energy and work, and the upgrade forecast. Also the
// live verdict of `watch` over a short window. Pure: no I/O, no clock.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/recording/recording_options.h"
#include "core/analyze_report.h"
#include "core/recording.h"

namespace gpuvet {

// The analysis of a recording whose samples arrive one at a time, in two passes (the caller reads
// the file twice, e.g. with RecordingCursor): memory follows the number of GPUs and processes and
// at most kMaxSignalRows signal rows, never the length of the recording. Survey every sample,
// then Add the same samples in the same order, then Finish once.
class RecordingAnalysis {
 public:
  // `expected_samples`: how many samples the passes will bring (sets the signal resolution).
  RecordingAnalysis(const RecordingMeta& meta, const AnalyzeOptions& options,
                    size_t expected_samples);
  ~RecordingAnalysis();
  RecordingAnalysis(const RecordingAnalysis&) = delete;
  RecordingAnalysis& operator=(const RecordingAnalysis&) = delete;

  void Survey(const Sample& s);  // first pass: which GPUs, the memory series' means
  void Add(const Sample& s);     // second pass
  // The report. `events`: the recording's (kernel log, recorder faults), by time.
  // `input_warnings`: what the reader found wrong with the file (damage first); reported first
  // among the warnings.
  AnalyzeReport Finish(const std::vector<RecordingEvent>& events,
                       const std::vector<std::string>& input_warnings);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Analyses the whole recording (RecordingAnalysis over rec.samples and rec.events). `source` and
// `generated_at` are left for the caller. An empty recording gives a report with no phases and
// verdict "none" (confidence low) and a warning. When options.target_gpu names no row of the spec
// table, `forecast` stays empty and a warning says so (the command checks the name first and exits
// 2).
AnalyzeReport AnalyzeRecording(const Recording& rec, const AnalyzeOptions& options);

// The label of a short window of recent samples (what `watch` shows under the GPU rows): label,
// one-line evidence, decision. Uses default thresholds; "none" with "no samples yet" for an empty
// window.
LiveVerdict VerdictForWindow(const RecordingMeta& meta, const std::vector<Sample>& recent);

}  // namespace gpuvet
