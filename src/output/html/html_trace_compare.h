// `gpuvet.trace_compare/v1` (`gpuvet trace A --compare B --format json`) as an HTML section: the
// document read back into a view (strict, errors name the path), and the section — the verdict
// (the answer: how much slower or faster B is per step and what accounts for it), the step of A
// and B as stacked bars with the B − A table whose parts add up to the difference, GPU idle by
// cause and by who held the host, kernel time by class, copies, host syncs, communication, the
// kernels that changed, appeared or went away, the likely causes besides the kernels, and the
// files that could not be read.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "output/html/html_doc.h"
#include "output/html/html_section.h"
#include "util/status.h"

namespace gpuvet::html {

// One run's side (`a` or `b`).
struct CompareRunView {
  std::vector<std::string> sources, problems;
  int ranks = 0, world_size = 0;
  std::string device_type, gpu_name, verdict;
  double steps = 0, host_step_us = 0, step_us = 0, ops_per_step = 0, startup_pct = 0;
  bool has_steps = false, gpu_behind = false;
};

// A row of the step's parts (per step, or per window), with bytes and counts where the
// document has them (categories, copies, syncs).
struct CompareRowView {
  std::string name;
  double a_us = 0, b_us = 0, delta_us = 0, share_pct = 0;
  bool has_counts = false;
  double a_bytes = 0, b_bytes = 0, a_count = 0, b_count = 0;
};

struct CompareKernelView {
  std::string name_a, name_b, category, match;
  double a_us = 0, b_us = 0, delta_us = 0, share_pct = 0, a_count = 0, b_count = 0;
};

struct TraceCompareView {
  std::string unit;  // "step" or "window"
  CompareRunView a, b;
  double delta_us = 0, change_pct = 0;
  bool comparable = false;
  std::string reason, answer;
  std::vector<CompareRowView> temporal, idle, host_idle, categories, copies, syncs;
  CompareRowView comm, comm_exposed;
  std::vector<CompareKernelView> changed, added, removed;
  int matched = 0, a_only = 0, b_only = 0;
  std::vector<std::string> causes;
};

// Reads a gpuvet.trace_compare/v1 document; `what` names it in errors.
Result<TraceCompareView> ReadTraceCompareView(const nlohmann::json& doc, const std::string& what);

// The section with element id `id` (charts and tables are `<id>-step`, `<id>-parts`, `<id>-idle`,
// `<id>-host-idle`, `<id>-categories`, `<id>-copies`, `<id>-syncs`, `<id>-communication`,
// `<id>-kernels-changed`, `<id>-kernels-added`, `<id>-kernels-removed`, `<id>-causes`). The
// verdict is `info` (a comparison judges no node), `unknown` when the runs are not comparable.
Section TraceCompareSection(const TraceCompareView& view, const std::string& id);

}  // namespace gpuvet::html
