// Reading gpuvet JSON documents back for the HTML report (output/html/html_*): a checked accessor
// that records the first missing key or wrong type with its path ("findings[3].severity: expected a
// string"), so each per-schema reader fills its view in straight-line code and a malformed or
// foreign document becomes one clear error, never an exception or a partial page. Also the
// finding view every report with findings shares.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "output/html/html_page.h"
#include "util/status.h"

namespace gpuvet::html {

// A JSON value and where it sits in the document.
struct Node {
  const nlohmann::json* json = nullptr;
  std::string path;  // "ranks[1].temporal_breakdown"
};

class DocReader {
 public:
  // `what` names the document in errors ("report.json (gpuvet.trace/v1)").
  explicit DocReader(std::string what) : what_(std::move(what)) {}

  // Required fields: a missing key or another type records an error and returns a default.
  std::string Str(const Node& n, const char* key);
  double Num(const Node& n, const char* key);
  int Int(const Node& n, const char* key);
  bool Bool(const Node& n, const char* key);
  Node Obj(const Node& n, const char* key);
  std::vector<Node> Arr(const Node& n, const char* key);
  // Optional fields: absent or null is nullopt / empty; another type is an error.
  std::optional<std::string> OptStr(const Node& n, const char* key);
  std::optional<double> OptNum(const Node& n, const char* key);
  std::optional<Node> OptObj(const Node& n, const char* key);
  std::vector<Node> OptArr(const Node& n, const char* key);
  // Array elements that must be strings / numbers.
  std::vector<std::string> StrArr(const Node& n, const char* key);
  std::vector<double> NumArr(const Node& n, const char* key);
  // A severity name (ok, info, warn, unknown, fail); anything else is an error.
  std::string Severity(const Node& n, const char* key);

  // Records an error at `n` unless one is already recorded.
  void Fail(const Node& n, const std::string& message);
  bool ok() const { return error_.empty(); }
  // Ok, or InvalidInput naming the document, the path and the problem.
  Status status() const;

 private:
  const nlohmann::json* Field(const Node& n, const char* key, bool required);
  std::string what_;
  std::string error_;
};

// A finding as the JSON renderers write it (check, bench, trace, fleet).
struct FindingView {
  std::string id, area, subject, severity, summary, meaning, decision;
  std::vector<EvidenceRow> evidence;
  std::optional<int> gpu_index;
  std::string gpu_serial, gpu_uuid, gpu_pci_bus_id;
};
FindingView ReadFinding(DocReader& r, const Node& n);
std::vector<FindingView> ReadFindings(DocReader& r, const Node& doc, const char* key);
FindingBlock ToBlock(const FindingView& f);

// Severity counts of a verdict ({"ok": 3, "fail": 1, …}).
struct SeverityCounts {
  int ok = 0, info = 0, warn = 0, unknown = 0, fail = 0;
};
SeverityCounts ReadCounts(DocReader& r, const Node& n, const char* key);
// "1 fail, 2 warn, 40 ok" (zero counts left out).
std::string CountsText(const SeverityCounts& c);

// The worst finding (fail > unknown > warn > info), the first of equals; nullptr when all ok.
const FindingView* WorstFinding(const std::vector<FindingView>& findings);

}  // namespace gpuvet::html
