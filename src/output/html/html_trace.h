// `gpuvet.trace/v1` as an HTML section: the document read back into a view (strict, errors name
// the path), and the section — the verdict (the job's bottleneck with its decision, and what the
// trace says about the node: stragglers), temporal and idle breakdowns as stacked bars per rank,
// per-step stacked bars, kernel time by class and the top kernels, the communication/compute
// overlap, stragglers, and the findings.
//
// With `trace --target`, the document's `forecasts` (one gpuvet.forecast/v1 per rank or steady
// state) fill the element `<id>-forecast`, each as html_forecast draws it. A top-level "compare"
// object (no gpuvet document carries one today: `trace --compare` writes its own schema) keeps
// the reserved id `<id>-compare`, rendered generically (html_trace_ext.cc).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "output/html/html_doc.h"
#include "output/html/html_forecast.h"
#include "output/html/html_section.h"
#include "util/status.h"

namespace gpuvet::html {

struct TraceStepView {
  std::string name;
  double duration_us = 0, gpu_busy_us = 0;
};

struct TraceCategoryView {
  std::string category;
  double time_us = 0, pct = 0;
  int count = 0;
};

struct TraceKernelView {
  std::string name, category;
  double total_us = 0, pct = 0;
  int count = 0;
};

struct TraceRankView {
  int rank = 0;
  std::string subject, source;
  bool has_gpu_ops = false;
  double span_us = 0, compute_us = 0, non_compute_us = 0, idle_us = 0;
  double compute_pct = 0, non_compute_pct = 0, idle_pct = 0;
  double host_wait_us = 0, kernel_wait_us = 0, other_idle_us = 0;
  std::vector<TraceStepView> steps;
  std::vector<TraceCategoryView> categories;
  std::vector<TraceKernelView> top;
  double comm_us = 0, overlapped_us = 0, exposed_us = 0, overlap_pct = 0;
  std::string label, reason, confidence;
  double share_pct = 0;
};

struct TraceLatenessView {
  int rank = 0, late_count = 0;
  double mean_delay_us = 0;
};

struct TraceView {
  std::vector<std::string> sources;
  std::vector<TraceRankView> ranks;
  std::vector<int> stragglers;
  std::vector<TraceLatenessView> lateness;
  std::string collective;
  std::vector<FindingView> findings;
  std::string label, reason, confidence, severity, share_of;
  double share_pct = 0;
  SeverityCounts counts;
  std::vector<ForecastView> forecasts;    // `trace --target`
  std::optional<nlohmann::json> compare;  // see the file comment
};

Result<TraceView> ReadTraceView(const nlohmann::json& doc, const std::string& what);
Section TraceSection(const TraceView& view, const std::string& id);

// The reserved part (html_trace_ext.cc): the markup of the element with id `id`.
std::string TraceCompareHtml(const nlohmann::json& compare, const std::string& id);
// Any JSON value as nested, escaped definition lists (the generic rendering above).
std::string GenericJsonHtml(const nlohmann::json& value, int depth = 0);

}  // namespace gpuvet::html
