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
// schema, no generated_at, a check without host.hostname, a number out of its field's range.
// One pass over the bytes (JsonCursor) picks out the fields used and skips the rest without
// building a document; a text that pass refuses is handed to ParseFleetReportWithDom, so the
// result and every message are nlohmann's.
Result<FleetReportFile> ParseFleetReport(std::string_view text, const std::string& source);

// The same through nlohmann's whole-document parser: the reference ParseFleetReport is tested
// (and fuzzed) against, and its fallback for texts the fast pass refuses.
Result<FleetReportFile> ParseFleetReportWithDom(std::string_view text, const std::string& source);

// Every field of `r` in one text (numbers in hexadecimal, strings quoted), for comparing two
// readers' results byte for byte (tests, the fuzz target).
std::string DescribeFleetReportFile(const FleetReportFile& r);

// Builds the nodes from parsed reports (any order). A bench report belongs to the host whose
// check reports share its directory; with none (or several hosts there) to the directory's name.
FleetInput BuildFleetFromReports(std::vector<FleetReportFile> reports, double now, double window_s);

// Walks `dir` recursively. NotFound / InvalidInput when `dir` is not a readable directory; files
// that cannot be read or parsed land in FleetInput::skipped (in path order). Files are read and
// parsed on up to 4 threads, each with one reused buffer; the result does not depend on them. A
// check report that is not its node's newest is cut down to its samples once a newer one is seen,
// so memory follows the nodes (one full report each), not the reports or their bytes.
Result<FleetInput> ReadFleetReports(const std::string& dir, double now, double window_s);

}  // namespace gpuvet
