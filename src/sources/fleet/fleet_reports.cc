// Fleet report directory reader (see fleet_reports.h). Findings are read back from the check
// JSON by id: ecc.volatile_sbe / ecc.volatile_dbe carry the counts, throttle.* the clock event
// reason bits, so the fleet needs nothing the check report does not already publish.
#include "sources/fleet/fleet_reports.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/bench_document.h"
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

std::optional<double> Num(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

// A number field checked against the range it can have: absent stays nullopt; a number outside
// [lo, hi] (a 30-digit integer, 1e300) sets `error` naming `where` and the range, which makes the
// whole report invalid (ParseFleetReport skips it with that message).
std::optional<double> RangedNum(const json& j, const char* key, double lo, double hi,
                                const std::string& where, Status& error) {
  std::optional<double> v = Num(j, key);
  if (!v) return std::nullopt;
  if (!(*v >= lo && *v <= hi)) {
    if (error.ok()) {
      error = InvalidInput(fmt::format("{}.{}: {} does not fit (expected {} to {})", where, key,
                                       j[key].dump(), lo, hi));
    }
    return std::nullopt;
  }
  return v;
}

// An index-like integer field; -1 when absent, fractional or out of range (hostile input must not
// reach a float-to-int conversion that overflows).
int Index(const json& j, const char* key) {
  std::optional<double> v = Num(j, key);
  if (!v || *v < -1 || *v > 1e6 || *v != std::floor(*v)) return -1;
  return static_cast<int>(*v);
}

// "gpu3 (0000:5d:00.0)" -> 3; -1 when the subject is not a GPU.
int GpuIndexOf(const std::string& subject) {
  if (!StartsWith(subject, "gpu")) return -1;
  size_t end = 3;
  while (end < subject.size() && subject[end] >= '0' && subject[end] <= '9') ++end;
  if (end == 3) return -1;
  return static_cast<int>(ParseInt(subject.substr(3, end - 3)).value_or(-1));
}

std::optional<std::string> EvidenceValue(const json& finding, const char* name) {
  if (!finding.contains("evidence") || !finding["evidence"].is_array()) return std::nullopt;
  for (const json& e : finding["evidence"]) {
    if (Str(e, "name") == name) return Str(e, "value");
  }
  return std::nullopt;
}

FleetGpu* GpuByIndex(std::vector<FleetGpu>& gpus, int index) {
  for (FleetGpu& g : gpus) {
    if (g.index == index) return &g;
  }
  return nullptr;
}

FleetGpu GpuIdentity(const json& g) {
  FleetGpu gpu;
  gpu.index = Index(g, "index");
  gpu.uuid = Str(g, "uuid");
  gpu.name = Str(g, "name");
  gpu.pci_bus_id = Str(g, "pci_bus_id");
  gpu.vbios_version = Str(g, "vbios_version");
  return gpu;
}

// A check report: versions, GPUs with their link state, non-ok findings, and one sample per GPU
// of the corrected ECC count and the throttle reasons.
Status ExtractCheck(const json& doc, FleetReportFile& r) {
  Status error;
  const json& src = doc.contains("gpu_source") ? doc["gpu_source"] : json::object();
  r.driver_version = Str(src, "driver_version");
  r.cuda_version = Str(src, "cuda_version");
  if (doc.contains("gpus") && doc["gpus"].is_array()) {
    for (size_t i = 0; i < doc["gpus"].size(); ++i) {
      const json& g = doc["gpus"][i];
      FleetGpu gpu = GpuIdentity(g);
      const std::string where = fmt::format("gpus[{}]", i);
      // PCIe generations 1..64 and widths 0..64 lanes leave room for future links; a value
      // beyond is not a measurement.
      if (g.contains("pcie")) {
        const json& p = g["pcie"];
        gpu.pcie_gen = RangedNum(p, "gen", 0, 64, where + ".pcie", error);
        gpu.pcie_gen_max = RangedNum(p, "gen_max", 0, 64, where + ".pcie", error);
        gpu.pcie_width = RangedNum(p, "width", 0, 64, where + ".pcie", error);
        gpu.pcie_width_max = RangedNum(p, "width_max", 0, 64, where + ".pcie", error);
      }
      if (auto u = RangedNum(g, "gpu_util_pct", 0, 100, where, error)) gpu.utilization = *u / 100;
      r.gpus.push_back(std::move(gpu));
    }
  }
  if (!error.ok()) return error;
  if (!doc.contains("findings") || !doc["findings"].is_array()) return Status::Ok();
  for (const json& f : doc["findings"]) {
    const std::string id = Str(f, "id");
    const std::optional<Severity> sev = ParseSeverity(Str(f, "severity"));
    if (sev && *sev != Severity::kOk) {
      r.checks.push_back({id, Str(f, "subject"), *sev, Str(f, "summary")});
    }
    FleetGpu* g = GpuByIndex(r.gpus, GpuIndexOf(Str(f, "subject")));
    if (!g) continue;
    if (id == "ecc.volatile_dbe") {
      if (auto v = EvidenceValue(f, "uncorrected_volatile")) {
        g->ecc_uncorrected = ParseDouble(*v);
        // An ECC count is a non-negative integer below 2^64.
        if (g->ecc_uncorrected && !(*g->ecc_uncorrected >= 0 && *g->ecc_uncorrected < 1.9e19)) {
          return InvalidInput(fmt::format("{}: uncorrected_volatile {} does not fit", id, *v));
        }
      }
    } else if (id == "ecc.volatile_sbe") {
      if (auto v = EvidenceValue(f, "corrected_volatile")) {
        if (auto n = ParseDouble(*v)) {
          if (!(*n >= 0 && *n < 1.9e19)) {
            return InvalidInput(fmt::format("{}: corrected_volatile {} does not fit", id, *v));
          }
          g->ecc_corrected = {{r.time, *n}};
        }
      }
    } else if (StartsWith(id, "throttle.") && g->thermal_active.empty()) {
      auto bits_text = EvidenceValue(f, "clock_event_reasons");
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

// The node's state from its newest check report (series are added by AddSamples).
void ApplyLatestCheck(const FleetReportFile& r, FleetNode& node) {
  node.driver_version = r.driver_version;
  node.cuda_version = r.cuda_version;
  node.gpus.clear();
  for (const FleetGpu& g : r.gpus) {
    FleetGpu copy = g;
    copy.ecc_corrected.clear();
    copy.thermal_active.clear();
    copy.power_active.clear();
    node.gpus.push_back(std::move(copy));
  }
  node.checks = r.checks;
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

void ApplyBench(const FleetReportFile& r, FleetNode& node) {
  node.bench = r.bench;
  if (!node.has_checks && node.gpus.empty()) node.gpus = r.gpus;
}

}  // namespace

Result<FleetReportFile> ParseFleetReport(std::string_view text, const std::string& source) {
  FleetReportFile r;
  r.source = source;
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
  const std::string schema = Str(doc, "schema");
  if (schema == "gpuvet.check/v1") {
    r.kind = FleetReportFile::Kind::kCheck;
  } else if (schema == "gpuvet.bench/v1") {
    r.kind = FleetReportFile::Kind::kBench;
  } else {
    return InvalidInput(schema.empty() ? std::string("no \"schema\": not a gpuvet report")
                                       : fmt::format("schema \"{}\" is not gpuvet.check/v1 or "
                                                     "gpuvet.bench/v1",
                                                     schema));
  }
  auto t = ParseIsoTime(Str(doc, "generated_at"));
  if (!t.ok()) return InvalidInput("generated_at: " + t.status().message());
  r.time = *t;
  if (r.kind == FleetReportFile::Kind::kCheck) {
    r.host = doc.contains("host") ? Str(doc["host"], "hostname") : "";
    if (r.host.empty()) return InvalidInput("check report without host.hostname");
    if (Status st = ExtractCheck(doc, r); !st.ok()) return st;
  } else {
    if (doc.contains("host")) r.host = Str(doc["host"], "hostname");  // future bench reports
    if (Status st = ExtractBench(doc, r); !st.ok()) return st;
  }
  return r;
}

FleetInput BuildFleetFromReports(std::vector<FleetReportFile> reports, double now,
                                 double window_s) {
  FleetInput in;
  in.now = now;
  in.window_s = window_s;
  std::stable_sort(reports.begin(), reports.end(),
                   [](const FleetReportFile& a, const FleetReportFile& b) {
                     return a.time != b.time ? a.time < b.time : a.source < b.source;
                   });
  // Directory -> hosts of the check reports in it, to give bench reports their node.
  std::map<std::string, std::set<std::string>> hosts_in_dir;
  for (const FleetReportFile& r : reports) {
    if (r.kind == FleetReportFile::Kind::kCheck) {
      hosts_in_dir[fs::path(r.source).parent_path().string()].insert(r.host);
    }
  }
  std::map<std::string, FleetNode> nodes;
  // Newest check per node first sets the GPUs; then every check adds its samples in time order.
  std::map<std::string, const FleetReportFile*> latest_check, latest_bench;
  for (FleetReportFile& r : reports) {
    if (r.kind == FleetReportFile::Kind::kBench && r.host.empty()) {
      fs::path dir = fs::path(r.source).parent_path();
      const auto& hosts = hosts_in_dir[dir.string()];
      r.host = hosts.size() == 1 ? *hosts.begin() : dir.filename().string();
    }
    if (r.host.empty()) {
      in.skipped.push_back({r.source, "cannot tell which node this bench report is from"});
      continue;
    }
    (r.kind == FleetReportFile::Kind::kCheck ? latest_check : latest_bench)[r.host] = &r;
  }
  for (const auto& [host, r] : latest_check) {
    FleetNode& n = nodes[host];
    n.name = host;
    ApplyLatestCheck(*r, n);
  }
  for (const FleetReportFile& r : reports) {
    if (r.host.empty()) continue;
    FleetNode& n = nodes[r.host];
    n.name = r.host;
    n.sources.push_back(r.source);
    n.last_seen = std::max(n.last_seen, r.time);
    if (r.kind == FleetReportFile::Kind::kCheck) AddSamples(r, n);
  }
  for (const auto& [host, r] : latest_bench) ApplyBench(*r, nodes[host]);
  for (auto& [name, n] : nodes) in.nodes.push_back(std::move(n));
  return in;
}

Result<FleetInput> ReadFleetReports(const std::string& dir, double now, double window_s) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return NotFound(fmt::format("--reports {}: not a directory", dir));
  }
  std::vector<FleetReportFile> reports;
  std::vector<FleetSkipped> skipped;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) return InvalidInput(fmt::format("--reports {}: {}", dir, ec.message()));
  std::vector<std::string> files;
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) {
      skipped.push_back({it->path().string(), ec.message()});
      ec.clear();
      continue;
    }
    if (it->is_regular_file(ec)) files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& path : files) {
    auto text = ReadFile(path, 64 << 20);
    if (!text.ok()) {
      skipped.push_back({path, text.status().message()});
      continue;
    }
    auto parsed = ParseFleetReport(*text, path);
    if (!parsed.ok()) {
      skipped.push_back({path, parsed.status().message()});
      continue;
    }
    reports.push_back(std::move(parsed).value());
  }
  FleetInput in = BuildFleetFromReports(std::move(reports), now, window_s);
  in.origin = "reports " + dir;
  in.skipped.insert(in.skipped.begin(), skipped.begin(), skipped.end());
  return in;
}

}  // namespace gpuvet
