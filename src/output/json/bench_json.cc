// Bench JSON renderer. Numbers are rounded to 3 decimals so goldens and baselines do not carry
// float noise; a missing reading is null, never 0. Read back by core/bench_document.cc.
#include "output/json/bench_json.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/bench_document.h"
#include "core/report.h"
#include "output/json/json_renderer.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

using nlohmann::json;

double Round3(double v) { return std::round(v * 1000) / 1000; }

template <typename T>
json R(const Reading<T>& r) {  // short name for the many fields below
  return ReadingToJson(r);
}

const char* StateName(BenchState s) {
  switch (s) {
    case BenchState::kOk:
      return "ok";
    case BenchState::kDriverMissing:
      return "driver_missing";
    case BenchState::kNoDevice:
      return "no_device";
    case BenchState::kFailed:
      return "failed";
    case BenchState::kTimedOut:
      return "timed_out";
    case BenchState::kBadRequest:
      return "bad_request";
  }
  return "unknown";
}

json GpuToJson(const BenchGpu& g) {
  json j;
  j["index"] = g.index;
  j["name"] = g.name;
  j["pci_bus_id"] = g.pci_bus_id;
  j["compute_capability"] = fmt::format("{}.{}", g.cc_major, g.cc_minor);
  j["sm_count"] = g.sm_count;
  j["sm_clock_mhz"] = Round3(g.sm_clock_mhz);
  j["mem_clock_mhz"] = Round3(g.mem_clock_mhz);
  j["memory_bus_bits"] = g.memory_bus_bits;
  j["memory_bytes"] = g.memory_bytes;
  j["copy_engines"] = g.copy_engines;
  j["numa_node"] = R(g.numa_node);
  j["local_cpus"] = FormatCpuList(g.local_cpus);
  j["failed"] = g.failed.empty() ? json(nullptr) : json(g.failed);
  j["pcie"] = {{"gen_idle", R(g.pcie_gen_idle)},
               {"gen_loaded", R(g.pcie_gen_loaded)},
               {"gen_max", R(g.pcie_gen_max)},
               {"width", R(g.pcie_width)},
               {"width_max", R(g.pcie_width_max)}};
  return j;
}

json MeasurementToJson(const BenchMeasurement& m) {
  json samples = json::array();
  for (double s : m.samples) samples.push_back(Round3(s));
  // A figure that was not measured has no value: null, never 0 (docs/bench.md).
  auto value = [&](double v) { return m.measured() ? json(Round3(v)) : json(nullptr); };
  return {{"id", m.id},
          {"status", BenchOutcomeName(m.outcome)},
          {"gpu", m.gpu},
          {"peer", m.peer},
          {"numa_node", m.numa_node},
          {"unit", m.unit},
          {"method", m.method},
          {"bytes", m.bytes},
          {"repetitions", m.repetitions},
          {"samples", samples},
          {"median", value(m.median)},
          {"min", value(m.min)},
          {"max", value(m.max)},
          {"skipped", m.skipped.empty() ? json(nullptr) : json(m.skipped)}};
}

}  // namespace

std::string RenderBenchJson(const BenchReport& report) {
  json j;
  j["schema"] = kBenchSchema;
  j["gpuvet_version"] = report.gpuvet_version;
  j["generated_at"] = report.generated_at;
  j["policy"] = report.policy_source;
  j["baseline"] = report.baseline_source.empty() ? json(nullptr) : json(report.baseline_source);
  const BenchRun& r = report.run;
  j["run"] = {{"state", StateName(r.state)},
              {"detail", r.detail},
              {"mode", r.mode},
              {"library", r.library},
              {"driver_version", r.driver_version},
              {"notes", r.notes}};
  json gpus = json::array();
  for (const BenchGpu& g : r.gpus) gpus.push_back(GpuToJson(g));
  j["gpus"] = gpus;
  json ms = json::array();
  for (const BenchMeasurement& m : r.measurements) ms.push_back(MeasurementToJson(m));
  j["measurements"] = ms;
  json ex = json::array();
  for (const BenchExpectation& e : report.expectations) {
    ex.push_back({{"id", e.id},
                  {"gpu", e.gpu},
                  {"peer", e.peer},
                  {"numa_node", e.numa_node},
                  {"expected", Round3(e.expected)},
                  {"basis", e.basis},
                  {"ratio", Round3(e.ratio)}});
  }
  j["expectations"] = ex;
  json findings = json::array();
  std::map<std::string, int> counts = {
      {"ok", 0}, {"info", 0}, {"warn", 0}, {"unknown", 0}, {"fail", 0}};
  for (const Finding& f : report.findings) {
    findings.push_back(FindingToJson(f));
    ++counts[std::string(SeverityName(f.severity))];
  }
  j["findings"] = findings;
  const bool nothing = NothingMeasured(report.run);
  bool fail = report.verdict == Severity::kFail || nothing;
  j["verdict"] = {{"severity", std::string(SeverityName(report.verdict))},
                  {"healthy", !fail},
                  {"exit_code", fail ? kExitUnhealthy : kExitHealthy},
                  {"counts", counts}};
  // Only when true, so every report that measured something keeps its shape.
  if (nothing) j["verdict"]["nothing_measured"] = true;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace gpuvet
