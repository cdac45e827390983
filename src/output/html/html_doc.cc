// The checked JSON accessor and the shared finding view of the HTML report
// (output/html/html_doc.h).
#include "output/html/html_doc.h"

namespace gpuvet::html {
namespace {

const char* TypeName(const nlohmann::json& j) { return j.type_name(); }

std::string Join(const std::string& path, const char* key) {
  return path.empty() ? std::string(key) : path + "." + key;
}

}  // namespace

void DocReader::Fail(const Node& n, const std::string& message) {
  if (error_.empty())
    error_ = (n.path.empty() ? std::string("(top level)") : n.path) + ": " + message;
}

Status DocReader::status() const {
  return error_.empty() ? Status::Ok() : InvalidInput(what_ + ": " + error_);
}

const nlohmann::json* DocReader::Field(const Node& n, const char* key, bool required) {
  if (!n.json || !n.json->is_object()) {
    if (n.json) Fail(n, std::string("expected an object, found ") + TypeName(*n.json));
    return nullptr;
  }
  auto it = n.json->find(key);
  if (it == n.json->end() || (!required && it->is_null())) {
    if (required) Fail(n, std::string("missing key \"") + key + "\"");
    return nullptr;
  }
  return &*it;
}

std::string DocReader::Str(const Node& n, const char* key) {
  const nlohmann::json* j = Field(n, key, true);
  if (!j) return "";
  if (!j->is_string()) {
    Fail({j, Join(n.path, key)}, std::string("expected a string, found ") + TypeName(*j));
    return "";
  }
  return j->get<std::string>();
}

double DocReader::Num(const Node& n, const char* key) {
  const nlohmann::json* j = Field(n, key, true);
  if (!j) return 0;
  if (!j->is_number()) {
    Fail({j, Join(n.path, key)}, std::string("expected a number, found ") + TypeName(*j));
    return 0;
  }
  return j->get<double>();
}

int DocReader::Int(const Node& n, const char* key) {
  const nlohmann::json* j = Field(n, key, true);
  if (!j) return 0;
  if (!j->is_number_integer() || j->get<int64_t>() < -(int64_t{1} << 31) ||
      j->get<int64_t>() >= (int64_t{1} << 31)) {
    Fail({j, Join(n.path, key)}, std::string("expected an integer, found ") + TypeName(*j));
    return 0;
  }
  return static_cast<int>(j->get<int64_t>());
}

bool DocReader::Bool(const Node& n, const char* key) {
  const nlohmann::json* j = Field(n, key, true);
  if (!j) return false;
  if (!j->is_boolean()) {
    Fail({j, Join(n.path, key)}, std::string("expected true or false, found ") + TypeName(*j));
    return false;
  }
  return j->get<bool>();
}

Node DocReader::Obj(const Node& n, const char* key) {
  const nlohmann::json* j = Field(n, key, true);
  if (j && !j->is_object()) {
    Fail({j, Join(n.path, key)}, std::string("expected an object, found ") + TypeName(*j));
    return {nullptr, Join(n.path, key)};
  }
  return {j, Join(n.path, key)};
}

std::vector<Node> DocReader::Arr(const Node& n, const char* key) {
  const nlohmann::json* j = Field(n, key, true);
  std::vector<Node> out;
  if (!j) return out;
  if (!j->is_array()) {
    Fail({j, Join(n.path, key)}, std::string("expected an array, found ") + TypeName(*j));
    return out;
  }
  for (size_t i = 0; i < j->size(); ++i) {
    out.push_back({&(*j)[i], Join(n.path, key) + "[" + std::to_string(i) + "]"});
  }
  return out;
}

std::optional<std::string> DocReader::OptStr(const Node& n, const char* key) {
  const nlohmann::json* j = Field(n, key, false);
  if (!j) return std::nullopt;
  if (!j->is_string()) {
    Fail({j, Join(n.path, key)}, std::string("expected a string or null, found ") + TypeName(*j));
    return std::nullopt;
  }
  return j->get<std::string>();
}

std::optional<double> DocReader::OptNum(const Node& n, const char* key) {
  const nlohmann::json* j = Field(n, key, false);
  if (!j) return std::nullopt;
  if (!j->is_number()) {
    Fail({j, Join(n.path, key)}, std::string("expected a number or null, found ") + TypeName(*j));
    return std::nullopt;
  }
  return j->get<double>();
}

std::optional<Node> DocReader::OptObj(const Node& n, const char* key) {
  const nlohmann::json* j = Field(n, key, false);
  if (!j) return std::nullopt;
  if (!j->is_object()) {
    Fail({j, Join(n.path, key)}, std::string("expected an object or null, found ") + TypeName(*j));
    return std::nullopt;
  }
  return Node{j, Join(n.path, key)};
}

std::vector<Node> DocReader::OptArr(const Node& n, const char* key) {
  const nlohmann::json* j = Field(n, key, false);
  if (!j) return {};
  return Arr(n, key);
}

std::vector<std::string> DocReader::StrArr(const Node& n, const char* key) {
  std::vector<std::string> out;
  for (const Node& e : Arr(n, key)) {
    if (!e.json->is_string()) {
      Fail(e, std::string("expected a string, found ") + TypeName(*e.json));
      break;
    }
    out.push_back(e.json->get<std::string>());
  }
  return out;
}

std::vector<double> DocReader::NumArr(const Node& n, const char* key) {
  std::vector<double> out;
  for (const Node& e : Arr(n, key)) {
    if (!e.json->is_number()) {
      Fail(e, std::string("expected a number, found ") + TypeName(*e.json));
      break;
    }
    out.push_back(e.json->get<double>());
  }
  return out;
}

std::string DocReader::Severity(const Node& n, const char* key) {
  std::string s = Str(n, key);
  if (ok() && s != "ok" && s != "info" && s != "warn" && s != "unknown" && s != "fail") {
    Fail({nullptr, Join(n.path, key)}, "unknown severity \"" + s + "\"");
  }
  return s;
}

FindingView ReadFinding(DocReader& r, const Node& n) {
  FindingView f;
  f.id = r.Str(n, "id");
  f.area = r.OptStr(n, "area").value_or("");
  f.subject = r.Str(n, "subject");
  f.severity = r.Severity(n, "severity");
  f.summary = r.Str(n, "summary");
  f.meaning = r.OptStr(n, "meaning").value_or("");
  f.decision = r.OptStr(n, "decision").value_or("");
  for (const Node& e : r.Arr(n, "evidence")) {
    EvidenceRow row;
    row.name = r.Str(e, "name");
    row.value = r.Str(e, "value");
    row.threshold = r.OptStr(e, "threshold").value_or("");
    f.evidence.push_back(std::move(row));
  }
  if (std::optional<Node> g = r.OptObj(n, "gpu")) {
    if (std::optional<double> i = r.OptNum(*g, "index")) f.gpu_index = static_cast<int>(*i);
    f.gpu_pci_bus_id = r.OptStr(*g, "pci_bus_id").value_or("");
    f.gpu_serial = r.OptStr(*g, "serial").value_or("");
    f.gpu_uuid = r.OptStr(*g, "uuid").value_or("");
  }
  return f;
}

std::vector<FindingView> ReadFindings(DocReader& r, const Node& doc, const char* key) {
  std::vector<FindingView> out;
  for (const Node& n : r.Arr(doc, key)) {
    out.push_back(ReadFinding(r, n));
    if (!r.ok()) break;
  }
  return out;
}

FindingBlock ToBlock(const FindingView& f) {
  FindingBlock b{f.id, f.severity, f.subject, f.summary, f.meaning, f.decision, f.evidence};
  if (!f.gpu_serial.empty() || !f.gpu_uuid.empty()) {
    b.evidence.push_back({"gpu identity",
                          "serial " + (f.gpu_serial.empty() ? "—" : f.gpu_serial) + ", " +
                              (f.gpu_uuid.empty() ? "—" : f.gpu_uuid),
                          ""});
  }
  return b;
}

SeverityCounts ReadCounts(DocReader& r, const Node& n, const char* key) {
  Node c = r.Obj(n, key);
  SeverityCounts out;
  out.ok = r.Int(c, "ok");
  out.info = r.Int(c, "info");
  out.warn = r.Int(c, "warn");
  out.unknown = r.Int(c, "unknown");
  out.fail = r.Int(c, "fail");
  return out;
}

std::string CountsText(const SeverityCounts& c) {
  std::string out;
  auto add = [&](int n, const char* name) {
    if (n == 0) return;
    if (!out.empty()) out += ", ";
    out += std::to_string(n) + " " + name;
  };
  add(c.fail, "fail");
  add(c.unknown, "unknown");
  add(c.warn, "warn");
  add(c.info, "info");
  add(c.ok, "ok");
  return out.empty() ? "nothing checked" : out;
}

const FindingView* WorstFinding(const std::vector<FindingView>& findings) {
  const FindingView* worst = nullptr;
  for (const FindingView& f : findings) {
    if (SeverityRank(f.severity) == 0) continue;
    if (!worst || SeverityRank(f.severity) > SeverityRank(worst->severity)) worst = &f;
  }
  return worst;
}

}  // namespace gpuvet::html
