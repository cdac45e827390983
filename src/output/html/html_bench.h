// `gpuvet.bench/v1` as an HTML section: the document read back into a view (strict, errors name
// the path), and the section — the verdict, each measured figure as a bar against its expectation
// with the passing band (from the floor the judging finding used), the figures table, the
// findings grouped by area and the GPUs benchmarked.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "output/html/html_doc.h"
#include "output/html/html_section.h"
#include "util/status.h"

namespace gpuvet::html {

struct BenchFigureView {
  std::string id, unit, status, method;
  int gpu = -1, peer = -1;
  std::optional<double> median, min, max;
  std::optional<double> expected, ratio;  // from the matching expectation
  std::string basis;
  std::optional<double> floor;  // the pass floor (fraction of expected) of the judging finding
  std::string severity;         // of the judging finding; "" when none matched
};

struct BenchView {
  std::string generated_at, mode, library, run_state, run_detail;
  std::vector<std::pair<int, std::string>> gpus;  // index, "name (pci)"
  std::vector<BenchFigureView> figures;
  std::vector<FindingView> findings;
  std::string severity;
  bool healthy = true;
  SeverityCounts counts;
};

Result<BenchView> ReadBenchView(const nlohmann::json& doc, const std::string& what);
Section BenchSection(const BenchView& view, const std::string& id);

}  // namespace gpuvet::html
