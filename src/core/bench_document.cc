// The gpuvet.bench/v1 reader (see bench_document.h). Every field is type-checked before it is
// read, so hostile numbers (1e300 as an index) never reach a float-to-int conversion.
#include "core/bench_document.h"

#include <fmt/format.h>

#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>

namespace gpuvet {

namespace {

using nlohmann::json;

std::string Str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::optional<double> Num(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

// A JSON integer within int range.
std::optional<int> Integer(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return std::nullopt;
  const json& v = j[key];
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT_MAX)) return std::nullopt;
    return static_cast<int>(u);
  }
  if (!v.is_number_integer()) return std::nullopt;
  const auto i = v.get<int64_t>();
  if (i < INT_MIN || i > INT_MAX) return std::nullopt;
  return static_cast<int>(i);
}

// An index-like field: a JSON integer within int range, else an integral number within -1..1e6,
// else -1.
int Index(const json& j, const char* key) {
  if (std::optional<int> i = Integer(j, key)) return *i;
  std::optional<double> v = Num(j, key);
  if (!v || *v < -1 || *v > 1e6 || *v != std::floor(*v)) return -1;
  return static_cast<int>(*v);
}

// The outcome an entry names; entries of older reports have only "skipped".
BenchOutcome OutcomeOf(const json& e) {
  if (e.contains("status") && e["status"].is_string()) {
    const std::string s = e["status"].get<std::string>();
    for (BenchOutcome o :
         {BenchOutcome::kMeasured, BenchOutcome::kUnavailable, BenchOutcome::kFailed,
          BenchOutcome::kIncomplete, BenchOutcome::kAbandoned}) {
      if (s == BenchOutcomeName(o)) return o;
    }
    return BenchOutcome::kFailed;
  }
  const bool skipped = e.contains("skipped") && e["skipped"].is_string();
  return skipped ? BenchOutcome::kUnavailable : BenchOutcome::kMeasured;
}

BenchDocumentEntry ReadEntry(const json& e) {
  BenchDocumentEntry out;
  BenchMeasurement& m = out.m;
  if (!e.is_object()) {
    out.problem = "must be an object";
    return out;
  }
  m.id = Str(e, "id");
  m.gpu = Index(e, "gpu");
  m.peer = Index(e, "peer");
  m.outcome = OutcomeOf(e);
  out.has_median = e.contains("median") && e["median"].is_number();
  m.median = out.has_median ? e["median"].get<double>() : 0;
  m.unit = Str(e, "unit");
  if (std::optional<int> numa = Integer(e, "numa_node")) m.numa_node = *numa;
  m.skipped = Str(e, "skipped");
  out.skipped_set = e.contains("skipped") && !e["skipped"].is_null();
  if (!m.measured() && m.skipped.empty()) m.skipped = "not measured";
  if (!e.contains("id") || !e["id"].is_string()) {
    out.problem = "\"id\" must be a string";
  } else if (!Integer(e, "gpu")) {
    out.problem = "\"gpu\" must be an integer";
  } else if (!Integer(e, "peer")) {
    out.problem = "\"peer\" must be an integer";
  } else if (m.measured() && !out.has_median) {
    out.problem = "\"median\" must be a number";
  }
  return out;
}

}  // namespace

const char* BenchOutcomeName(BenchOutcome o) {
  switch (o) {
    case BenchOutcome::kMeasured:
      return "measured";
    case BenchOutcome::kUnavailable:
      return "unavailable";
    case BenchOutcome::kFailed:
      return "failed";
    case BenchOutcome::kIncomplete:
      return "incomplete";
    case BenchOutcome::kAbandoned:
      return "abandoned";
  }
  return "failed";
}

Result<BenchDocument> ReadBenchDocument(std::string_view text) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return InvalidInput(fmt::format("not JSON at byte {}: {}", e.byte, e.what()));
  } catch (const json::out_of_range& e) {
    // 1e999999: the parser refuses a number no double holds.
    return InvalidInput(fmt::format(
        "a number does not fit: {}",
        std::string(std::string_view(e.what()).substr(std::string_view(e.what()).find("] ") + 2))));
  }
  return ReadBenchDocument(doc);
}

Result<BenchDocument> ReadBenchDocument(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != kBenchSchema) {
    return InvalidInput(
        fmt::format("not a gpuvet bench report (expected \"schema\": \"{}\"; write one with "
                    "`gpuvet bench --format json`)",
                    kBenchSchema));
  }
  BenchDocument out;
  if (doc.contains("run")) out.mode = Str(doc["run"], "mode");
  if (doc.contains("gpus") && doc["gpus"].is_array()) {
    for (const json& g : doc["gpus"]) {
      BenchDocumentGpu gpu;
      gpu.index = Index(g, "index");
      gpu.index_is_integer = Integer(g, "index").has_value();
      gpu.uuid = Str(g, "uuid");
      gpu.name = Str(g, "name");
      gpu.pci_bus_id = Str(g, "pci_bus_id");
      gpu.vbios_version = Str(g, "vbios_version");
      if (g.is_object() && g.contains("pcie")) {
        gpu.pcie_gen_max = Num(g["pcie"], "gen_max");
        gpu.pcie_width_max = Num(g["pcie"], "width_max");
      }
      out.gpus.push_back(std::move(gpu));
    }
  }
  const json* list = doc.contains("measurements") ? &doc["measurements"] : nullptr;
  if (!list || !list->is_array()) {
    out.problem = "\"measurements\" must be an array";
    return out;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    BenchDocumentEntry e = ReadEntry((*list)[i]);
    if (out.problem.empty() && !e.problem.empty()) {
      out.problem = fmt::format("measurements[{}]: {}", i, e.problem);
    }
    out.measurements.push_back(std::move(e));
  }
  return out;
}

Result<BenchBaseline> ParseBenchBaseline(std::string_view text, const std::string& filename) {
  Result<BenchDocument> doc = ReadBenchDocument(text);
  if (!doc.ok()) return InvalidInput(filename + ": " + doc.status().message());
  if (!doc->problem.empty()) return InvalidInput(filename + ": " + doc->problem);
  BenchBaseline out;
  out.mode = doc->mode;
  for (const BenchDocumentGpu& g : doc->gpus) {
    if (g.index_is_integer && !g.pci_bus_id.empty())
      out.bus_ids.emplace_back(g.index, g.pci_bus_id);
  }
  for (BenchDocumentEntry& e : doc.value().measurements) out.measurements.push_back(std::move(e.m));
  return out;
}

}  // namespace gpuvet
