// Scenario JSON parser and writer. Every GpuState field is listed once, in the tables below, with
// its JSON key and the NVML function that answers it; parse and write both walk those tables.
#include "sources/scenario_json.h"

#include <fmt/format.h>

#include <cctype>
#include <climits>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>

#include "sources/nvml_loader.h"

namespace gpuvet {

namespace {

using nlohmann::json;

// The format version written to "scenario_version"; bump on incompatible changes.
constexpr int kScenarioVersion = 1;
// A hang recorded by dump-nvml is replayed as this delay: far above any sane --call-timeout.
constexpr int kReplayedHangMs = 60000;
// Upper bound for delays_ms so a typo cannot park a test for days.
constexpr int64_t kMaxDelayMs = 3600 * 1000;

template <typename T>
struct Field {
  const char* key;
  Reading<T> GpuState::*member;
  const char* call;  // the NVML function whose answer this field is
};

constexpr Field<int> kIntFields[] = {
    {"minor_number", &GpuState::minor_number, "nvmlDeviceGetMinorNumber"},
    {"performance_state", &GpuState::performance_state, "nvmlDeviceGetPerformanceState"},
    {"gpu_util_pct", &GpuState::gpu_util_pct, "nvmlDeviceGetUtilizationRates"},
    {"memory_util_pct", &GpuState::memory_util_pct, "nvmlDeviceGetUtilizationRates"},
    {"sm_clock_mhz", &GpuState::sm_clock_mhz, "nvmlDeviceGetClockInfo"},
    {"sm_clock_max_mhz", &GpuState::sm_clock_max_mhz, "nvmlDeviceGetMaxClockInfo"},
    {"mem_clock_mhz", &GpuState::mem_clock_mhz, "nvmlDeviceGetClockInfo"},
    {"mem_clock_max_mhz", &GpuState::mem_clock_max_mhz, "nvmlDeviceGetMaxClockInfo"},
    {"temperature_c", &GpuState::temperature_c, "nvmlDeviceGetTemperature"},
    {"slowdown_temperature_c", &GpuState::slowdown_temperature_c,
     "nvmlDeviceGetTemperatureThreshold"},
    {"shutdown_temperature_c", &GpuState::shutdown_temperature_c,
     "nvmlDeviceGetTemperatureThreshold"},
    {"pcie_gen", &GpuState::pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration"},
    {"pcie_gen_max", &GpuState::pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration"},
    {"pcie_width", &GpuState::pcie_width, "nvmlDeviceGetCurrPcieLinkWidth"},
    {"pcie_width_max", &GpuState::pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth"},
    {"retired_pages_sbe", &GpuState::retired_pages_sbe, "nvmlDeviceGetRetiredPages"},
    {"retired_pages_dbe", &GpuState::retired_pages_dbe, "nvmlDeviceGetRetiredPages"},
    {"remapped_rows_correctable", &GpuState::remapped_rows_correctable,
     "nvmlDeviceGetRemappedRows"},
    {"remapped_rows_uncorrectable", &GpuState::remapped_rows_uncorrectable,
     "nvmlDeviceGetRemappedRows"},
    {"mig_instances", &GpuState::mig_instances, "nvmlDeviceGetMaxMigDeviceCount"},
};

constexpr Field<uint64_t> kUint64Fields[] = {
    {"memory_total_bytes", &GpuState::memory_total_bytes, "nvmlDeviceGetMemoryInfo"},
    {"memory_used_bytes", &GpuState::memory_used_bytes, "nvmlDeviceGetMemoryInfo"},
    {"clock_event_reasons", &GpuState::clock_event_reasons,
     "nvmlDeviceGetCurrentClocksEventReasons"},
    {"pcie_replay_counter", &GpuState::pcie_replay_counter, "nvmlDeviceGetPcieReplayCounter"},
    {"ecc_corrected_volatile", &GpuState::ecc_corrected_volatile, "nvmlDeviceGetTotalEccErrors"},
    {"ecc_uncorrected_volatile", &GpuState::ecc_uncorrected_volatile,
     "nvmlDeviceGetTotalEccErrors"},
    {"ecc_corrected_aggregate", &GpuState::ecc_corrected_aggregate, "nvmlDeviceGetTotalEccErrors"},
    {"ecc_uncorrected_aggregate", &GpuState::ecc_uncorrected_aggregate,
     "nvmlDeviceGetTotalEccErrors"},
};

constexpr Field<bool> kBoolFields[] = {
    {"persistence_mode", &GpuState::persistence_mode, "nvmlDeviceGetPersistenceMode"},
    {"ecc_enabled", &GpuState::ecc_enabled, "nvmlDeviceGetEccMode"},
    {"ecc_pending_enabled", &GpuState::ecc_pending_enabled, "nvmlDeviceGetEccMode"},
    {"retired_pages_pending", &GpuState::retired_pages_pending,
     "nvmlDeviceGetRetiredPagesPendingStatus"},
    {"remap_pending", &GpuState::remap_pending, "nvmlDeviceGetRemappedRows"},
    {"remap_failure", &GpuState::remap_failure, "nvmlDeviceGetRemappedRows"},
    {"mig_enabled", &GpuState::mig_enabled, "nvmlDeviceGetMigMode"},
    {"mig_pending_enabled", &GpuState::mig_pending_enabled, "nvmlDeviceGetMigMode"},
};

constexpr Field<double> kDoubleFields[] = {
    {"power_w", &GpuState::power_w, "nvmlDeviceGetPowerUsage"},
    {"power_limit_w", &GpuState::power_limit_w, "nvmlDeviceGetEnforcedPowerLimit"},
    {"default_power_limit_w", &GpuState::default_power_limit_w,
     "nvmlDeviceGetPowerManagementDefaultLimit"},
};

// Identity strings are plain std::string in GpuState: empty means "not answered".
struct StringField {
  const char* key;
  std::string GpuState::*member;
  const char* call;
};
constexpr StringField kStringFields[] = {
    {"name", &GpuState::name, "nvmlDeviceGetName"},
    {"uuid", &GpuState::uuid, "nvmlDeviceGetUUID"},
    {"serial", &GpuState::serial, "nvmlDeviceGetSerial"},
    {"pci_bus_id", &GpuState::pci_bus_id, "nvmlDeviceGetPciInfo_v3"},
    {"vbios_version", &GpuState::vbios_version, "nvmlDeviceGetVbiosVersion"},
};

struct NvLinkCounterField {
  const char* key;
  Reading<uint64_t> NvLinkState::*member;
};
constexpr NvLinkCounterField kNvLinkCounters[] = {
    {"replay_errors", &NvLinkState::replay_errors},
    {"recovery_errors", &NvLinkState::recovery_errors},
    {"crc_flit_errors", &NvLinkState::crc_flit_errors},
    {"crc_data_errors", &NvLinkState::crc_data_errors},
};
constexpr char kNvLinkStateCall[] = "nvmlDeviceGetNvLinkState";
constexpr char kNvLinkCounterCall[] = "nvmlDeviceGetNvLinkErrorCounter";
constexpr char kProcessesCall[] = "nvmlDeviceGetComputeRunningProcesses_v3";

// True when `call` is the source of some Reading field (its errors are written on that field).
bool CallHasField(std::string_view call) {
  for (const auto& f : kIntFields)
    if (call == f.call) return true;
  for (const auto& f : kUint64Fields)
    if (call == f.call) return true;
  for (const auto& f : kBoolFields)
    if (call == f.call) return true;
  for (const auto& f : kDoubleFields)
    if (call == f.call) return true;
  return call == kNvLinkCounterCall || call == kProcessesCall;
}

// ---- parsing ----

class Parser {
 public:
  explicit Parser(std::string_view origin) : origin_(origin) {}

  Status Fail(const std::string& pointer, std::string_view what) const {
    return InvalidInput(fmt::format("{}: {}: {}", origin_, pointer.empty() ? "/" : pointer, what));
  }

  // A string naming an NVML return code, other than SUCCESS.
  Result<int> ErrorName(const json& j, const std::string& ptr) const {
    if (!j.is_string()) return Fail(ptr, "expected an NVML error name such as \"NOT_SUPPORTED\"");
    std::optional<int> code = NvmlErrorFromName(j.get<std::string>());
    if (!code)
      return Fail(ptr, fmt::format("unknown NVML error name \"{}\"", j.get<std::string>()));
    if (*code == NVML_SUCCESS) return Fail(ptr, "SUCCESS is not an error");
    return *code;
  }

  // Parses `j` into a Reading: a value of type T, or an NVML error name.
  template <typename T>
  Status ReadingOf(const json& j, const std::string& ptr, const char* call, Reading<T>* out) const {
    if (j.is_array()) {
      return Fail(ptr, "per-sample arrays are reserved for recordings and not supported yet");
    }
    if (j.is_string() && !std::is_same_v<T, std::string>) {
      Result<int> code = ErrorName(j, ptr);
      if (!code.ok()) {
        return Fail(ptr, fmt::format("expected {} or an NVML error name, got \"{}\"", TypeName<T>(),
                                     j.get<std::string>()));
      }
      *out = Named<T>(*code, call);
      return Status::Ok();
    }
    if constexpr (std::is_same_v<T, std::string>) {
      if (!j.is_string()) return Fail(ptr, "expected a string");
      std::optional<int> code = NvmlErrorFromName(j.get<std::string>());
      if (code && *code != NVML_SUCCESS) {
        *out = Named<T>(*code, call);
      } else {
        *out = Reading<T>::Of(j.get<std::string>());
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!j.is_boolean()) return Fail(ptr, "expected true/false or an NVML error name");
      *out = Reading<T>::Of(j.get<bool>());
    } else if constexpr (std::is_same_v<T, double>) {
      if (!j.is_number()) return Fail(ptr, "expected a number or an NVML error name");
      *out = Reading<T>::Of(j.get<double>());
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      if (!j.is_number_unsigned()) {
        return Fail(ptr, "expected a non-negative integer or an NVML error name");
      }
      *out = Reading<T>::Of(j.get<uint64_t>());
    } else {
      static_assert(std::is_same_v<T, int>);
      std::optional<int> v = IntOf(j);
      if (!v) return Fail(ptr, "expected a 32-bit integer or an NVML error name");
      *out = Reading<T>::Of(*v);
    }
    return Status::Ok();
  }

  static std::optional<int> IntOf(const json& j) {
    if (j.is_number_unsigned()) {
      uint64_t v = j.get<uint64_t>();
      if (v <= static_cast<uint64_t>(INT_MAX)) return static_cast<int>(v);
    } else if (j.is_number_integer()) {
      int64_t v = j.get<int64_t>();
      if (v >= INT_MIN && v <= INT_MAX) return static_cast<int>(v);
    }
    return std::nullopt;
  }

  // "errors" maps: call name -> NVML error name.
  Status ErrorMap(const json& j, const std::string& ptr, std::map<std::string, int>* out) const {
    if (!j.is_object()) return Fail(ptr, "expected an object of NVML function -> error name");
    for (const auto& [call, value] : j.items()) {
      Result<int> code = ErrorName(value, ptr + "/" + call);
      if (!code.ok()) return code.status();
      (*out)[call] = *code;
    }
    return Status::Ok();
  }

  // "delays_ms" maps: call name -> milliseconds.
  Status DelayMap(const json& j, const std::string& ptr, std::map<std::string, int>* out) const {
    if (!j.is_object()) return Fail(ptr, "expected an object of NVML function -> milliseconds");
    for (const auto& [call, value] : j.items()) {
      std::optional<int> ms = IntOf(value);
      if (!ms || *ms < 0 || *ms > kMaxDelayMs) {
        return Fail(ptr + "/" + call,
                    fmt::format("expected milliseconds from 0 to {}", kMaxDelayMs));
      }
      (*out)[call] = *ms;
    }
    return Status::Ok();
  }

  Status Gpu(const json& j, const std::string& ptr, int index, ScenarioGpu* out) const;
  Status NvLinks(const json& j, const std::string& ptr, GpuState* gpu) const;
  Status Processes(const json& j, const std::string& ptr, GpuState* gpu) const;
  Status Top(const json& j, Scenario* out) const;

 private:
  template <typename T>
  static Reading<T> Named(int code, const char* call) {
    if (code == NVML_ERROR_NOT_SUPPORTED) {
      return Reading<T>::Unsupported(fmt::format("{}: not supported", call));
    }
    return Reading<T>::Error(fmt::format("{}: {}", call, NvmlErrorName(code)));
  }

  template <typename T>
  static const char* TypeName() {
    if constexpr (std::is_same_v<T, bool>) return "true/false";
    if constexpr (std::is_same_v<T, double>) return "a number";
    return "an integer";
  }

  std::string origin_;
};

Status Parser::NvLinks(const json& j, const std::string& ptr, GpuState* gpu) const {
  if (j.is_string()) {  // "NOT_SUPPORTED": no NVLink, same as omitting the key
    Result<int> code = ErrorName(j, ptr);
    if (!code.ok()) return code.status();
    if (*code != NVML_ERROR_NOT_SUPPORTED) return Fail(ptr, "only \"NOT_SUPPORTED\" or an array");
    return Status::Ok();
  }
  if (!j.is_array()) return Fail(ptr, "expected an array of links or \"NOT_SUPPORTED\"");
  std::set<int> seen;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = fmt::format("{}/{}", ptr, i);
    const json& l = j[i];
    if (!l.is_object()) return Fail(p, "expected an object");
    NvLinkState link;
    for (const auto& [key, value] : l.items()) {
      const std::string kp = p + "/" + key;
      if (key == "link") {
        std::optional<int> n = IntOf(value);
        if (!n || *n < 0 || *n >= static_cast<int>(NVML_NVLINK_MAX_LINKS)) {
          return Fail(
              kp, fmt::format("expected a link number from 0 to {}", NVML_NVLINK_MAX_LINKS - 1));
        }
        link.link = *n;
      } else if (key == "active") {
        if (!value.is_boolean()) return Fail(kp, "expected true/false");
        link.active = value.get<bool>();
      } else {
        const NvLinkCounterField* field = nullptr;
        for (const auto& f : kNvLinkCounters) {
          if (key == f.key) field = &f;
        }
        if (field == nullptr) return Fail(kp, "unknown key");
        if (Status s = ReadingOf(value, kp, kNvLinkCounterCall, &(link.*field->member)); !s.ok()) {
          return s;
        }
      }
    }
    if (!l.contains("link")) return Fail(p, "missing \"link\"");
    if (!seen.insert(link.link).second) return Fail(p + "/link", "duplicate link number");
    gpu->nvlinks.push_back(std::move(link));
  }
  return Status::Ok();
}

Status Parser::Processes(const json& j, const std::string& ptr, GpuState* gpu) const {
  if (j.is_string()) {
    Result<int> code = ErrorName(j, ptr);
    if (!code.ok()) return code.status();
    gpu->compute_processes = Named<std::vector<GpuProcess>>(*code, kProcessesCall);
    return Status::Ok();
  }
  if (!j.is_array()) return Fail(ptr, "expected an array of {pid, used_memory_bytes}");
  std::vector<GpuProcess> procs;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = fmt::format("{}/{}", ptr, i);
    const json& e = j[i];
    if (!e.is_object()) return Fail(p, "expected an object");
    GpuProcess proc;
    for (const auto& [key, value] : e.items()) {
      if (key == "pid") {
        if (!value.is_number_unsigned() || value.get<uint64_t>() > UINT32_MAX) {
          return Fail(p + "/pid", "expected a process id");
        }
        proc.pid = static_cast<uint32_t>(value.get<uint64_t>());
      } else if (key == "used_memory_bytes") {
        if (!value.is_number_unsigned()) return Fail(p + "/" + key, "expected bytes");
        proc.used_memory_bytes = value.get<uint64_t>();
      } else {
        return Fail(p + "/" + key, "unknown key");
      }
    }
    procs.push_back(proc);
  }
  gpu->compute_processes = Reading<std::vector<GpuProcess>>::Of(std::move(procs));
  return Status::Ok();
}

Status Parser::Gpu(const json& j, const std::string& ptr, int index, ScenarioGpu* out) const {
  if (!j.is_object()) return Fail(ptr, "expected an object");
  GpuState& gpu = out->state;
  gpu.index = index;
  for (const auto& [key, value] : j.items()) {
    const std::string kp = ptr + "/" + key;
    if (!key.empty() && key[0] == '_') continue;  // comment
    Status s;
    bool known = true;
    auto try_fields = [&](const auto& table) {
      for (const auto& f : table) {
        if (key == f.key) {
          s = ReadingOf(value, kp, f.call, &(gpu.*f.member));
          return true;
        }
      }
      return false;
    };
    if (try_fields(kIntFields) || try_fields(kUint64Fields) || try_fields(kBoolFields) ||
        try_fields(kDoubleFields)) {
    } else if (key == "index") {
      if (IntOf(value) != index)
        return Fail(kp, fmt::format("expected {} (the array position)", index));
    } else if (key == "lost") {
      if (!value.is_boolean()) return Fail(kp, "expected true/false");
      gpu.lost = value.get<bool>();
    } else if (key == "nvlinks") {
      s = NvLinks(value, kp, &gpu);
    } else if (key == "compute_processes") {
      s = Processes(value, kp, &gpu);
    } else if (key == "errors") {
      s = ErrorMap(value, kp, &out->errors);
    } else if (key == "delays_ms") {
      s = DelayMap(value, kp, &out->delays_ms);
    } else {
      known = false;
      for (const auto& f : kStringFields) {
        if (key != f.key) continue;
        known = true;
        if (!value.is_string()) {
          s = Fail(kp, "expected a string or an NVML error name");
        } else if (std::optional<int> code = NvmlErrorFromName(value.get<std::string>());
                   code && *code != NVML_SUCCESS) {
          out->errors[f.call] = *code;
        } else {
          gpu.*f.member = value.get<std::string>();
        }
      }
    }
    if (!known) return Fail(kp, "unknown key (see docs/nvml-scenario.md)");
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status Parser::Top(const json& j, Scenario* out) const {
  if (!j.is_object()) return Fail("", "expected a JSON object");
  for (const auto& [key, value] : j.items()) {
    const std::string kp = "/" + key;
    Status s;
    if (!key.empty() && key[0] == '_') continue;  // comment
    if (key == "scenario_version") {
      if (IntOf(value) != kScenarioVersion) {
        return Fail(kp,
                    fmt::format("unsupported version (this gpuvet reads {})", kScenarioVersion));
      }
    } else if (key == "init") {
      std::optional<int> code =
          value.is_string() ? NvmlErrorFromName(value.get<std::string>()) : std::nullopt;
      if (!code) return Fail(kp, "expected an NVML return code name such as \"SUCCESS\"");
      out->init = *code;
    } else if (key == "driver_version") {
      s = ReadingOf(value, kp, "nvmlSystemGetDriverVersion", &out->driver_version);
    } else if (key == "nvml_version") {
      s = ReadingOf(value, kp, "nvmlSystemGetNVMLVersion", &out->nvml_version);
    } else if (key == "cuda_driver_version") {
      s = ReadingOf(value, kp, "nvmlSystemGetCudaDriverVersion_v2", &out->cuda_driver_version);
    } else if (key == "gpus") {
      if (!value.is_array()) return Fail(kp, "expected an array of GPUs");
      for (size_t i = 0; i < value.size(); ++i) {
        ScenarioGpu gpu;
        s = Gpu(value[i], fmt::format("{}/{}", kp, i), static_cast<int>(i), &gpu);
        if (!s.ok()) return s;
        out->gpus.push_back(std::move(gpu));
      }
    } else if (key == "errors") {
      s = ErrorMap(value, kp, &out->errors);
    } else if (key == "delays_ms") {
      s = DelayMap(value, kp, &out->delays_ms);
    } else {
      return Fail(kp, "unknown key (see docs/nvml-scenario.md)");
    }
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

// ---- writing ----

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

Result<Scenario> ParseScenario(std::string_view text, std::string_view origin) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // e.what() carries line and column; e.byte is the 1-based offset.
    return InvalidInput(fmt::format("{}: not valid JSON (byte {}): {}", origin, e.byte, e.what()));
  }
  Scenario scenario;
  if (Status s = Parser(origin).Top(j, &scenario); !s.ok()) return s;
  return scenario;
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
