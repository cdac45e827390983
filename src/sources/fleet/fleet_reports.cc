// Fleet report directory reader (see fleet_reports.h). Findings are read back from the check
// JSON by id: ecc.volatile_sbe / ecc.volatile_dbe carry the counts, throttle.* the clock event
// reason bits, so the fleet needs nothing the check report does not already publish.
#include "sources/fleet/fleet_reports.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "core/bench.h"
#include "core/bench_document.h"
#include "core/report.h"
#include "sources/fleet/json_cursor.h"
#include "util/file.h"
#include "util/iso_time.h"
#include "util/strings.h"

namespace gpuvet {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// NVML clock event reason bits (nvml.h nvmlClocksEventReason*): HW slowdown 0x8, SW thermal
// 0x20, HW thermal 0x40 count as thermal; SW power cap 0x4 and HW power brake 0x80 as power.
constexpr uint64_t kThermalBits = 0x8 | 0x20 | 0x40;
constexpr uint64_t kPowerBits = 0x4 | 0x80;

std::string Str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// A number as nlohmann typed it; nullopt for anything else.
std::optional<JsonNumber> NumberOf(const json& v) {
  if (v.is_number_unsigned()) {
    return JsonNumber{JsonNumber::Kind::kUnsigned, 0, v.get<uint64_t>(), v.get<double>()};
  }
  if (v.is_number_integer()) {
    return JsonNumber{JsonNumber::Kind::kInteger, v.get<int64_t>(), 0, v.get<double>()};
  }
  if (v.is_number_float()) return JsonNumber{JsonNumber::Kind::kFloat, 0, 0, v.get<double>()};
  return std::nullopt;
}

std::optional<JsonNumber> NumberAt(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return std::nullopt;
  return NumberOf(j[key]);
}

// The number back as a JSON value of its type (its dump() is the text nlohmann would print).
json ToJson(const JsonNumber& n) {
  switch (n.kind) {
    case JsonNumber::Kind::kInteger:
      return json(n.integer);
    case JsonNumber::Kind::kUnsigned:
      return json(n.unsigned_integer);
    case JsonNumber::Kind::kFloat:
      break;
  }
  return json(n.value);
}

// A list whose elements (and their strings' storage) are kept across Clear(), so a reader that
// parses thousands of reports allocates for the largest, not for each.
template <typename T>
class ReusedList {
 public:
  void Clear() { size_ = 0; }
  T& Add() {
    if (size_ == items_.size()) items_.emplace_back();
    T& t = items_[size_++];
    t.Reset();
    return t;
  }
  size_t size() const { return size_; }
  const T* begin() const { return items_.data(); }
  const T* end() const { return items_.data() + size_; }
  const T& operator[](size_t i) const { return items_[i]; }

 private:
  std::vector<T> items_;
  size_t size_ = 0;
};

// The fields of one report the fleet looks at, as either front end found them (the fast
// JsonCursor one or the nlohmann DOM one), with nlohmann's reading rules: a string field that is
// absent or not a string is "", a number keeps its JSON type, a key given twice takes its last
// value. One interpretation (Interpret below) serves both front ends.
struct ReportGpu {
  std::optional<JsonNumber> index, gpu_util_pct;
  std::string uuid, name, pci_bus_id, vbios_version;
  bool has_pcie = false;                                     // "pcie" is present, whatever its type
  std::optional<JsonNumber> gen, gen_max, width, width_max;  // pcie's, when it is an object
  void ResetPcie() {
    has_pcie = false;
    gen = gen_max = width = width_max = std::nullopt;
  }
  void Reset() {
    index = gpu_util_pct = std::nullopt;
    uuid.clear();
    name.clear();
    pci_bus_id.clear();
    vbios_version.clear();
    ResetPcie();
  }
};

struct ReportFinding {
  std::string id, severity, subject, summary;
  // The value of the first "evidence" entry with that name; nullopt when there is none or
  // "evidence" is not an array.
  std::optional<std::string> uncorrected_volatile, corrected_volatile, clock_event_reasons;
  void ResetEvidence() {
    uncorrected_volatile.reset();
    corrected_volatile.reset();
    clock_event_reasons.reset();
  }
  void Reset() {
    id.clear();
    severity.clear();
    subject.clear();
    summary.clear();
    ResetEvidence();
  }
  // One evidence entry, in order.
  void AddEvidence(const std::string& name, const std::string& value) {
    std::optional<std::string>* slot = nullptr;
    if (KeyIs(name, "uncorrected_volatile")) {
      slot = &uncorrected_volatile;
    } else if (KeyIs(name, "corrected_volatile")) {
      slot = &corrected_volatile;
    } else if (KeyIs(name, "clock_event_reasons")) {
      slot = &clock_event_reasons;
    }
    if (slot && !slot->has_value()) *slot = value;
  }
};

// One entry of a bench report's "measurements" (an object), with nlohmann's reading rules as
// above.
struct ReportBenchEntry {
  std::string id, unit;                         // "" unless a string
  std::optional<JsonNumber> gpu, peer, median;  // unset unless a number
  bool skipped_set = false;                     // "skipped" is present and not null
  void Reset() {
    id.clear();
    unit.clear();
    gpu = peer = median = std::nullopt;
    skipped_set = false;
  }
};

struct ReportFields {
  std::string schema, generated_at, hostname, driver_version, cuda_version;
  bool gpus_is_array = false;
  ReusedList<ReportGpu> gpus;
  bool findings_is_array = false;
  ReusedList<ReportFinding> findings;
  // Fast front end only: of each "measurements" entry that is an object, the members the fleet
  // takes from a bench report (ExtractBenchFast reads them as ReadBenchDocument would).
  ReusedList<ReportBenchEntry> bench_entries;
  std::string evidence_name, evidence_value;  // scratch of the fast front end
  void Reset() {
    schema.clear();
    generated_at.clear();
    hostname.clear();
    driver_version.clear();
    cuda_version.clear();
    gpus_is_array = findings_is_array = false;
    gpus.Clear();
    findings.Clear();
    bench_entries.Clear();
  }
};

// ---- The DOM front end (ParseFleetReportWithDom) ----

void FieldsFromDom(const json& doc, ReportFields& f) {
  f.Reset();
  f.schema = Str(doc, "schema");
  f.generated_at = Str(doc, "generated_at");
  f.hostname = doc.contains("host") ? Str(doc["host"], "hostname") : "";
  if (doc.contains("gpu_source")) {
    f.driver_version = Str(doc["gpu_source"], "driver_version");
    f.cuda_version = Str(doc["gpu_source"], "cuda_version");
  }
  if (doc.contains("gpus") && doc["gpus"].is_array()) {
    f.gpus_is_array = true;
    for (const json& g : doc["gpus"]) {
      ReportGpu& gpu = f.gpus.Add();
      gpu.index = NumberAt(g, "index");
      gpu.gpu_util_pct = NumberAt(g, "gpu_util_pct");
      gpu.uuid = Str(g, "uuid");
      gpu.name = Str(g, "name");
      gpu.pci_bus_id = Str(g, "pci_bus_id");
      gpu.vbios_version = Str(g, "vbios_version");
      if (g.contains("pcie")) {
        const json& p = g["pcie"];
        gpu.has_pcie = true;
        gpu.gen = NumberAt(p, "gen");
        gpu.gen_max = NumberAt(p, "gen_max");
        gpu.width = NumberAt(p, "width");
        gpu.width_max = NumberAt(p, "width_max");
      }
    }
  }
  if (doc.contains("findings") && doc["findings"].is_array()) {
    f.findings_is_array = true;
    for (const json& j : doc["findings"]) {
      ReportFinding& finding = f.findings.Add();
      finding.id = Str(j, "id");
      finding.severity = Str(j, "severity");
      finding.subject = Str(j, "subject");
      finding.summary = Str(j, "summary");
      if (j.contains("evidence") && j["evidence"].is_array()) {
        for (const json& e : j["evidence"]) finding.AddEvidence(Str(e, "name"), Str(e, "value"));
      }
    }
  }
}

// ---- The fast front end ----

// A string member's value (nlohmann's rule: "" unless it is a string).
void ReadStringField(JsonCursor& c, std::string& out) {
  std::string_view v;
  if (c.Peek() == JsonCursor::Type::kString && c.ReadString(v)) {
    out.assign(v);
  } else {
    out.clear();
    c.Skip();
  }
}

void ReadNumberField(JsonCursor& c, std::optional<JsonNumber>& out) {
  JsonNumber n;
  if (c.Peek() == JsonCursor::Type::kNumber && c.ReadNumber(n)) {
    out = n;
  } else {
    out.reset();
    c.Skip();
  }
}

void ReadGpu(JsonCursor& c, ReportGpu& g) {
  if (c.Peek() != JsonCursor::Type::kObject) {
    c.Skip();
    return;
  }
  c.BeginObject();
  bool first = true;
  std::string_view key;
  while (c.NextMember(first, key)) {
    if (KeyIs(key, "index")) {
      ReadNumberField(c, g.index);
    } else if (KeyIs(key, "gpu_util_pct")) {
      ReadNumberField(c, g.gpu_util_pct);
    } else if (KeyIs(key, "uuid")) {
      ReadStringField(c, g.uuid);
    } else if (KeyIs(key, "name")) {
      ReadStringField(c, g.name);
    } else if (KeyIs(key, "pci_bus_id")) {
      ReadStringField(c, g.pci_bus_id);
    } else if (KeyIs(key, "vbios_version")) {
      ReadStringField(c, g.vbios_version);
    } else if (KeyIs(key, "pcie")) {
      g.ResetPcie();
      g.has_pcie = true;
      if (c.Peek() != JsonCursor::Type::kObject) {
        c.Skip();
        continue;
      }
      c.BeginObject();
      bool first_link = true;
      while (c.NextMember(first_link, key)) {
        if (KeyIs(key, "gen")) {
          ReadNumberField(c, g.gen);
        } else if (KeyIs(key, "gen_max")) {
          ReadNumberField(c, g.gen_max);
        } else if (KeyIs(key, "width")) {
          ReadNumberField(c, g.width);
        } else if (KeyIs(key, "width_max")) {
          ReadNumberField(c, g.width_max);
        } else {
          c.Skip();
        }
      }
    } else {
      c.Skip();
    }
  }
}

// A finding's id, severity, subject, summary, and the evidence values ExtractCheck reads (only
// for the ids that read them; the other findings' evidence is skipped).
void ReadFinding(JsonCursor& c, ReportFinding& f, ReportFields& scratch) {
  if (c.Peek() != JsonCursor::Type::kObject) {
    c.Skip();
    return;
  }
  c.BeginObject();
  bool first = true;
  std::string_view key;
  std::string_view evidence;  // the last "evidence" value's text
  while (c.NextMember(first, key)) {
    if (KeyIs(key, "id")) {
      ReadStringField(c, f.id);
    } else if (KeyIs(key, "severity")) {
      ReadStringField(c, f.severity);
    } else if (KeyIs(key, "subject")) {
      ReadStringField(c, f.subject);
    } else if (KeyIs(key, "summary")) {
      ReadStringField(c, f.summary);
    } else if (KeyIs(key, "evidence")) {
      // Only three ids read their evidence, and "id" tends to come after "evidence" (keys are
      // sorted): remember where the last "evidence" is and read it once the id is known.
      evidence = std::string_view();
      if (!c.SkipRaw(evidence)) return;
    } else {
      c.Skip();
    }
  }
  if (evidence.empty() || evidence.front() != '[') return;
  if (!KeyIs(f.id, "ecc.volatile_dbe") && !KeyIs(f.id, "ecc.volatile_sbe") &&
      !StartsWith(f.id, "throttle.")) {
    return;
  }
  JsonCursor e(evidence);  // already validated by SkipRaw
  e.BeginArray();
  bool first_entry = true;
  while (e.NextElement(first_entry)) {
    scratch.evidence_name.clear();
    scratch.evidence_value.clear();
    if (e.Peek() != JsonCursor::Type::kObject) {
      e.Skip();
      continue;
    }
    e.BeginObject();
    bool first_member = true;
    while (e.NextMember(first_member, key)) {
      if (KeyIs(key, "name")) {
        ReadStringField(e, scratch.evidence_name);
      } else if (KeyIs(key, "value")) {
        ReadStringField(e, scratch.evidence_value);
      } else {
        e.Skip();
      }
    }
    f.AddEvidence(scratch.evidence_name, scratch.evidence_value);
  }
}

// "measurements": of each entry that is an object, the members ExtractBenchFast reads (the last
// of a key given twice, as nlohmann keeps it). Anything else is skipped: ReadBenchDocument takes
// no figure from an entry that is not an object, nor from a "measurements" that is no array.
void ReadBenchEntries(JsonCursor& c, ReusedList<ReportBenchEntry>& list) {
  list.Clear();
  if (c.Peek() != JsonCursor::Type::kArray) {
    c.Skip();
    return;
  }
  c.BeginArray();
  bool first = true;
  while (c.NextElement(first)) {
    if (c.Peek() != JsonCursor::Type::kObject) {
      c.Skip();
      continue;
    }
    ReportBenchEntry& e = list.Add();
    c.BeginObject();
    bool first_member = true;
    std::string_view key;
    while (c.NextMember(first_member, key)) {
      if (KeyIs(key, "id")) {
        ReadStringField(c, e.id);
      } else if (KeyIs(key, "unit")) {
        ReadStringField(c, e.unit);
      } else if (KeyIs(key, "gpu")) {
        ReadNumberField(c, e.gpu);
      } else if (KeyIs(key, "peer")) {
        ReadNumberField(c, e.peer);
      } else if (KeyIs(key, "median")) {
        ReadNumberField(c, e.median);
      } else if (KeyIs(key, "skipped")) {
        e.skipped_set = c.Peek() != JsonCursor::Type::kNull;
        c.Skip();
      } else {
        c.Skip();
      }
    }
  }
}

// False when the cursor refuses the text (not JSON, a number no double holds, not an object at
// the top): the caller then asks the DOM front end, for nlohmann's error message.
bool FieldsFromText(std::string_view text, ReportFields& f) {
  f.Reset();
  JsonCursor c(text);
  if (c.Peek() != JsonCursor::Type::kObject) return false;
  c.BeginObject();
  bool first = true;
  std::string_view key;
  while (c.NextMember(first, key)) {
    if (KeyIs(key, "schema")) {
      ReadStringField(c, f.schema);
    } else if (KeyIs(key, "generated_at")) {
      ReadStringField(c, f.generated_at);
    } else if (KeyIs(key, "host")) {
      f.hostname.clear();
      if (c.Peek() != JsonCursor::Type::kObject) {
        c.Skip();
        continue;
      }
      c.BeginObject();
      bool first_member = true;
      while (c.NextMember(first_member, key)) {
        if (KeyIs(key, "hostname")) {
          ReadStringField(c, f.hostname);
        } else {
          c.Skip();
        }
      }
    } else if (KeyIs(key, "gpu_source")) {
      f.driver_version.clear();
      f.cuda_version.clear();
      if (c.Peek() != JsonCursor::Type::kObject) {
        c.Skip();
        continue;
      }
      c.BeginObject();
      bool first_member = true;
      while (c.NextMember(first_member, key)) {
        if (KeyIs(key, "driver_version")) {
          ReadStringField(c, f.driver_version);
        } else if (KeyIs(key, "cuda_version")) {
          ReadStringField(c, f.cuda_version);
        } else {
          c.Skip();
        }
      }
    } else if (KeyIs(key, "gpus")) {
      f.gpus.Clear();
      f.gpus_is_array = c.Peek() == JsonCursor::Type::kArray;
      if (!f.gpus_is_array) {
        c.Skip();
        continue;
      }
      c.BeginArray();
      bool first_gpu = true;
      while (c.NextElement(first_gpu)) ReadGpu(c, f.gpus.Add());
    } else if (KeyIs(key, "findings")) {
      f.findings.Clear();
      f.findings_is_array = c.Peek() == JsonCursor::Type::kArray;
      if (!f.findings_is_array) {
        c.Skip();
        continue;
      }
      c.BeginArray();
      bool first_finding = true;
      while (c.NextElement(first_finding)) ReadFinding(c, f.findings.Add(), f);
    } else if (KeyIs(key, "measurements")) {
      ReadBenchEntries(c, f.bench_entries);
    } else {
      c.Skip();
    }
  }
  return c.AtEnd();
}

// ---- One interpretation for both front ends ----

// A number field of gpus[gpu]`part` checked against the range it can have: absent stays nullopt;
// a number outside [lo, hi] (a 30-digit integer, 1e300) sets `error` naming the field and the
// range, which makes the whole report invalid (ParseFleetReport skips it with that message).
std::optional<double> Ranged(const std::optional<JsonNumber>& n, const char* key, double lo,
                             double hi, size_t gpu, const char* part, Status& error) {
  if (!n) return std::nullopt;
  if (!(n->value >= lo && n->value <= hi)) {
    if (error.ok()) {
      error = InvalidInput(fmt::format("gpus[{}]{}.{}: {} does not fit (expected {} to {})", gpu,
                                       part, key, ToJson(*n).dump(), lo, hi));
    }
    return std::nullopt;
  }
  return n->value;
}

// An index-like integer field; -1 when absent, fractional or out of range (hostile input must not
// reach a float-to-int conversion that overflows).
int Index(const std::optional<JsonNumber>& n) {
  if (!n || n->value < -1 || n->value > 1e6 || n->value != std::floor(n->value)) return -1;
  return static_cast<int>(n->value);
}

// "gpu3 (0000:5d:00.0)" -> 3; -1 when the subject is not a GPU.
int GpuIndexOf(const std::string& subject) {
  if (!StartsWith(subject, "gpu")) return -1;
  size_t end = 3;
  while (end < subject.size() && subject[end] >= '0' && subject[end] <= '9') ++end;
  if (end == 3) return -1;
  return static_cast<int>(ParseInt(subject.substr(3, end - 3)).value_or(-1));
}

FleetGpu* GpuByIndex(std::vector<FleetGpu>& gpus, int index) {
  for (FleetGpu& g : gpus) {
    if (g.index == index) return &g;
  }
  return nullptr;
}

// What BuildFleetFromReports reads from a check report that is not its node's newest: the
// host, time and path, and per GPU the index and this report's samples. The rest is freed.
void KeepOnlySamples(FleetReportFile& r) {
  r.driver_version = std::string();
  r.cuda_version = std::string();
  r.checks = std::vector<FleetCheck>();
  for (FleetGpu& g : r.gpus) {
    FleetGpu samples;
    samples.index = g.index;
    samples.ecc_corrected = std::move(g.ecc_corrected);
    samples.thermal_active = std::move(g.thermal_active);
    samples.power_active = std::move(g.power_active);
    g = std::move(samples);
  }
}

// A check report: versions, GPUs with their link state, non-ok findings, and one sample per GPU
// of the corrected ECC count and the throttle reasons. `samples_only`: the report is known not
// to be its node's newest, so the texts KeepOnlySamples would drop are not copied (every check
// that can make the report invalid still runs).
Status ExtractCheck(const ReportFields& f, FleetReportFile& r, bool samples_only) {
  Status error;
  if (!samples_only) {
    r.driver_version = f.driver_version;
    r.cuda_version = f.cuda_version;
  }
  r.gpus.reserve(f.gpus.size());
  for (size_t i = 0; i < f.gpus.size(); ++i) {
    const ReportGpu& g = f.gpus[i];
    FleetGpu gpu;
    gpu.index = Index(g.index);
    if (!samples_only) {
      gpu.uuid = g.uuid;
      gpu.name = g.name;
      gpu.pci_bus_id = g.pci_bus_id;
      gpu.vbios_version = g.vbios_version;
    }
    // PCIe generations 1..64 and widths 0..64 lanes leave room for future links; a value
    // beyond is not a measurement.
    if (g.has_pcie) {
      gpu.pcie_gen = Ranged(g.gen, "gen", 0, 64, i, ".pcie", error);
      gpu.pcie_gen_max = Ranged(g.gen_max, "gen_max", 0, 64, i, ".pcie", error);
      gpu.pcie_width = Ranged(g.width, "width", 0, 64, i, ".pcie", error);
      gpu.pcie_width_max = Ranged(g.width_max, "width_max", 0, 64, i, ".pcie", error);
    }
    if (auto u = Ranged(g.gpu_util_pct, "gpu_util_pct", 0, 100, i, "", error)) {
      gpu.utilization = *u / 100;
    }
    r.gpus.push_back(std::move(gpu));
  }
  if (!error.ok()) return error;
  if (!f.findings_is_array) return Status::Ok();
  for (const ReportFinding& finding : f.findings) {
    const std::string& id = finding.id;
    if (!samples_only) {
      const std::optional<Severity> sev = ParseSeverity(finding.severity);
      if (sev && *sev != Severity::kOk) {
        r.checks.push_back({id, finding.subject, *sev, finding.summary});
      }
    }
    // Only these ids carry a series sample: the subject of any other finding is not looked at.
    if (!KeyIs(id, "ecc.volatile_dbe") && !KeyIs(id, "ecc.volatile_sbe") &&
        !StartsWith(id, "throttle.")) {
      continue;
    }
    FleetGpu* g = GpuByIndex(r.gpus, GpuIndexOf(finding.subject));
    if (!g) continue;
    if (id == "ecc.volatile_dbe") {
      if (const auto& v = finding.uncorrected_volatile) {
        g->ecc_uncorrected = ParseDouble(*v);
        // An ECC count is a non-negative integer below 2^64.
        if (g->ecc_uncorrected && !(*g->ecc_uncorrected >= 0 && *g->ecc_uncorrected < 1.9e19)) {
          return InvalidInput(fmt::format("{}: uncorrected_volatile {} does not fit", id, *v));
        }
      }
    } else if (id == "ecc.volatile_sbe") {
      if (const auto& v = finding.corrected_volatile) {
        if (auto n = ParseDouble(*v)) {
          if (!(*n >= 0 && *n < 1.9e19)) {
            return InvalidInput(fmt::format("{}: corrected_volatile {} does not fit", id, *v));
          }
          g->ecc_corrected = {{r.time, *n}};
        }
      }
    } else if (StartsWith(id, "throttle.") && g->thermal_active.empty()) {
      const auto& bits_text = finding.clock_event_reasons;
      if (!bits_text) continue;
      char* end = nullptr;
      uint64_t bits = std::strtoull(bits_text->c_str(), &end, 16);
      if (end == bits_text->c_str()) continue;
      g->thermal_active = {{r.time, (bits & kThermalBits) ? 1.0 : 0.0}};
      g->power_active = {{r.time, (bits & kPowerBits) ? 1.0 : 0.0}};
    }
  }
  return Status::Ok();
}

// The fleet's range for a GPU index read from a bench report: a JSON integer beyond it (or
// below -1) names no GPU of any node.
int FleetIndex(int index) { return index < -1 || index > 1'000'000 ? -1 : index; }

// A bench report, through the one gpuvet.bench/v1 reader (core/bench_document.h), leniently: the
// figures with a median that were not skipped, and each GPU's identity and maximum link. Entries
// the strict --baseline reader would refuse are kept when they have an id and a median.
Status ExtractBench(const json& parsed, FleetReportFile& r) {
  Result<BenchDocument> doc = ReadBenchDocument(parsed);
  if (!doc.ok()) return doc.status();
  for (const BenchDocumentEntry& e : doc->measurements) {
    if (e.skipped_set || !e.has_median || e.m.id.empty()) continue;
    r.bench.push_back({e.m.id, FleetIndex(e.m.gpu), FleetIndex(e.m.peer), e.m.median, e.m.unit});
  }
  for (const BenchDocumentGpu& g : doc->gpus) {
    FleetGpu gpu;
    gpu.index = FleetIndex(g.index);
    gpu.uuid = g.uuid;
    gpu.name = g.name;
    gpu.pci_bus_id = g.pci_bus_id;
    gpu.vbios_version = g.vbios_version;
    gpu.pcie_gen_max = g.pcie_gen_max;
    gpu.pcie_width_max = g.pcie_width_max;
    r.gpus.push_back(std::move(gpu));
  }
  return Status::Ok();
}

// An index-like field as ReadBenchDocument reads one (bench_document.cc Index): a JSON integer
// within int range, else an integral number within -1..1e6, else -1.
int BenchIndex(const std::optional<JsonNumber>& n) {
  if (!n) return -1;
  if (n->kind == JsonNumber::Kind::kUnsigned &&
      n->unsigned_integer <= static_cast<uint64_t>(INT_MAX)) {
    return static_cast<int>(n->unsigned_integer);
  }
  if (n->kind == JsonNumber::Kind::kInteger && n->integer >= INT_MIN && n->integer <= INT_MAX) {
    return static_cast<int>(n->integer);
  }
  if (n->value < -1 || n->value > 1e6 || n->value != std::floor(n->value)) return -1;
  return static_cast<int>(n->value);
}

// ExtractBench over the fast front end's fields, without a document: the same figures and GPUs
// (tested and fuzzed against ExtractBench over nlohmann's DOM of the same text).
void ExtractBenchFast(const ReportFields& f, FleetReportFile& r) {
  for (const ReportBenchEntry& e : f.bench_entries) {
    if (e.skipped_set || !e.median || e.id.empty()) continue;
    r.bench.push_back({e.id, FleetIndex(BenchIndex(e.gpu)), FleetIndex(BenchIndex(e.peer)),
                       e.median->value, e.unit});
  }
  if (!f.gpus_is_array) return;
  for (const ReportGpu& g : f.gpus) {
    FleetGpu gpu;
    gpu.index = FleetIndex(BenchIndex(g.index));
    gpu.uuid = g.uuid;
    gpu.name = g.name;
    gpu.pci_bus_id = g.pci_bus_id;
    gpu.vbios_version = g.vbios_version;
    if (g.gen_max) gpu.pcie_gen_max = g.gen_max->value;
    if (g.width_max) gpu.pcie_width_max = g.width_max->value;
    r.gpus.push_back(std::move(gpu));
  }
}

// The report from its fields; `extract_bench(r)` fills a bench report's figures and GPUs (from
// the whole DOM, or from the fast front end's fields). `older(r)`, asked of a check report once
// its host and time are known: true when a newer check of that host has been read, so this one
// is cut to its samples (KeepOnlySamples) straight away.
template <typename ExtractBenchFn, typename OlderFn>
Result<FleetReportFile> Interpret(const ReportFields& f, const std::string& source,
                                  ExtractBenchFn extract_bench, OlderFn older) {
  FleetReportFile r;
  r.source = source;
  if (f.schema == kCheckSchema) {
    r.kind = FleetReportFile::Kind::kCheck;
  } else if (f.schema == kBenchSchema) {
    r.kind = FleetReportFile::Kind::kBench;
  } else {
    return InvalidInput(f.schema.empty() ? std::string("no \"schema\": not a gpuvet report")
                                         : fmt::format("schema \"{}\" is not {} or {}", f.schema,
                                                       kCheckSchema, kBenchSchema));
  }
  auto t = ParseIsoTime(f.generated_at);
  if (!t.ok()) return InvalidInput("generated_at: " + t.status().message());
  r.time = *t;
  r.host = f.hostname;
  if (r.kind == FleetReportFile::Kind::kCheck) {
    if (r.host.empty()) return InvalidInput("check report without host.hostname");
    const bool samples_only = older(r);
    if (Status st = ExtractCheck(f, r, samples_only); !st.ok()) return st;
    if (samples_only) KeepOnlySamples(r);
  } else {
    // host.hostname: future bench reports
    if (Status st = extract_bench(r); !st.ok()) return st;
  }
  return r;
}

// A worker's file buffer: grown to the largest file read so far and never zero-filled (a
// std::string's resize writes every byte it adds: for 40,000 files a gigabyte of memset).
struct ReadBuffer {
  std::unique_ptr<char[]> data;
  size_t capacity = 0;
  std::string fallback;  // ReadFileInto's, on the slow path
  void Reserve(size_t n) {
    if (n <= capacity) return;
    capacity = std::max(n, 2 * capacity);
    data = std::make_unique_for_overwrite<char[]>(capacity);
  }
};

// The most read of one report: a larger file is cut there and then fails to parse, as it did
// through ReadFileInto with this cap.
constexpr size_t kMaxReportBytes = 64 << 20;

// Reads the report at `path` into `buf` and points `text` at it. The usual case is four system
// calls: open, fstat, one read of the size fstat gave (its short count is the end of the file;
// a file that grew meanwhile is read on), close. The walk found a regular file there; one swapped
// for something else since is caught by the fstat after the open (O_NONBLOCK, so a FIFO does not
// block it), before any read. Anything unusual (an error, not a regular file) is handed to
// ReadFileInto, which stats before it opens and words every error as every other reader does.
Status ReadReportFile(const std::string& path, ReadBuffer& buf, std::string_view& text) {
  text = std::string_view();
  auto slow = [&](int fd) {
    if (fd >= 0) ::close(fd);
    Status st = ReadFileInto(path, kMaxReportBytes, buf.fallback);
    if (st.ok()) text = buf.fallback;
    return st;
  };
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return slow(-1);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return slow(fd);
  const size_t expected =
      std::min(static_cast<size_t>(std::max<off_t>(st.st_size, 0)), kMaxReportBytes);
  buf.Reserve(expected + 1);
  size_t len = 0;
  while (len < kMaxReportBytes) {
    if (len == buf.capacity) {
      // Grew since the fstat: keep what was read.
      std::unique_ptr<char[]> old = std::move(buf.data);
      const size_t old_capacity = buf.capacity;
      buf.capacity = 0;
      buf.Reserve(std::min(kMaxReportBytes, 2 * old_capacity));
      std::memcpy(buf.data.get(), old.get(), len);
    }
    const size_t want = std::min(buf.capacity, kMaxReportBytes) - len;
    const ssize_t n = ::read(fd, buf.data.get() + len, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      return slow(fd);
    }
    if (n == 0) break;
    len += static_cast<size_t>(n);
    // A short read that reached the size fstat gave is the end of a regular file.
    if (static_cast<size_t>(n) < want && len >= expected) break;
  }
  ::close(fd);
  text = std::string_view(buf.data.get(), len);
  return Status::Ok();
}

// Appends dir + "/" + name (no second slash when `dir` ends with one, as std::filesystem joins).
std::string JoinPath(const std::string& dir, const char* name) {
  std::string out;
  const size_t len = std::strlen(name);
  out.reserve(dir.size() + 1 + len);
  out = dir;
  if (!out.empty() && out.back() != '/') out += '/';
  out.append(name, len);
  return out;
}

// Every file under `root` that is regular (a symlink counts when it leads to one), recursing
// into directories but not through symlinks to them: what recursive_directory_iterator with
// skip_permission_denied walks, spelt the same way, by readdir and the entries' d_type (a stat
// only where the file system gives no type, or for a symlink). A directory that cannot be read
// for want of permission is passed over; one that fails otherwise lands in `skipped`, and the
// root failing so is the error.
Status WalkReportTree(const std::string& root, std::vector<std::string>& files,
                      std::vector<FleetSkipped>& skipped) {
  std::vector<std::string> pending = {root};
  while (!pending.empty()) {
    const std::string d = std::move(pending.back());
    pending.pop_back();
    DIR* handle = ::opendir(d.c_str());
    if (handle == nullptr) {
      const int err = errno;
      if (err == EACCES) continue;
      if (d == root) return InvalidInput(fmt::format("--reports {}: {}", root, std::strerror(err)));
      skipped.push_back({d, std::strerror(err)});
      continue;
    }
    for (;;) {
      errno = 0;
      const dirent* e = ::readdir(handle);
      if (e == nullptr) {
        if (errno != 0) skipped.push_back({d, std::strerror(errno)});
        break;
      }
      const char* name = e->d_name;
      if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
      std::string path = JoinPath(d, name);
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0) continue;
        type = S_ISDIR(st.st_mode)   ? DT_DIR
               : S_ISREG(st.st_mode) ? DT_REG
               : S_ISLNK(st.st_mode) ? DT_LNK
                                     : DT_UNKNOWN;
      }
      if (type == DT_DIR) {
        pending.push_back(std::move(path));
      } else if (type == DT_REG) {
        files.push_back(std::move(path));
      } else if (type == DT_LNK) {
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) files.push_back(std::move(path));
      }
    }
    ::closedir(handle);
  }
  return Status::Ok();
}

// A directory with fewer report files than this per thread is read on one.
constexpr size_t kFilesPerWorker = 64;

// Threads for reading a report directory: the cores, at most 4 (the work is a few hundred
// megabytes of page-cache reads and scanning; beyond that memory bandwidth, not cores, limits).
size_t ReaderThreads() { return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4); }

// `older`: as Interpret's (ParseFleetReport: never).
template <typename OlderFn>
Result<FleetReportFile> ParseWith(std::string_view text, const std::string& source,
                                  ReportFields& fields, OlderFn older) {
  if (FieldsFromText(text, fields)) {
    return Interpret(
        fields, source,
        [&](FleetReportFile& r) {
          ExtractBenchFast(fields, r);
          return Status::Ok();
        },
        older);
  }
  return ParseFleetReportWithDom(text, source);
}

bool NeverOlder(const FleetReportFile&) { return false; }

// The node's state from its newest check report (series are added by AddSamples). The GPUs and
// findings are moved, not copied; the report keeps each GPU's index and samples for AddSamples.
void ApplyLatestCheck(FleetReportFile& r, FleetNode& node) {
  node.driver_version = r.driver_version;
  node.cuda_version = r.cuda_version;
  node.gpus.clear();
  for (FleetGpu& g : r.gpus) {
    FleetGpu state = std::move(g);
    g = FleetGpu();
    g.index = state.index;
    g.ecc_corrected = std::move(state.ecc_corrected);
    g.thermal_active = std::move(state.thermal_active);
    g.power_active = std::move(state.power_active);
    state.ecc_corrected.clear();
    state.thermal_active.clear();
    state.power_active.clear();
    node.gpus.push_back(std::move(state));
  }
  node.checks = std::move(r.checks);
  node.has_checks = true;
}

// The series samples one check report adds (corrected ECC count, throttle reasons).
void AddSamples(const FleetReportFile& r, FleetNode& node) {
  for (const FleetGpu& src : r.gpus) {
    FleetGpu* g = GpuByIndex(node.gpus, src.index);
    if (!g) continue;
    auto append = [](std::vector<TimedValue>& to, const std::vector<TimedValue>& from) {
      to.insert(to.end(), from.begin(), from.end());
    };
    append(g->ecc_corrected, src.ecc_corrected);
    append(g->thermal_active, src.thermal_active);
    append(g->power_active, src.power_active);
  }
}

// The node's figures from its newest bench report (moved: the report is not read after this).
void ApplyBench(FleetReportFile& r, FleetNode& node) {
  node.bench = std::move(r.bench);
  if (!node.has_checks && node.gpus.empty()) node.gpus = std::move(r.gpus);
}

}  // namespace

Result<FleetReportFile> ParseFleetReportWithDom(std::string_view text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return InvalidInput(fmt::format("not JSON (byte {})", e.byte));
  } catch (const json::out_of_range& e) {
    // 1e999999: the parser refuses a number no double holds; this report is skipped.
    return InvalidInput(fmt::format(
        "a number does not fit: {}",
        std::string(std::string_view(e.what()).substr(std::string_view(e.what()).find("] ") + 2))));
  }
  ReportFields fields;
  FieldsFromDom(doc, fields);
  return Interpret(
      fields, source, [&](FleetReportFile& r) { return ExtractBench(doc, r); }, NeverOlder);
}

Result<FleetReportFile> ParseFleetReport(std::string_view text, const std::string& source) {
  ReportFields fields;
  return ParseWith(text, source, fields, NeverOlder);
}

std::string DescribeFleetReportFile(const FleetReportFile& r) {
  auto num = [](const std::optional<double>& v) {
    return v ? fmt::format("{:a}", *v) : std::string("-");
  };
  auto series = [](const std::vector<TimedValue>& s) {
    std::string out;
    for (const TimedValue& t : s) out += fmt::format("({:a},{:a})", t.t, t.v);
    return out;
  };
  std::string out = fmt::format("kind={} source={:?} host={:?} time={:a} driver={:?} cuda={:?}\n",
                                r.kind == FleetReportFile::Kind::kCheck ? "check" : "bench",
                                r.source, r.host, r.time, r.driver_version, r.cuda_version);
  for (const FleetGpu& g : r.gpus) {
    out += fmt::format(
        "gpu {} {:?} {:?} {:?} {:?} gen={}/{} width={}/{} util={} ecc={} dbe={} thermal={} "
        "power={}\n",
        g.index, g.uuid, g.name, g.pci_bus_id, g.vbios_version, num(g.pcie_gen),
        num(g.pcie_gen_max), num(g.pcie_width), num(g.pcie_width_max), num(g.utilization),
        series(g.ecc_corrected), num(g.ecc_uncorrected), series(g.thermal_active),
        series(g.power_active));
  }
  for (const FleetCheck& c : r.checks) {
    out += fmt::format("check {:?} {:?} {} {:?}\n", c.check, c.subject, SeverityName(c.severity),
                       c.summary);
  }
  for (const FleetBenchFigure& b : r.bench) {
    out += fmt::format("bench {:?} {} {} {:a} {:?}\n", b.id, b.gpu, b.peer, b.value, b.unit);
  }
  return out;
}

FleetInput BuildFleetFromReports(std::vector<FleetReportFile> reports, double now,
                                 double window_s) {
  FleetInput in;
  in.now = now;
  in.window_s = window_s;
  // In time order (then path); pointers are sorted, not the reports (moving 40,000 of them
  // through a merge sort cost more than the rest of this function).
  std::vector<FleetReportFile*> order;
  order.reserve(reports.size());
  for (FleetReportFile& r : reports) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(),
                   [](const FleetReportFile* a, const FleetReportFile* b) {
                     return a->time != b->time ? a->time < b->time : a->source < b->source;
                   });
  // Directory (the path up to its last '/': the walk spells one directory one way) -> the host
  // of the check reports in it, or that there are several, to give bench reports their node.
  struct DirHosts {
    std::string_view host;
    bool several = false;
  };
  auto dir_of = [](std::string_view path) {
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
  };
  std::unordered_map<std::string_view, DirHosts> hosts_in_dir;
  for (const FleetReportFile* rp : order) {
    if (rp->kind != FleetReportFile::Kind::kCheck) continue;
    DirHosts& d = hosts_in_dir[dir_of(rp->source)];
    if (d.host.empty()) {
      d.host = rp->host;
    } else if (d.host != rp->host) {
      d.several = true;
    }
  }
  // Per host (views of the reports' host strings, which stay put from here on): the node and
  // its newest check and bench report.
  struct NodeParts {
    FleetNode node;
    FleetReportFile* latest_check = nullptr;
    FleetReportFile* latest_bench = nullptr;
  };
  std::unordered_map<std::string_view, NodeParts> nodes;
  nodes.reserve(reports.size() / 2 + 1);
  for (FleetReportFile* rp : order) {
    FleetReportFile& r = *rp;
    if (r.kind == FleetReportFile::Kind::kBench && r.host.empty()) {
      auto d = hosts_in_dir.find(dir_of(r.source));
      if (d != hosts_in_dir.end() && !d->second.several) {
        r.host = std::string(d->second.host);
      } else {
        r.host = fs::path(r.source).parent_path().filename().string();
      }
    }
    if (r.host.empty()) {
      in.skipped.push_back({r.source, "cannot tell which node this bench report is from"});
      continue;
    }
    NodeParts& n = nodes[r.host];
    (r.kind == FleetReportFile::Kind::kCheck ? n.latest_check : n.latest_bench) = &r;
  }
  // Newest check per node first sets the GPUs; then every report adds its path (moved: nothing
  // reads it after this) and every check its samples, in time order.
  for (auto& [host, n] : nodes) {
    n.node.name = host;
    if (n.latest_check) ApplyLatestCheck(*n.latest_check, n.node);
  }
  for (FleetReportFile* rp : order) {
    FleetReportFile& r = *rp;
    if (r.host.empty()) continue;
    FleetNode& n = nodes.find(r.host)->second.node;
    n.sources.push_back(std::move(r.source));
    n.last_seen = std::max(n.last_seen, r.time);
    if (r.kind == FleetReportFile::Kind::kCheck) AddSamples(r, n);
  }
  std::vector<NodeParts*> sorted;
  sorted.reserve(nodes.size());
  for (auto& [host, n] : nodes) {
    if (n.latest_bench) ApplyBench(*n.latest_bench, n.node);
    sorted.push_back(&n);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const NodeParts* a, const NodeParts* b) { return a->node.name < b->node.name; });
  in.nodes.reserve(sorted.size());
  for (NodeParts* n : sorted) in.nodes.push_back(std::move(n->node));
  return in;
}

Result<FleetInput> ReadFleetReports(const std::string& dir, double now, double window_s) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return NotFound(fmt::format("--reports {}: not a directory", dir));
  }
  std::vector<FleetReportFile> reports;
  std::vector<FleetSkipped> skipped;
  std::vector<std::string> files;
  if (Status walked = WalkReportTree(dir, files, skipped); !walked.ok()) return walked;
  std::sort(files.begin(), files.end());
  // Each file is read into its worker's buffer and parsed there; only the FleetReportFile is
  // kept. Workers take files in turn but store by index, so the result (and the order of the
  // skipped list) does not depend on the threads.
  std::vector<std::optional<Result<FleetReportFile>>> parsed(files.size());
  // Per host, the index of the newest check report parsed so far: by time, then path, the one
  // BuildFleetFromReports takes as the node's state. Any other check report only adds its samples,
  // so it is cut down to them as soon as a newer one is seen, and memory follows the nodes, not
  // the number of reports.
  std::mutex newest_mu;
  std::unordered_map<std::string, size_t> newest;
  auto note_check = [&](size_t i) {
    FleetReportFile& r = parsed[i]->value();
    std::lock_guard<std::mutex> lock(newest_mu);
    auto [it, inserted] = newest.try_emplace(r.host, i);
    if (inserted) return;
    FleetReportFile& current = parsed[it->second]->value();
    if (r.time != current.time ? r.time > current.time : r.source > current.source) {
      KeepOnlySamples(current);
      it->second = i;
    } else {
      KeepOnlySamples(r);
    }
  };
  // Whether a newer check of r's host has been read already (then r is read as its samples only).
  auto older = [&](const FleetReportFile& r) {
    std::lock_guard<std::mutex> lock(newest_mu);
    auto it = newest.find(r.host);
    if (it == newest.end()) return false;
    const FleetReportFile& current = parsed[it->second]->value();
    return current.time != r.time ? current.time > r.time : current.source > r.source;
  };
  std::atomic<size_t> next{0};
  // An exception (out of memory) in a worker stops all of them and is rethrown here after the
  // join, as it would have left a single-threaded reader.
  std::exception_ptr failure;
  auto work = [&] {
    try {
      ReadBuffer buffer;
      std::string_view text;
      ReportFields fields;
      // Newest path first: reports named by time (check-<time>.json) then meet the newest check
      // of their node first, and the older ones are read as samples only.
      for (size_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < files.size();) {
        const size_t i = files.size() - 1 - k;
        if (Status read = ReadReportFile(files[i], buffer, text); !read.ok()) {
          parsed[i] = read;
          continue;
        }
        parsed[i] = ParseWith(text, files[i], fields, older);
        if (parsed[i]->ok() && parsed[i]->value().kind == FleetReportFile::Kind::kCheck) {
          note_check(i);
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(newest_mu);
      if (!failure) failure = std::current_exception();
      next.store(files.size());
    }
  };
  std::vector<std::thread> pool;
  const size_t workers = files.size() < kFilesPerWorker ? 1 : ReaderThreads();
  for (size_t w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads: fewer workers do the same work
    }
  }
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  for (size_t i = 0; i < files.size(); ++i) {
    Result<FleetReportFile>& r = *parsed[i];
    if (!r.ok()) {
      skipped.push_back({files[i], r.status().message()});
      continue;
    }
    reports.push_back(std::move(r).value());
  }
  parsed.clear();
  FleetInput in = BuildFleetFromReports(std::move(reports), now, window_s);
  in.origin = "reports " + dir;
  in.skipped.insert(in.skipped.begin(), skipped.begin(), skipped.end());
  return in;
}

}  // namespace gpuvet
