// The entry point of `gpuvet analyze` (and of the diagnosis printed at the end of `record`): from
// a Recording to an AnalyzeReport — steady phases with labels, the run's labels and verdict,
// periodic stalls, memory growth, throttling, energy and work, and the upgrade forecast. Also the
// live verdict of `watch` over a short window. Pure: no I/O, no clock.
#pragma once

#include <vector>

#include "analysis/recording/recording_options.h"
#include "core/analyze_report.h"
#include "core/recording.h"

namespace gpuvet {

// Analyses the whole recording. `source` and `generated_at` are left for the caller. An empty
// recording gives a report with no phases and verdict "none" (confidence low) and a warning.
// When options.target_gpu names no row of the spec table, `forecast` stays empty and a warning
// says so (the command checks the name first and exits 2).
AnalyzeReport AnalyzeRecording(const Recording& rec, const AnalyzeOptions& options);

// The label of a short window of recent samples (what `watch` shows under the GPU rows): label,
// one-line evidence, decision. Uses default thresholds; "none" with "no samples yet" for an empty
// window.
LiveVerdict VerdictForWindow(const RecordingMeta& meta, const std::vector<Sample>& recent);

}  // namespace gpuvet
