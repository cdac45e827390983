// `gpuvet.trace/v1` as an HTML section: the document read back into a view (strict, errors name
// the path), and the section — the verdict (the job's bottleneck with its decision, and what the
// trace says about the node: stragglers), temporal and idle breakdowns as stacked bars per rank,
// per-step stacked bars, kernel time by class and the top kernels, the communication/compute
// overlap, stragglers, and the findings.
//
// Extension point (issue 13): the trace upgrade forecast and `trace --compare` are built in
// parallel and their JSON is not on main yet. A document that carries a top-level "forecast" or
// "compare" object keeps it in TraceView, and the section reserves the ids `<id>-forecast` and
// `<id>-compare` for it, filled by TraceForecastHtml / TraceCompareHtml (html_trace_ext.cc).
// Those render the object generically (every key and value, escaped) until the owners of those
// structs replace them with dedicated charts; nothing else needs to change.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "output/html_doc.h"
#include "output/html_section.h"
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
  // Extension point: present when the document carries them (see the file comment).
  std::optional<nlohmann::json> forecast, compare;
};

Result<TraceView> ReadTraceView(const nlohmann::json& doc, const std::string& what);
Section TraceSection(const TraceView& view, const std::string& id);

// The reserved parts (html_trace_ext.cc): each returns the markup of the element with id `id`.
std::string TraceForecastHtml(const nlohmann::json& forecast, const std::string& id);
std::string TraceCompareHtml(const nlohmann::json& compare, const std::string& id);
// Any JSON value as nested, escaped definition lists (the generic fallback of the two above).
std::string GenericJsonHtml(const nlohmann::json& value, int depth = 0);

}  // namespace gpuvet::html
