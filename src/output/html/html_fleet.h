// `gpuvet.fleet/v1` as an HTML section: the document read back into a view (strict, errors name
// the path), and the section — the verdict, nodes × checks as a severity heat map (worst first),
// the drift table (driver, CUDA, VBIOS against the pool), the quarantine list with reasons, each
// node's findings and the inputs that were skipped.
#pragma once

#include <string>
#include <vector>

#include "output/html/html_doc.h"
#include "output/html/html_section.h"
#include "util/status.h"

namespace gpuvet::html {

struct FleetNodeView {
  int rank = 0;
  std::string node, pool, verdict;
  double score = 0;
  bool quarantine = false;
  std::vector<FindingView> findings;
};

struct FleetView {
  std::string generated_at, origin, policy;
  double window_s = 0;
  std::vector<FleetNodeView> nodes;
  struct Quarantine {
    std::string node, reason;
    std::vector<std::string> finding_ids;
  };
  std::vector<Quarantine> quarantine;
  std::vector<std::pair<std::string, std::string>> skipped;  // source, reason
  std::string severity;
  int node_total = 0, quarantine_total = 0;
  SeverityCounts node_counts;
};

Result<FleetView> ReadFleetView(const nlohmann::json& doc, const std::string& what);
Section FleetSection(const FleetView& view, const std::string& id);

}  // namespace gpuvet::html
