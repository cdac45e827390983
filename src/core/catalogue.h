// The finding catalogue: one table of every check gpuvet can report, with its stable id, the area
// it belongs to, what a non-ok result means and the decision to take. Rules emit findings by id;
// `gpuvet checks` lists this table and `gpuvet explain ID` prints one entry.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/finding.h"

namespace gpuvet {

struct CatalogueEntry {
  std::string_view id;        // stable dotted id: "<area>.<name>"
  std::string_view area;      // grouping for reports and for --only/--skip
  std::string_view title;     // what is checked, in a few words
  std::string_view meaning;   // what a non-ok result means
  std::string_view decision;  // what to do about it
};

// All entries, sorted by id.
std::span<const CatalogueEntry> Catalogue();

// The entry for `id`, or nullptr.
const CatalogueEntry* FindCatalogueEntry(std::string_view id);

// The decision a finding of `id` at severity `s` prints: the entry's text for that severity where
// the catalogue has one (a warning does not print what to do on a fail), else the entry's decision
// (which `gpuvet explain` shows whole); "" for an unknown id.
std::string_view CatalogueDecision(std::string_view id, Severity s);

// The area of a finding id: the part before the first '.' ("pcie" for "pcie.link_width_reduced"),
// which is its catalogue entry's area (a test checks).
std::string AreaOf(std::string_view id);

// True when `area` names at least one catalogue entry's area.
bool IsCatalogueArea(std::string_view area);

}  // namespace gpuvet
