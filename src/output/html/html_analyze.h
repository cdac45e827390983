// `gpuvet.analyze/v1` as an HTML section: the document read back into a view (strict, errors name
// the path), and the section — the verdict (the job's bottleneck and decision; the node's
// throttling), with a recording's timeline when one is given (per GPU activity, SM/tensor/DRAM
// where GPM exists, power, clock and memory used; host CPU and iowait, the busiest threads, disk
// and network), phases shaded by label, periodic stalls and events marked, throttle spans; then
// the labels with evidence, the upgrade forecast as a waterfall, throttling, memory growth and
// energy. From a JSON document alone (no recording) the timeline is the phases only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "output/html/html_doc.h"
#include "output/html/html_forecast.h"
#include "output/html/html_section.h"
#include "output/html/html_timeline.h"
#include "util/status.h"

namespace gpuvet::html {

struct LabelView {
  std::string label, detail, confidence, reason, decision;
  std::string severity;  // "ok", "info", "warn", "fail", "unknown": the label's (core/bottleneck)
  double seconds = 0, share_pct = 0;
  std::vector<EvidenceRow> evidence;
  std::string Name() const { return detail.empty() ? label : label + "/" + detail; }
};

struct PhaseView {
  double start_s = 0, end_s = 0, gpu_activity_pct = 0;
  std::string activity_metric;
  LabelView label;
};

struct AnalyzeView {
  std::string generated_at, source, host, producer;
  std::vector<std::string> command, gpus, warnings;
  std::vector<std::string> not_recorded;  // series no sample holds ("disk", "throttle_reasons")
  std::optional<double> start_unix_s;     // the recording's wall-clock start
  std::vector<int> workload_gpus;
  double duration_s = 0, interval_s = 0, samples = 0;
  bool gpm = false, complete = true;
  std::optional<double> exit_code;
  std::vector<PhaseView> phases;
  std::vector<LabelView> labels;
  LabelView verdict;
  struct Periodic {
    double period_s = 0, stall_s = 0, first_s = 0, share_pct = 0;
    int count = 0;
    bool write_burst = false;
  };
  std::optional<Periodic> periodic;
  struct Growth {
    std::string subject, kind;
    double start_bytes = 0, end_bytes = 0, slope = 0;
    std::optional<double> time_to_oom_s;
  };
  std::vector<Growth> memory;
  struct Throttle {
    int gpu = 0;
    double busy_s = 0, power_cap_pct = 0, thermal_pct = 0, hw_slowdown_pct = 0;
    std::optional<double> clock_loss_pct;
  };
  std::vector<Throttle> throttle;
  double joules = 0, starved_pct = 0, gpu_hours = 0;
  std::optional<double> work_per_s, work_per_kj, cost;
  std::string work_unit;
  std::optional<ForecastView> forecast;
};

Result<AnalyzeView> ReadAnalyzeView(const nlohmann::json& doc, const std::string& what);
// `timeline`: the recording's, when the input was a recording (nullptr: phases only).
Section AnalyzeSection(const AnalyzeView& view, const Timeline* timeline, const std::string& id);

}  // namespace gpuvet::html
