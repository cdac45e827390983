// The finding catalogue: one table of every check gpuvet can report, with its stable id, the area
// it belongs to, what a non-ok result means and the decision to take. Rules emit findings by id;
// `gpuvet checks` lists this table and `gpuvet explain ID` prints one entry.
#pragma once

#include <span>
#include <string_view>

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

// True when `area` names at least one catalogue entry's area.
bool IsCatalogueArea(std::string_view area);

}  // namespace gpuvet
