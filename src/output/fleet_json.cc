// Fleet audit JSON renderer (see fleet_json.h). Meaning and decision come from the fleet
// catalogue, so every finding in the document explains itself.
#include "output/fleet_json.h"

#include <map>
#include <nlohmann/json.hpp>

#include "core/fleet_catalogue.h"

namespace gpuvet {

using nlohmann::json;

namespace {

json FleetFindingToJson(const Finding& f) {
  const FleetFindingInfo* info = FindFleetFinding(f.id);
  json ev = json::array();
  for (const Evidence& e : f.evidence) {
    json item = {{"name", e.name}, {"value", e.value}};
    if (!e.threshold.empty()) item["threshold"] = e.threshold;
    ev.push_back(item);
  }
  return {{"id", f.id},
          {"subject", f.subject},
          {"severity", std::string(SeverityName(f.severity))},
          {"summary", f.summary},
          {"evidence", ev},
          {"meaning", info ? std::string(info->meaning) : ""},
          {"decision", info ? std::string(info->decision) : ""}};
}

}  // namespace

std::string RenderFleetJson(const FleetReport& report, int exit_code) {
  json j;
  j["schema"] = kFleetSchema;
  j["gpuvet_version"] = report.gpuvet_version;
  j["generated_at"] = report.generated_at;
  j["origin"] = report.origin;
  j["policy"] = report.policy_source;
  j["window_s"] = report.window_s;
  json nodes = json::array(), quarantine = json::array();
  std::map<std::string, int> counts = {
      {"ok", 0}, {"info", 0}, {"warn", 0}, {"unknown", 0}, {"fail", 0}};
  int rank = 0;
  for (const FleetNodeResult& n : report.nodes) {
    json findings = json::array();
    for (const Finding& f : n.findings) findings.push_back(FleetFindingToJson(f));
    nodes.push_back({{"rank", ++rank},
                     {"node", n.node},
                     {"pool", n.pool},
                     {"verdict", std::string(SeverityName(n.verdict))},
                     {"score", n.score},
                     {"quarantine", n.quarantine},
                     {"sources", n.sources},
                     {"findings", findings}});
    ++counts[std::string(SeverityName(n.verdict))];
    if (n.quarantine) {
      quarantine.push_back({{"node", n.node}, {"reason", n.reason}, {"finding_ids", n.reason_ids}});
    }
  }
  j["nodes"] = nodes;
  j["quarantine"] = quarantine;
  json skipped = json::array();
  for (const FleetSkipped& s : report.skipped) {
    skipped.push_back({{"source", s.source}, {"reason", s.reason}});
  }
  j["skipped"] = skipped;
  j["verdict"] = {{"severity", std::string(SeverityName(report.verdict))},
                  {"nodes", report.nodes.size()},
                  {"quarantine", quarantine.size()},
                  {"node_counts", counts},
                  {"exit_code", exit_code}};
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace gpuvet
