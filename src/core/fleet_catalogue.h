// The fleet finding table: every id `gpuvet fleet audit` can report, with what a non-ok result
// means and what to do. Kept apart from the node check catalogue (catalogue.cc) because these
// judge a node against its pool over time, not one node at one moment.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"

namespace gpuvet {

struct FleetFindingInfo {
  std::string_view id;  // "fleet.<name>"
  std::string_view title;
  std::string_view meaning;
  std::string_view decision;
};

// All entries, sorted by id.
std::span<const FleetFindingInfo> FleetFindings();

// The entry for `id`, or nullptr.
const FleetFindingInfo* FindFleetFinding(std::string_view id);

// A fleet finding; `id` must be in the table (asserted in debug builds). Meaning and decision
// stay empty: renderers take them from the table.
Finding MakeFleetFinding(std::string_view id, std::string subject, Severity severity,
                         std::string summary, std::vector<Evidence> evidence = {});

}  // namespace gpuvet
