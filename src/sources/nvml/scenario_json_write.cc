// Scenario JSON writer: turns a GpuInventory (what `gpuvet debug dump-nvml` read) into a scenario
// that replays it, and prints it as sorted, indented JSON. GpuState fields come from the shared
// tables in scenario_fields.h; errors are written back as the NVML codes their notes name.
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>

#include "sources/nvml/nvml_loader.h"
#include "sources/nvml/scenario_fields.h"
#include "sources/nvml/scenario_json.h"

namespace gpuvet {

namespace {

using nlohmann::json;
using scenario_internal::CallHasField;
using scenario_internal::kBoolFields;
using scenario_internal::kDoubleFields;
using scenario_internal::kIntFields;
using scenario_internal::kNvLinkCounters;
using scenario_internal::kScenarioVersion;
using scenario_internal::kStringFields;
using scenario_internal::kUint64Fields;

// A hang recorded by dump-nvml is replayed as this delay: far above any sane --call-timeout.
constexpr int kReplayedHangMs = 60000;

template <typename T>
void PutReading(json& obj, const char* key, const Reading<T>& r) {
  switch (r.state) {
    case Reading<T>::State::kAbsent:
      return;
    case Reading<T>::State::kValue:
      obj[key] = r.value;
      return;
    case Reading<T>::State::kNotSupported:
      obj[key] = "NOT_SUPPORTED";
      return;
    case Reading<T>::State::kError:
      obj[key] = std::string(NvmlErrorName(NvmlCodeFromNote(r.note)));
      return;
  }
}

json CodeMap(const std::map<std::string, int>& m) {
  json out = json::object();
  for (const auto& [call, code] : m) out[call] = std::string(NvmlErrorName(code));
  return out;
}

// Failures of calls that have no field of their own go to "errors"; hangs go to "delays_ms".
void AddFailures(const std::vector<CallFailure>& failures, std::map<std::string, int>* errors,
                 std::map<std::string, int>* delays) {
  for (const CallFailure& f : failures) {
    if (f.timed_out) {
      (*delays)[f.call] = kReplayedHangMs;
    } else if (!CallHasField(f.call)) {
      (*errors)[f.call] = NvmlCodeFromNote(f.message);
    }
  }
}

}  // namespace

int NvmlCodeFromNote(std::string_view note) {
  // "… (NVML_ERROR_GPU_IS_LOST = 15)" as DescribeNvmlError writes it.
  constexpr std::string_view kPrefix = "NVML_ERROR_";
  if (size_t at = note.rfind(kPrefix); at != std::string_view::npos) {
    size_t end = at + kPrefix.size();
    while (end < note.size() &&
           (std::isupper(static_cast<unsigned char>(note[end])) || note[end] == '_')) {
      ++end;
    }
    if (std::optional<int> code = NvmlErrorFromName(note.substr(at, end - at))) return *code;
  }
  // "nvmlDeviceGetPowerUsage: UNKNOWN" as the NVML source writes Reading notes.
  if (size_t at = note.rfind(": "); at != std::string_view::npos) {
    if (std::optional<int> code = NvmlErrorFromName(note.substr(at + 2))) return *code;
  }
  return NVML_ERROR_UNKNOWN;
}

Scenario ScenarioFromInventory(const GpuInventory& inv) {
  Scenario out;
  switch (inv.state) {
    case GpuSourceState::kOk:
    case GpuSourceState::kNotRun:
      out.init = NVML_SUCCESS;
      break;
    case GpuSourceState::kLibraryMissing:
      out.init = NVML_ERROR_LIBRARY_NOT_FOUND;
      break;
    case GpuSourceState::kDriverNotLoaded:
      out.init = NVML_ERROR_DRIVER_NOT_LOADED;
      break;
    case GpuSourceState::kInitFailed:
      out.init = NvmlCodeFromNote(inv.detail);
      break;
    case GpuSourceState::kHung:
      out.init = NVML_SUCCESS;  // the hang itself is in failures -> delays_ms
      break;
  }
  out.driver_version = inv.driver_version;
  out.nvml_version = inv.nvml_version;
  out.cuda_driver_version = inv.cuda_driver_version;
  AddFailures(inv.failures, &out.errors, &out.delays_ms);
  for (const GpuState& gpu : inv.gpus) {
    ScenarioGpu sg;
    sg.state = gpu;
    sg.state.failures.clear();
    AddFailures(gpu.failures, &sg.errors, &sg.delays_ms);
    out.gpus.push_back(std::move(sg));
  }
  return out;
}

std::string WriteScenario(const Scenario& s) {
  json top = json::object();
  top["scenario_version"] = kScenarioVersion;
  top["init"] = std::string(NvmlErrorName(s.init));
  PutReading(top, "driver_version", s.driver_version);
  PutReading(top, "nvml_version", s.nvml_version);
  PutReading(top, "cuda_driver_version", s.cuda_driver_version);
  if (!s.errors.empty()) top["errors"] = CodeMap(s.errors);
  if (!s.delays_ms.empty()) top["delays_ms"] = s.delays_ms;
  if (s.series_interval_ms != Scenario{}.series_interval_ms) {
    top["series_interval_ms"] = s.series_interval_ms;
  }
  json gpus = json::array();
  for (const ScenarioGpu& sg : s.gpus) {
    const GpuState& gpu = sg.state;
    json g = json::object();
    g["index"] = gpu.index;
    for (const auto& f : kStringFields) {
      if (!(gpu.*f.member).empty()) g[f.key] = gpu.*f.member;
    }
    for (const auto& f : kIntFields) PutReading(g, f.key, gpu.*f.member);
    for (const auto& f : kUint64Fields) PutReading(g, f.key, gpu.*f.member);
    for (const auto& f : kBoolFields) PutReading(g, f.key, gpu.*f.member);
    for (const auto& f : kDoubleFields) PutReading(g, f.key, gpu.*f.member);
    // Sampling keys (step 0 of any per-sample array: arrays are not written back).
    for (const auto& f : scenario_internal::kSamplingUint64Fields) {
      PutReading(g, f.key, sg.sampling.*f.member);
    }
    for (const auto& f : scenario_internal::kSamplingIntFields) {
      PutReading(g, f.key, sg.sampling.*f.member);
    }
    for (const auto& f : scenario_internal::kSamplingDoubleFields) {
      PutReading(g, f.key, sg.sampling.*f.member);
    }
    if (const auto& pu = sg.sampling.process_utilization; pu.has()) {
      json procs = json::array();
      for (const ScenarioProcessUtil& p : *pu) {
        procs.push_back(
            {{"pid", p.pid}, {"sm_util_pct", p.sm_util_pct}, {"mem_util_pct", p.mem_util_pct}});
      }
      g["process_utilization"] = std::move(procs);
    } else if (pu.unsupported() || pu.error()) {
      g["process_utilization"] = std::string(NvmlErrorName(ScenarioAnswerCode(pu)));
    }
    if (!gpu.nvlinks.empty()) {
      json links = json::array();
      for (const NvLinkState& l : gpu.nvlinks) {
        json link = {{"link", l.link}, {"active", l.active}};
        for (const auto& c : kNvLinkCounters) PutReading(link, c.key, l.*c.member);
        links.push_back(std::move(link));
      }
      g["nvlinks"] = std::move(links);
    }
    if (gpu.compute_processes.has()) {
      json procs = json::array();
      for (const GpuProcess& p : *gpu.compute_processes) {
        procs.push_back({{"pid", p.pid}, {"used_memory_bytes", p.used_memory_bytes}});
      }
      g["compute_processes"] = std::move(procs);
    } else if (gpu.compute_processes.unsupported() || gpu.compute_processes.error()) {
      g["compute_processes"] =
          std::string(NvmlErrorName(ScenarioAnswerCode(gpu.compute_processes)));
    }
    if (gpu.lost) g["lost"] = true;
    if (!sg.errors.empty()) g["errors"] = CodeMap(sg.errors);
    if (!sg.delays_ms.empty()) g["delays_ms"] = sg.delays_ms;
    gpus.push_back(std::move(g));
  }
  top["gpus"] = std::move(gpus);
  // Replace invalid UTF-8 (a garbled name from a sick GPU) rather than throw.
  return top.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string WriteScenario(const GpuInventory& inv) {
  return WriteScenario(ScenarioFromInventory(inv));
}

}  // namespace gpuvet
