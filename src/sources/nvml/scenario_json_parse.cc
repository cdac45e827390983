// Scenario JSON parser: walks the document with a JSON pointer for every value, so a wrong type,
// an unknown key or an unknown NVML error name is reported exactly where it is. GpuState fields
// come from the shared tables in scenario_fields.h.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "sources/nvml/nvml_loader.h"
#include "sources/nvml/scenario_fields.h"
#include "sources/nvml/scenario_json.h"

namespace gpuvet {

namespace {

using nlohmann::json;
using scenario_internal::kBoolFields;
using scenario_internal::kDoubleFields;
using scenario_internal::kIntFields;
using scenario_internal::kNvLinkCounterCall;
using scenario_internal::kNvLinkCounters;
using scenario_internal::kProcessesCall;
using scenario_internal::kProcessUtilizationCall;
using scenario_internal::kSamplingDoubleFields;
using scenario_internal::kSamplingIntFields;
using scenario_internal::kSamplingUint64Fields;
using scenario_internal::kScenarioVersion;
using scenario_internal::kStringFields;
using scenario_internal::kUint64Fields;
using scenario_internal::NvLinkCounterField;

// Longest per-sample array: each step is a full copy of the GPU's answers.
constexpr size_t kMaxSeriesLength = 4096;

// A per-sample array, applied to every step once the whole GPU is parsed.
struct Series {
  size_t length = 0;
  std::function<void(size_t step, ScenarioGpuStep& into)> set;
};

// Upper bound for delays_ms so a typo cannot park a test for days.
constexpr int64_t kMaxDelayMs = 3600 * 1000;

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
      return Fail(ptr,
                  "per-sample arrays are allowed only for GPU fields (see "
                  "docs/nvml-scenario.md \"Values over time\")");
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
  Status ProcessUtil(const json& j, const std::string& ptr, ScenarioSampling* out) const;
  Status LateProcesses(const json& j, const std::string& ptr,
                       std::vector<ScenarioLateProcess>* out) const;

  // Parses a field that may be a per-sample array: a scalar goes into `base->*member`; an array
  // puts element 0 there and appends a Series. `one` parses one element into a Reading.
  template <typename R, typename Owner, typename One>
  Status MaybeSeries(const json& j, const std::string& ptr, R Owner::*member, Owner* base,
                     Owner ScenarioGpuStep::*in_step, bool is_series, One one,
                     std::vector<Series>* series) const {
    if (!is_series) return one(j, ptr, &(base->*member));
    if (j.empty()) return Fail(ptr, "empty per-sample array");
    if (j.size() > kMaxSeriesLength) {
      return Fail(ptr, fmt::format("per-sample array longer than {} steps", kMaxSeriesLength));
    }
    std::vector<R> values(j.size());
    for (size_t i = 0; i < j.size(); ++i) {
      if (j[i].is_array() && !std::is_same_v<R, Reading<std::vector<GpuProcess>>> &&
          !std::is_same_v<R, Reading<std::vector<ScenarioProcessUtil>>>) {
        return Fail(fmt::format("{}/{}", ptr, i), "nested arrays are not allowed");
      }
      if (Status st = one(j[i], fmt::format("{}/{}", ptr, i), &values[i]); !st.ok()) return st;
    }
    base->*member = values[0];
    series->push_back(
        Series{values.size(), [values, member, in_step](size_t k, ScenarioGpuStep& to) {
                 (to.*in_step).*member = values[std::min(k, values.size() - 1)];
               }});
    return Status::Ok();
  }
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
        if (!n || *n < 0 || *n >= static_cast<int>(scenario_internal::kMaxNvLinks)) {
          return Fail(kp, fmt::format("expected a link number from 0 to {}",
                                      scenario_internal::kMaxNvLinks - 1));
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

Status Parser::ProcessUtil(const json& j, const std::string& ptr, ScenarioSampling* out) const {
  if (j.is_string()) {
    Result<int> code = ErrorName(j, ptr);
    if (!code.ok()) return code.status();
    out->process_utilization =
        Named<std::vector<ScenarioProcessUtil>>(*code, kProcessUtilizationCall);
    return Status::Ok();
  }
  if (!j.is_array()) return Fail(ptr, "expected an array of {pid, sm_util_pct, mem_util_pct}");
  std::vector<ScenarioProcessUtil> procs;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = fmt::format("{}/{}", ptr, i);
    const json& e = j[i];
    if (!e.is_object()) return Fail(p, "expected an object");
    ScenarioProcessUtil u;
    for (const auto& [key, value] : e.items()) {
      if (key == "pid") {
        if (!value.is_number_unsigned() || value.get<uint64_t>() > UINT32_MAX) {
          return Fail(p + "/pid", "expected a process id");
        }
        u.pid = static_cast<uint32_t>(value.get<uint64_t>());
      } else if (key == "sm_util_pct") {
        // Above 100 is allowed: real drivers answer such values, which the sampler must drop.
        if (!value.is_number_unsigned() || value.get<uint64_t>() > UINT32_MAX) {
          return Fail(p + "/" + key, "expected a whole number 0-4294967295");
        }
        u.sm_util_pct = static_cast<int64_t>(value.get<uint64_t>());
      } else if (key == "mem_util_pct") {
        std::optional<int> v = IntOf(value);
        if (!v || *v < 0 || *v > 100) return Fail(p + "/" + key, "expected a percentage 0-100");
        u.mem_util_pct = *v;
      } else {
        return Fail(p + "/" + key, "unknown key");
      }
    }
    if (!e.contains("pid")) return Fail(p, "missing \"pid\"");
    procs.push_back(u);
  }
  out->process_utilization = Reading<std::vector<ScenarioProcessUtil>>::Of(std::move(procs));
  return Status::Ok();
}

Status Parser::LateProcesses(const json& j, const std::string& ptr,
                             std::vector<ScenarioLateProcess>* out) const {
  if (!j.is_array()) return Fail(ptr, "expected an array of {pid, used_memory_bytes, sm_util_pct}");
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = fmt::format("{}/{}", ptr, i);
    const json& e = j[i];
    if (!e.is_object() || !e.contains("pid")) return Fail(p, "expected an object with \"pid\"");
    ScenarioLateProcess lp;
    for (const auto& [key, value] : e.items()) {
      if (!value.is_number_unsigned()) return Fail(p + "/" + key, "expected a whole number >= 0");
      const uint64_t v = value.get<uint64_t>();
      if (key == "pid" && v <= UINT32_MAX) {
        lp.pid = static_cast<uint32_t>(v);
      } else if (key == "used_memory_bytes") {
        lp.used_memory_bytes = v;
      } else if (key == "sm_util_pct" && v <= UINT32_MAX) {
        lp.sm_util_pct = static_cast<int64_t>(v);
      } else {
        return Fail(p + "/" + key,
                    key == "pid" || key == "sm_util_pct" ? "out of range" : "unknown key");
      }
    }
    out->push_back(lp);
  }
  return Status::Ok();
}

// A process list is an array of objects; a per-sample array of lists has arrays or error names.
bool IsListSeries(const nlohmann::json& j) {
  return j.is_array() && !j.empty() && !j[0].is_object();
}

Status Parser::Gpu(const json& j, const std::string& ptr, int index, ScenarioGpu* out) const {
  if (!j.is_object()) return Fail(ptr, "expected an object");
  GpuState& gpu = out->state;
  gpu.index = index;
  std::vector<Series> series;
  for (const auto& item : j.items()) {
    const std::string& key = item.key();  // named, not bound: lambdas below capture them
    const json& value = item.value();
    const std::string kp = ptr + "/" + key;
    if (!key.empty() && key[0] == '_') continue;  // comment
    Status s;
    bool known = true;
    auto try_fields = [&](const auto& table, auto* base, auto in_step) {
      for (const auto& f : table) {
        if (key == f.key) {
          const char* call = f.call;
          s = MaybeSeries(
              value, kp, f.member, base, in_step, value.is_array(),
              [&, call](const json& e, const std::string& p, auto* r) {
                return ReadingOf(e, p, call, r);
              },
              &series);
          return true;
        }
      }
      return false;
    };
    ScenarioSampling* sampling = &out->sampling;
    auto st = &ScenarioGpuStep::state;
    auto sa = &ScenarioGpuStep::sampling;
    if (try_fields(kIntFields, &gpu, st) || try_fields(kUint64Fields, &gpu, st) ||
        try_fields(kBoolFields, &gpu, st) || try_fields(kDoubleFields, &gpu, st) ||
        try_fields(kSamplingUint64Fields, sampling, sa) ||
        try_fields(kSamplingIntFields, sampling, sa) ||
        try_fields(kSamplingDoubleFields, sampling, sa)) {
    } else if (key == "index") {
      if (IntOf(value) != index)
        return Fail(kp, fmt::format("expected {} (the array position)", index));
    } else if (key == "lost") {
      // true/false, or per-sample [false, false, true] for a GPU that falls off the bus.
      std::vector<bool> lost;
      for (const json& e : value.is_array() ? value : json::array({value})) {
        if (!e.is_boolean()) return Fail(kp, "expected true/false or an array of them");
        lost.push_back(e.get<bool>());
      }
      if (lost.empty()) return Fail(kp, "empty per-sample array");
      gpu.lost = lost[0];
      if (value.is_array()) {
        series.push_back(Series{lost.size(), [lost](size_t k, ScenarioGpuStep& to) {
                                  to.state.lost = lost[std::min(k, lost.size() - 1)];
                                }});
      }
    } else if (key == "nvlinks") {
      s = NvLinks(value, kp, &gpu);
    } else if (key == "compute_processes") {
      s = MaybeSeries(
          value, kp, &GpuState::compute_processes, &gpu, st, IsListSeries(value),
          [this](const json& e, const std::string& p, Reading<std::vector<GpuProcess>>* r) {
            GpuState tmp;
            Status ps = Processes(e, p, &tmp);
            *r = std::move(tmp.compute_processes);
            return ps;
          },
          &series);
    } else if (key == "process_utilization") {
      s = MaybeSeries(
          value, kp, &ScenarioSampling::process_utilization, sampling, sa, IsListSeries(value),
          [this](const json& e, const std::string& p,
                 Reading<std::vector<ScenarioProcessUtil>>* r) {
            ScenarioSampling tmp;
            Status ps = ProcessUtil(e, p, &tmp);
            *r = std::move(tmp.process_utilization);
            return ps;
          },
          &series);
    } else if (key == "late_processes") {
      s = LateProcesses(value, kp, &out->late_processes);
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
  if (!series.empty()) {
    size_t steps = 0;
    for (const Series& x : series) steps = std::max(steps, x.length);
    out->steps.assign(steps, ScenarioGpuStep{out->state, out->sampling});
    for (const Series& x : series) {
      for (size_t k = 0; k < steps; ++k) x.set(k, out->steps[k]);
    }
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
    } else if (key == "series_interval_ms") {
      std::optional<int> ms = IntOf(value);
      if (!ms || *ms < 1 || *ms > kMaxDelayMs) {
        return Fail(kp, fmt::format("expected milliseconds from 1 to {}", kMaxDelayMs));
      }
      out->series_interval_ms = *ms;
    } else {
      return Fail(kp, "unknown key (see docs/nvml-scenario.md)");
    }
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace

Result<Scenario> ParseScenario(std::string_view text, std::string_view origin) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // e.what() carries line and column; e.byte is the 1-based offset.
    return InvalidInput(fmt::format("{}: not valid JSON (byte {}): {}", origin, e.byte, e.what()));
  } catch (const json::out_of_range& e) {
    // 1e999999: the parser refuses a number no double holds.
    return InvalidInput(fmt::format(
        "{}: a number does not fit: {}", origin,
        std::string(std::string_view(e.what()).substr(std::string_view(e.what()).find("] ") + 2))));
  }
  Scenario scenario;
  if (Status s = Parser(origin).Top(j, &scenario); !s.ok()) return s;
  return scenario;
}

}  // namespace gpuvet
