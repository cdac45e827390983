// Fleet audit JSON renderer (see fleet_json.h). Meaning and decision come from the fleet
// catalogue, so every finding in the document explains itself. The streamed writer lays the text
// out as nlohmann's dump(2) does (members in key order, two spaces per level, "[]" and "{}" when
// empty) and hands every string that needs escaping, and every double, to nlohmann itself, so
// the two renderers cannot differ in how a value is written.
#include "output/json/fleet_json.h"

#include <fmt/format.h>

#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

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

// Appends JSON text in nlohmann's dump(2) layout. Open/close pairs track whether the container
// has a member yet, for the comma and the "{}" / "[]" of an empty one.
class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  // A member's key (then its value); keys must come in sorted order, as nlohmann's map has them.
  void Key(std::string_view key) {
    Next();
    out_ += '"';
    out_.append(key);  // the renderer's own names: nothing to escape
    out_ += "\": ";
    pending_value_ = true;
  }
  void String(std::string_view s) {
    Value();
    if (Plain(s)) {
      out_ += '"';
      out_.append(s);
      out_ += '"';
    } else {
      out_ += json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
    }
  }
  void Int(long long v) {
    Value();
    fmt::format_to(std::back_inserter(out_), "{}", v);
  }
  void Unsigned(unsigned long long v) {
    Value();
    fmt::format_to(std::back_inserter(out_), "{}", v);
  }
  void Double(double v) {
    Value();
    out_ += json(v).dump();
  }
  void Bool(bool v) {
    Value();
    out_ += v ? "true" : "false";
  }

 private:
  // Printable ASCII without a quote or backslash: nlohmann writes such a string as it is.
  static bool Plain(std::string_view s) {
    for (char c : s) {
      if (c < 0x20 || c > 0x7E || c == '"' || c == '\\') return false;
    }
    return true;
  }
  // Before an element of an array (or the top-level value): its comma, newline and indent.
  void Value() {
    if (pending_value_) {
      pending_value_ = false;
      return;
    }
    if (!has_member_.empty()) Next();
  }
  void Next() {
    if (has_member_.back()) out_ += ',';
    has_member_.back() = true;
    out_ += '\n';
    out_.append(2 * has_member_.size(), ' ');
  }
  void Open(char c) {
    Value();
    out_ += c;
    has_member_.push_back(false);
  }
  void Close(char c) {
    const bool any = has_member_.back();
    has_member_.pop_back();
    if (any) {
      out_ += '\n';
      out_.append(2 * has_member_.size(), ' ');
    }
    out_ += c;
  }

  std::string& out_;
  std::vector<bool> has_member_;  // per open container
  bool pending_value_ = false;    // a key was written: the value follows on its line
};

void WriteFinding(JsonWriter& w, const Finding& f) {
  const FleetFindingInfo* info = FindFleetFinding(f.id);
  w.BeginObject();
  w.Key("decision");
  w.String(info ? std::string_view(info->decision) : std::string_view());
  w.Key("evidence");
  w.BeginArray();
  for (const Evidence& e : f.evidence) {
    w.BeginObject();
    w.Key("name");
    w.String(e.name);
    if (!e.threshold.empty()) {
      w.Key("threshold");
      w.String(e.threshold);
    }
    w.Key("value");
    w.String(e.value);
    w.EndObject();
  }
  w.EndArray();
  w.Key("id");
  w.String(f.id);
  w.Key("meaning");
  w.String(info ? std::string_view(info->meaning) : std::string_view());
  w.Key("severity");
  w.String(SeverityName(f.severity));
  w.Key("subject");
  w.String(f.subject);
  w.Key("summary");
  w.String(f.summary);
  w.EndObject();
}

void WriteStrings(JsonWriter& w, const std::vector<std::string>& list) {
  w.BeginArray();
  for (const std::string& s : list) w.String(s);
  w.EndArray();
}

}  // namespace

std::string RenderFleetJson(const FleetReport& report, int exit_code) {
  std::string out;
  // About 2 KB per node at the fixtures' size: one allocation for most audits.
  out.reserve(4096 + 2048 * report.nodes.size());
  JsonWriter w(out);
  int counts[5] = {};  // by Severity, for node_counts
  size_t quarantined = 0;
  for (const FleetNodeResult& n : report.nodes) {
    ++counts[static_cast<int>(n.verdict)];
    if (n.quarantine) ++quarantined;
  }
  w.BeginObject();
  w.Key("generated_at");
  w.String(report.generated_at);
  w.Key("gpuvet_version");
  w.String(report.gpuvet_version);
  w.Key("nodes");
  w.BeginArray();
  long long rank = 0;
  for (const FleetNodeResult& n : report.nodes) {
    w.BeginObject();
    w.Key("findings");
    w.BeginArray();
    for (const Finding& f : n.findings) WriteFinding(w, f);
    w.EndArray();
    w.Key("node");
    w.String(n.node);
    w.Key("pool");
    w.String(n.pool);
    w.Key("quarantine");
    w.Bool(n.quarantine);
    w.Key("rank");
    w.Int(++rank);
    w.Key("score");
    w.Int(n.score);
    w.Key("sources");
    WriteStrings(w, n.sources);
    w.Key("verdict");
    w.String(SeverityName(n.verdict));
    w.EndObject();
  }
  w.EndArray();
  w.Key("origin");
  w.String(report.origin);
  w.Key("policy");
  w.String(report.policy_source);
  w.Key("quarantine");
  w.BeginArray();
  for (const FleetNodeResult& n : report.nodes) {
    if (!n.quarantine) continue;
    w.BeginObject();
    w.Key("finding_ids");
    WriteStrings(w, n.reason_ids);
    w.Key("node");
    w.String(n.node);
    w.Key("reason");
    w.String(n.reason);
    w.EndObject();
  }
  w.EndArray();
  w.Key("schema");
  w.String(kFleetSchema);
  w.Key("skipped");
  w.BeginArray();
  for (const FleetSkipped& s : report.skipped) {
    w.BeginObject();
    w.Key("reason");
    w.String(s.reason);
    w.Key("source");
    w.String(s.source);
    w.EndObject();
  }
  w.EndArray();
  w.Key("verdict");
  w.BeginObject();
  w.Key("exit_code");
  w.Int(exit_code);
  w.Key("node_counts");
  w.BeginObject();
  for (Severity s : {Severity::kFail, Severity::kInfo, Severity::kOk, Severity::kUnknown,
                     Severity::kWarn}) {  // in the order of their names
    w.Key(SeverityName(s));
    w.Int(counts[static_cast<int>(s)]);
  }
  w.EndObject();
  w.Key("nodes");
  w.Unsigned(report.nodes.size());
  w.Key("quarantine");
  w.Unsigned(quarantined);
  w.Key("severity");
  w.String(SeverityName(report.verdict));
  w.EndObject();
  w.Key("window_s");
  w.Double(report.window_s);
  w.EndObject();
  out += '\n';
  return out;
}

std::string RenderFleetJsonWithDom(const FleetReport& report, int exit_code) {
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
    json node = json::object();
    node["rank"] = ++rank;
    node["node"] = n.node;
    node["pool"] = n.pool;
    node["verdict"] = std::string(SeverityName(n.verdict));
    node["score"] = n.score;
    node["quarantine"] = n.quarantine;
    node["sources"] = n.sources;
    node["findings"] = std::move(findings);
    nodes.push_back(std::move(node));
    ++counts[std::string(SeverityName(n.verdict))];
    if (n.quarantine) {
      quarantine.push_back({{"node", n.node}, {"reason", n.reason}, {"finding_ids", n.reason_ids}});
    }
  }
  // Moved, not copied: at 10,000 nodes a copy of the document doubled the peak memory.
  const size_t quarantined = quarantine.size();
  j["nodes"] = std::move(nodes);
  j["quarantine"] = std::move(quarantine);
  json skipped = json::array();
  for (const FleetSkipped& s : report.skipped) {
    skipped.push_back({{"source", s.source}, {"reason", s.reason}});
  }
  j["skipped"] = std::move(skipped);
  j["verdict"] = {{"severity", std::string(SeverityName(report.verdict))},
                  {"nodes", report.nodes.size()},
                  {"quarantine", quarantined},
                  {"node_counts", counts},
                  {"exit_code", exit_code}};
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace gpuvet
