// The NVML scenario format (docs/nvml-scenario.md): a JSON description of what NVML answers on a
// node. It drives the fake libnvidia-ml.so.1 in tests and is what `gpuvet debug dump-nvml` writes,
// so a real node becomes a test fixture in one step. Keys are semantic (GpuState field names with
// units), not raw NVML calls, so people can read and edit them.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/gpu_state.h"
#include "sources/nvml/nvml_api.h"
#include "sources/nvml/scenario_sampling.h"
#include "util/status.h"

namespace gpuvet {

// One GPU of a scenario. `state` holds the answers, with the Reading states meaning:
//   kValue        the call answers NVML_SUCCESS with this value;
//   kNotSupported the call answers NVML_ERROR_NOT_SUPPORTED;
//   kAbsent       the key was omitted: the call answers NVML_ERROR_NOT_SUPPORTED too;
//   kError        the call answers the code named at the end of `note`
//                 ("nvmlDeviceGetPowerUsage: UNKNOWN"), see ScenarioAnswerCode.
// Identity strings (name, uuid, …) answer NOT_SUPPORTED when empty. `state.lost` makes every call
// on this GPU answer GPU_IS_LOST. `state.failures` is not used.
// One step of a GPU whose values change over time: every field, with per-sample arrays resolved.
struct ScenarioGpuStep {
  GpuState state;
  ScenarioSampling sampling;
};

// A process that starts between a list call's size query and its read: it joins the answers of
// nvmlDeviceGetComputeRunningProcesses_v3 (and, with sm_util_pct >= 0,
// nvmlDeviceGetProcessUtilization) after the first size query of that call on the GPU, so the
// caller's buffer is too small and its retry path runs.
struct ScenarioLateProcess {
  uint32_t pid = 0;
  uint64_t used_memory_bytes = 0;
  int64_t sm_util_pct = -1;  // -1: not in the utilisation answer
};

struct ScenarioGpu {
  GpuState state;
  std::vector<ScenarioLateProcess> late_processes;
  ScenarioSampling sampling;             // answers only the recording sampler asks for
  std::map<std::string, int> errors;     // NVML function name -> return code, overrides the value
  std::map<std::string, int> delays_ms;  // NVML function name -> delay before answering
  // Per-sample arrays ("power_w": [350, 690.5]): step k holds element k of every array (the last
  // element repeating) and the single value of every other field. Empty when nothing varies;
  // `state` and `sampling` then hold the values, otherwise they hold step 0.
  std::vector<ScenarioGpuStep> steps;
};

struct Scenario {
  int init = NVML_SUCCESS;  // what nvmlInit_v2 answers
  Reading<std::string> driver_version;
  Reading<std::string> nvml_version;
  Reading<int> cuda_driver_version;
  std::vector<ScenarioGpu> gpus;      // device i is gpus[i]
  std::map<std::string, int> errors;  // system-level calls (nvmlInit_v2, nvmlDeviceGetCount_v2, …)
  std::map<std::string, int> delays_ms;  // system-level calls
  // How long each step of the per-sample arrays lasts, counted from nvmlInit_v2
  // (docs/nvml-scenario.md "Values over time").
  int series_interval_ms = 1000;
};

// Parses a scenario. `origin` (a file name) prefixes every error. Malformed JSON gives
// InvalidInput with the line/column/byte; a wrong type, an unknown key or an unknown NVML error
// name gives InvalidInput with the JSON pointer ("/gpus/1/power_w").
Result<Scenario> ParseScenario(std::string_view json, std::string_view origin);

// The NVML return code named at the end of an error note ("nvmlDeviceGetPowerUsage: UNKNOWN",
// "… (NVML_ERROR_GPU_IS_LOST = 15)"); NVML_ERROR_UNKNOWN when the note names none (a hang).
int NvmlCodeFromNote(std::string_view note);

// The NVML return code a scenario Reading answers (see ScenarioGpu): NVML_SUCCESS for a value.
template <typename T>
int ScenarioAnswerCode(const Reading<T>& r) {
  if (r.has()) return NVML_SUCCESS;
  return r.error() ? NvmlCodeFromNote(r.note) : NVML_ERROR_NOT_SUPPORTED;
}

// A scenario that replays `inv`: values as read; unsupported readings as "NOT_SUPPORTED"; errors
// as their NVML error name (calls that hung or were skipped as "UNKNOWN"); failed identity calls
// into "errors".
Scenario ScenarioFromInventory(const GpuInventory& inv);

// Pretty JSON (2-space indent, sorted keys, trailing newline).
std::string WriteScenario(const Scenario& scenario);
std::string WriteScenario(const GpuInventory& inv);

}  // namespace gpuvet
