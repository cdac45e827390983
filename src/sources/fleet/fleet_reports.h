// Reads a directory tree of `gpuvet check --format json` and `gpuvet bench --format json` reports
// from many nodes into the fleet model. Several reports per node over time are fine: the newest
// check gives the node's state, every check inside the window contributes to the ECC and
// throttling series. Files that are not such reports are skipped with the reason, never fatal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/fleet.h"
#include "util/status.h"

namespace gpuvet {

// What the fleet needs from one report file, recognised by its "schema". Only this is kept (not
// the document), so memory follows the number of GPUs and findings, not the size of the files.
struct FleetReportFile {
  enum class Kind { kCheck, kBench };
  Kind kind = Kind::kCheck;
  std::string source;  // the path
  std::string host;    // host.hostname (check; bench reports carry none, see ReadFleetReports)
  double time = 0;     // generated_at as unix seconds
  std::string driver_version, cuda_version;  // check
  // Check: identity, link state, ecc_uncorrected, and this report's one sample of each series.
  // Bench: identity and maximum link only.
  std::vector<FleetGpu> gpus;
  std::vector<FleetCheck> checks;       // check: the findings that are not ok
  std::vector<FleetBenchFigure> bench;  // bench: measured (not skipped) figures
};

// Parses one file's text. InvalidInput names why it is not a usable report: not JSON, another
// schema, no generated_at, a check without host.hostname.
Result<FleetReportFile> ParseFleetReport(std::string_view text, const std::string& source);

// Builds the nodes from parsed reports (any order). A bench report belongs to the host whose
// check reports share its directory; with none (or several hosts there) to the directory's name.
FleetInput BuildFleetFromReports(std::vector<FleetReportFile> reports, double now, double window_s);

// Walks `dir` recursively. NotFound / InvalidInput when `dir` is not a readable directory; files
// that cannot be read or parsed land in FleetInput::skipped.
Result<FleetInput> ReadFleetReports(const std::string& dir, double now, double window_s);

}  // namespace gpuvet
