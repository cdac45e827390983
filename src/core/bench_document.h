// Reading a `gpuvet.bench/v1` document (docs/bench.md) back: the one reader both consumers use,
// `bench --baseline` (strict: ParseBenchBaseline refuses a malformed entry) and the fleet's report
// directory (lenient: sources/fleet/fleet_reports takes what is usable). It lives in core because
// those two sit in sibling layers (output, sources) that may not include each other.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/bench.h"
#include "util/status.h"

namespace gpuvet {

// "measured", "unavailable", "failed", "incomplete", "abandoned": the "status" of a measurement
// in the document.
const char* BenchOutcomeName(BenchOutcome outcome);

// One entry of "gpus" as written, only identity and maximum link.
struct BenchDocumentGpu {
  // A JSON integer within int range as it is; else an integral number within -1..1e6; else -1.
  int index = -1;
  bool index_is_integer = false;  // "index" is a JSON integer (not 1.0) within int range
  std::string uuid, name, pci_bus_id, vbios_version;   // "" when absent or not strings
  std::optional<double> pcie_gen_max, pcie_width_max;  // "pcie": numbers only
};

// One entry of "measurements".
struct BenchDocumentEntry {
  // id, gpu, peer, median, unit, numa_node, skipped and outcome as the document holds them: id ""
  // when not a string; gpu/peer as BenchDocumentGpu::index reads an index; median 0
  // without a number; outcome from "status", else (older reports) unavailable when "skipped" is a
  // string, else measured; skipped "not measured" for an entry that is not measured and says
  // nothing. method, bytes, samples, min and max are not read back.
  BenchMeasurement m;
  bool has_median = false;   // "median" is a number
  bool skipped_set = false;  // "skipped" is present and not null, whatever its type
  // Why a strict reader refuses this entry ("\"gpu\" must be an integer"); "" when well-formed.
  std::string problem;
};

// The parts of a bench report its readers use.
struct BenchDocument {
  std::string mode;  // run.mode ("quick", "full", "tiny"); "" when not recorded
  std::vector<BenchDocumentGpu> gpus;
  std::vector<BenchDocumentEntry> measurements;
  // The first structural problem ("\"measurements\" must be an array", "measurements[2]:
  // \"median\" must be a number"); "" when the document is well-formed.
  std::string problem;
};

// Parses `text`. InvalidInput "not JSON at byte N: …" for malformed JSON and "not a gpuvet bench
// report (…)" for another document; every other defect only fills the `problem` fields, so a
// lenient reader can still take the usable parts.
Result<BenchDocument> ReadBenchDocument(std::string_view text);

// The same over a document already parsed (the fleet reader parses each file once to learn its
// schema).
Result<BenchDocument> ReadBenchDocument(const nlohmann::json& doc);

// An earlier `gpuvet bench --format json` output for --baseline: its measurements, its mode and
// the PCI bus id of each GPU (by CUDA ordinal) when present. InvalidInput prefixed with
// `filename` for anything ReadBenchDocument refuses or reports as a problem.
Result<BenchBaseline> ParseBenchBaseline(std::string_view text, const std::string& filename);

}  // namespace gpuvet
