// A fake libnvidia-ml.so.1 that answers from a scenario JSON (docs/nvml-scenario.md), so the NVML
// source is tested end to end through dlopen without a GPU. Every exported function is generated
// from NVML_API_FUNCTIONS: a shared prologue (initialised? valid handle? delays_ms, lost, errors)
// then a hand-written body per function below. As a C library it must keep global state; it is
// one leaked object, and loaded scenarios are never freed because a "hung" call may still be
// sleeping with pointers into an old one. Per-sample arrays advance with time since nvmlInit_v2
// (or with the step number in $GPUVET_FAKE_NVML_STEP_FILE), see docs/nvml-scenario.md.
#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "sources/nvml/nvml_api.h"
#include "sources/nvml/nvml_loader.h"
#include "sources/nvml/scenario_fields.h"
#include "sources/nvml/scenario_json.h"
#include "util/file.h"

namespace {

using gpuvet::GpuState;
using gpuvet::Reading;
using gpuvet::Scenario;
using gpuvet::ScenarioAnswerCode;
using gpuvet::ScenarioGpu;
using gpuvet::ScenarioGpuStep;
using gpuvet::ScenarioSampling;

constexpr char kScenarioEnv[] = "GPUVET_FAKE_NVML_SCENARIO";
// A file holding the step number of the per-sample arrays, for tests that need exact steps.
constexpr char kStepFileEnv[] = "GPUVET_FAKE_NVML_STEP_FILE";
// Most GPU instances one MIG-capable GPU can hold (A100/H100: 7 slices).
constexpr unsigned kMaxMigDevices = 7;

// What an nvmlDevice_t points to.
struct FakeDevice {
  const ScenarioGpu* gpu = nullptr;
  int mig_index = -1;  // >= 0: MIG device `mig_index` of `gpu`
};

// One scenario as loaded by nvmlInit_v2, with the handles it hands out.
struct Loaded {
  Scenario scenario;
  std::vector<std::unique_ptr<FakeDevice>> devices;            // one per GPU
  std::vector<std::vector<std::unique_ptr<FakeDevice>>> migs;  // per GPU
  std::chrono::steady_clock::time_point init_time;             // step 0 of per-sample arrays
};

// What an nvmlGpmSample_t points to: the GPU and the answers of the step it was taken at.
struct FakeGpmSample {
  const ScenarioGpu* gpu = nullptr;  // null until nvmlGpmSampleGet
  const ScenarioSampling* sampling = nullptr;
};

struct FakeState {
  std::mutex mu;
  std::vector<std::unique_ptr<Loaded>> all;  // every scenario ever loaded (see file comment)
  const Loaded* current = nullptr;           // null: not initialised
  std::set<FakeGpmSample*> gpm_samples;      // allocated and not yet freed
  // (GPU, list call) pairs that have answered a size query: their late_processes join from then.
  std::set<std::pair<const ScenarioGpu*, int>> size_queried;
};

FakeState& State() {
  static FakeState* state = new FakeState();  // leaked: a sleeping call may outlive static dtors
  return *state;
}

enum : int { kComputeList = 0, kUtilizationList = 1 };

// Whether GPU `gpu`'s list `which` has had its size queried; `mark` records that it now has.
bool SizeQueried(const ScenarioGpu* gpu, int which, bool mark) {
  FakeState& state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  const bool was = state.size_queried.count({gpu, which}) > 0;
  if (mark) state.size_queried.insert({gpu, which});
  return was;
}

// What a body needs: the scenario and, for device calls, the GPU.
struct Ctx {
  const Loaded* loaded = nullptr;
  const FakeDevice* device = nullptr;
  const ScenarioGpu* gpu = nullptr;
  const GpuState* state = nullptr;  // the GPU's answers at the current step
  const ScenarioSampling* sampling = nullptr;
};

// Marks "prologue found nothing to answer, run the body".
constexpr int kContinue = -1;

// The scenario file's text as last loaded (see FollowScenarioFile).
std::string& LoadedText() {
  static std::string* text = new std::string();  // leaked, like State()
  return *text;
}

int LoadScenarioFromEnv() {
  const char* path = std::getenv(kScenarioEnv);
  if (path == nullptr || path[0] == '\0') return NVML_ERROR_DRIVER_NOT_LOADED;
  gpuvet::Result<std::string> text = gpuvet::ReadFile(path);
  if (!text.ok()) {
    std::fprintf(stderr, "fake NVML: %s\n", text.status().message().c_str());
    return NVML_ERROR_UNKNOWN;
  }
  gpuvet::Result<Scenario> parsed = gpuvet::ParseScenario(*text, path);
  if (!parsed.ok()) {
    std::fprintf(stderr, "fake NVML: %s\n", parsed.status().message().c_str());
    return NVML_ERROR_UNKNOWN;
  }
  auto loaded = std::make_unique<Loaded>();
  loaded->scenario = std::move(parsed).value();
  for (const ScenarioGpu& gpu : loaded->scenario.gpus) {
    loaded->devices.push_back(std::make_unique<FakeDevice>(FakeDevice{&gpu, -1}));
    std::vector<std::unique_ptr<FakeDevice>> migs;
    for (unsigned i = 0; i < kMaxMigDevices; ++i) {
      migs.push_back(std::make_unique<FakeDevice>(FakeDevice{&gpu, static_cast<int>(i)}));
    }
    loaded->migs.push_back(std::move(migs));
  }
  loaded->init_time = std::chrono::steady_clock::now();
  FakeState& state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  state.all.push_back(std::move(loaded));
  state.current = state.all.back().get();
  LoadedText() = *text;
  return NVML_SUCCESS;
}

// A long-lived NVML session (the exporter) sees a driver whose answers change underneath it with
// the same handles. The fake follows that: at each nvmlDeviceGetCount_v2 (once per read), when the
// scenario file's text changed since it was loaded, the new scenario replaces the old one and the
// handles already given out stay valid, now answering from the new GPUs at their index (the
// time series keep their step 0). A GPU count that shrank leaves the extra handles invalid.
void FollowScenarioFile() {
  const char* path = std::getenv(kScenarioEnv);
  FakeState& state = State();
  {
    std::lock_guard<std::mutex> lock(state.mu);
    if (state.current == nullptr || path == nullptr || path[0] == '\0') return;
  }
  gpuvet::Result<std::string> text = gpuvet::ReadFile(path);
  if (!text.ok() || *text == LoadedText()) return;
  gpuvet::Result<Scenario> parsed = gpuvet::ParseScenario(*text, path);
  if (!parsed.ok()) return;  // half-written: try again at the next read
  std::lock_guard<std::mutex> lock(state.mu);
  Loaded* old = state.all.back().get();
  if (old != state.current) return;
  auto loaded = std::make_unique<Loaded>();
  loaded->scenario = std::move(parsed).value();
  loaded->init_time = old->init_time;
  for (size_t g = 0; g < loaded->scenario.gpus.size(); ++g) {
    const ScenarioGpu* gpu = &loaded->scenario.gpus[g];
    if (g < old->devices.size()) {  // the same handles, answering from the new scenario
      loaded->devices.push_back(std::move(old->devices[g]));
      loaded->migs.push_back(std::move(old->migs[g]));
    } else {
      loaded->devices.push_back(std::make_unique<FakeDevice>());
      std::vector<std::unique_ptr<FakeDevice>> migs;
      for (unsigned i = 0; i < kMaxMigDevices; ++i) {
        migs.push_back(std::make_unique<FakeDevice>(FakeDevice{nullptr, static_cast<int>(i)}));
      }
      loaded->migs.push_back(std::move(migs));
    }
    loaded->devices[g]->gpu = gpu;
    for (auto& mig : loaded->migs[g]) mig->gpu = gpu;
  }
  state.all.push_back(std::move(loaded));
  state.current = state.all.back().get();
  LoadedText() = *text;
}

// The first argument when it is a device handle, else null.
template <typename... A>
nvmlDevice_t DeviceArg(nvmlDevice_t device, A...) {
  return device;
}
template <typename... A>
nvmlDevice_t DeviceArg(A...) {
  return nullptr;
}

// The step of `gpu`'s per-sample arrays now: from the step file when set, else time since init
// over series_interval_ms; clamped to the last step.
const ScenarioGpuStep* StepOf(const Loaded& loaded, const ScenarioGpu& gpu) {
  if (gpu.steps.empty()) return nullptr;
  long long step = 0;
  if (const char* file = std::getenv(kStepFileEnv); file != nullptr && file[0] != '\0') {
    gpuvet::Result<std::string> text = gpuvet::ReadFile(file, 64);
    step = text.ok() ? std::atoll(text->c_str()) : 0;
  } else {
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - loaded.init_time);
    step = elapsed.count() / loaded.scenario.series_interval_ms;
  }
  const long long last = static_cast<long long>(gpu.steps.size()) - 1;
  return &gpu.steps[static_cast<size_t>(std::clamp(step, 0LL, last))];
}

// delays_ms, lost, errors for one GPU (or the system when gpu is null).
int ApplyOverrides(const Loaded& loaded, const ScenarioGpu* gpu, const GpuState* state,
                   const char* name) {
  const auto& delays = gpu != nullptr ? gpu->delays_ms : loaded.scenario.delays_ms;
  if (auto it = delays.find(name); it != delays.end()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(it->second));
  }
  if (state != nullptr && state->lost) return NVML_ERROR_GPU_IS_LOST;
  const auto& errors = gpu != nullptr ? gpu->errors : loaded.scenario.errors;
  if (auto it = errors.find(name); it != errors.end()) return it->second;
  return kContinue;
}

// ---- call counting (for measurements: docs/exporter.md "NVML cost") ----
// Every exported NVML function called, by name. $GPUVET_FAKE_NVML_CALL_LOG names a file that
// gets "TOTAL\n" then "COUNT NAME" lines at process exit and at each nvmlDeviceGetCount_v2 (once
// per read, so a process that ends with _Exit leaves its counts up to its last read);
// gpuvetFakeNvmlCallCount() answers the total in process.
struct CallCounts {
  std::mutex mu;
  std::map<std::string, unsigned long long> by_name;
  unsigned long long total = 0;
};
CallCounts& Counts() {
  static CallCounts* counts = new CallCounts();  // leaked, like State()
  return *counts;
}
void WriteCallLog() {
  const char* path = std::getenv("GPUVET_FAKE_NVML_CALL_LOG");
  if (path == nullptr || *path == '\0') return;
  CallCounts& c = Counts();
  std::lock_guard<std::mutex> lock(c.mu);
  if (FILE* f = std::fopen(path, "w")) {
    std::fprintf(f, "%llu\n", c.total);
    for (const auto& [name, n] : c.by_name) std::fprintf(f, "%llu %s\n", n, name.c_str());
    std::fclose(f);
  }
}
void CountCall(const char* name) {
  static const bool registered = [] { return std::atexit(WriteCallLog) == 0; }();
  (void)registered;
  {
    CallCounts& c = Counts();
    std::lock_guard<std::mutex> lock(c.mu);
    ++c.by_name[name];
    ++c.total;
  }
  if (std::strcmp(name, "nvmlDeviceGetCount_v2") == 0) WriteCallLog();
}

int Prologue(const char* name, nvmlDevice_t handle, Ctx* ctx) {
  CountCall(name);
  const bool is_init = std::strcmp(name, "nvmlInit_v2") == 0;
  if (is_init) {
    if (int code = LoadScenarioFromEnv(); code != NVML_SUCCESS) return code;
  } else if (std::strcmp(name, "nvmlDeviceGetCount_v2") == 0) {
    FollowScenarioFile();
  }
  {
    FakeState& state = State();
    std::lock_guard<std::mutex> lock(state.mu);
    ctx->loaded = state.current;
  }
  if (ctx->loaded == nullptr) return NVML_ERROR_UNINITIALIZED;
  if (handle != nullptr) {
    const auto* device = reinterpret_cast<const FakeDevice*>(handle);
    bool valid = false;  // a handle from an earlier nvmlInit_v2 is invalid now
    for (size_t g = 0; g < ctx->loaded->devices.size() && !valid; ++g) {
      valid = ctx->loaded->devices[g].get() == device;
      for (const auto& mig : ctx->loaded->migs[g]) valid = valid || mig.get() == device;
    }
    if (!valid) return NVML_ERROR_INVALID_ARGUMENT;
    ctx->device = device;
    ctx->gpu = device->gpu;
    const ScenarioGpuStep* step = StepOf(*ctx->loaded, *ctx->gpu);
    ctx->state = step != nullptr ? &step->state : &ctx->gpu->state;
    ctx->sampling = step != nullptr ? &step->sampling : &ctx->gpu->sampling;
  }
  if (int code = ApplyOverrides(*ctx->loaded, ctx->gpu, ctx->state, name); code != kContinue) {
    return code;
  }
  // MIG devices answer nothing but their existence.
  if (ctx->device != nullptr && ctx->device->mig_index >= 0) return NVML_ERROR_NOT_SUPPORTED;
  return kContinue;
}

// Binds the context as a body's first argument: Bind(ctx, Body)(args...).
template <typename F>
auto Bind(const Ctx& ctx, F body) {
  return [&ctx, body](auto... args) { return body(ctx, args...); };
}

// ---- answer helpers ----

int CopyString(const std::string& s, char* buf, unsigned length) {
  if (s.empty()) return NVML_ERROR_NOT_SUPPORTED;
  if (buf == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (s.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(buf, s.c_str(), s.size() + 1);
  return NVML_SUCCESS;
}

// The first non-success answer of fields that one call reports together.
template <typename... R>
int Combined(const R&... readings) {
  int code = NVML_SUCCESS;
  ((code = code != NVML_SUCCESS ? code : ScenarioAnswerCode(readings)), ...);
  return code;
}

template <typename T, typename Out>
int Answer(const Reading<T>& r, Out* out) {
  if (int code = ScenarioAnswerCode(r); code != NVML_SUCCESS) return code;
  if (out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *out = static_cast<Out>(r.value);
  return NVML_SUCCESS;
}

int AnswerMilliwatts(const Reading<double>& w, unsigned* mw) {
  if (int code = ScenarioAnswerCode(w); code != NVML_SUCCESS) return code;
  *mw = static_cast<unsigned>(std::llround(w.value * 1000.0));
  return NVML_SUCCESS;
}

const GpuState& G(const Ctx& c) { return *c.state; }
const ScenarioSampling& S(const Ctx& c) { return *c.sampling; }

// ---- bodies, one per NVML_API_FUNCTIONS entry ----

int Body_nvmlInit_v2(const Ctx& c) { return c.loaded->scenario.init; }

int Body_nvmlShutdown(const Ctx& c) {
  FakeState& state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  state.current = nullptr;
  return NVML_SUCCESS;
}

int Body_nvmlSystemGetDriverVersion(const Ctx& c, char* version, unsigned length) {
  const auto& r = c.loaded->scenario.driver_version;
  if (int code = ScenarioAnswerCode(r); code != NVML_SUCCESS) return code;
  return CopyString(r.value, version, length);
}

int Body_nvmlSystemGetNVMLVersion(const Ctx& c, char* version, unsigned length) {
  const auto& r = c.loaded->scenario.nvml_version;
  if (int code = ScenarioAnswerCode(r); code != NVML_SUCCESS) return code;
  return CopyString(r.value, version, length);
}

int Body_nvmlSystemGetCudaDriverVersion_v2(const Ctx& c, int* version) {
  return Answer(c.loaded->scenario.cuda_driver_version, version);
}

int Body_nvmlDeviceGetCount_v2(const Ctx& c, unsigned* count) {
  *count = static_cast<unsigned>(c.loaded->devices.size());
  return NVML_SUCCESS;
}

int Body_nvmlDeviceGetHandleByIndex_v2(const Ctx& c, unsigned index, nvmlDevice_t* device) {
  if (index >= c.loaded->devices.size() || device == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  // Per-GPU errors and delays apply to this call too; a lost GPU still hands out its handle.
  const ScenarioGpu& gpu = c.loaded->scenario.gpus[index];
  for (const auto* m : {&gpu.delays_ms}) {
    if (auto it = m->find("nvmlDeviceGetHandleByIndex_v2"); it != m->end()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(it->second));
    }
  }
  if (auto it = gpu.errors.find("nvmlDeviceGetHandleByIndex_v2"); it != gpu.errors.end()) {
    return it->second;
  }
  *device = reinterpret_cast<nvmlDevice_t>(c.loaded->devices[index].get());
  return NVML_SUCCESS;
}

int Body_nvmlDeviceGetName(const Ctx& c, nvmlDevice_t, char* name, unsigned length) {
  return CopyString(G(c).name, name, length);
}
int Body_nvmlDeviceGetUUID(const Ctx& c, nvmlDevice_t, char* uuid, unsigned length) {
  return CopyString(G(c).uuid, uuid, length);
}
int Body_nvmlDeviceGetSerial(const Ctx& c, nvmlDevice_t, char* serial, unsigned length) {
  return CopyString(G(c).serial, serial, length);
}
int Body_nvmlDeviceGetVbiosVersion(const Ctx& c, nvmlDevice_t, char* version, unsigned length) {
  return CopyString(G(c).vbios_version, version, length);
}

// Answers the sysfs form "0000:3b:00.0" as NVML writes it: "00000000:3B:00.0".
int Body_nvmlDeviceGetPciInfo_v3(const Ctx& c, nvmlDevice_t, nvmlPciInfo_t* pci) {
  const std::string& id = G(c).pci_bus_id;
  if (id.empty()) return NVML_ERROR_NOT_SUPPORTED;
  *pci = nvmlPciInfo_t{};
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  if (std::sscanf(id.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) == 4) {
    std::snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.%X", domain, bus, dev, fn);
    std::snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.%X", domain & 0xffff,
                  bus, dev, fn);
    pci->domain = domain;
    pci->bus = bus;
    pci->device = dev;
  } else {  // garbage in the scenario is passed through, for testing the normaliser
    std::snprintf(pci->busId, sizeof(pci->busId), "%s", id.c_str());
  }
  pci->pciDeviceId = 0x233010de;  // H100 SXM5 (device 0x2330, vendor 0x10de): any value will do
  return NVML_SUCCESS;
}

int Body_nvmlDeviceGetMinorNumber(const Ctx& c, nvmlDevice_t, unsigned* minor) {
  return Answer(G(c).minor_number, minor);
}
int Body_nvmlDeviceGetPersistenceMode(const Ctx& c, nvmlDevice_t, nvmlEnableState_t* mode) {
  return Answer(G(c).persistence_mode, mode);
}
int Body_nvmlDeviceGetPerformanceState(const Ctx& c, nvmlDevice_t, int* pstate) {
  return Answer(G(c).performance_state, pstate);
}

int Body_nvmlDeviceGetUtilizationRates(const Ctx& c, nvmlDevice_t, nvmlUtilization_t* util) {
  const GpuState& g = G(c);
  if (int code = Combined(g.gpu_util_pct, g.memory_util_pct); code != NVML_SUCCESS) return code;
  util->gpu = static_cast<unsigned>(*g.gpu_util_pct);
  util->memory = static_cast<unsigned>(*g.memory_util_pct);
  return NVML_SUCCESS;
}

int Body_nvmlDeviceGetMemoryInfo(const Ctx& c, nvmlDevice_t, nvmlMemory_t* memory) {
  const GpuState& g = G(c);
  if (int code = Combined(g.memory_total_bytes, g.memory_used_bytes); code != NVML_SUCCESS) {
    return code;
  }
  memory->total = *g.memory_total_bytes;
  memory->used = *g.memory_used_bytes;
  memory->free = memory->total >= memory->used ? memory->total - memory->used : 0;
  return NVML_SUCCESS;
}

int Body_nvmlDeviceGetClockInfo(const Ctx& c, nvmlDevice_t, int type, unsigned* clock) {
  if (type == NVML_CLOCK_SM) return Answer(G(c).sm_clock_mhz, clock);
  if (type == NVML_CLOCK_MEM) return Answer(G(c).mem_clock_mhz, clock);
  return NVML_ERROR_NOT_SUPPORTED;
}
int Body_nvmlDeviceGetMaxClockInfo(const Ctx& c, nvmlDevice_t, int type, unsigned* clock) {
  if (type == NVML_CLOCK_SM) return Answer(G(c).sm_clock_max_mhz, clock);
  if (type == NVML_CLOCK_MEM) return Answer(G(c).mem_clock_max_mhz, clock);
  return NVML_ERROR_NOT_SUPPORTED;
}

int Body_nvmlDeviceGetCurrentClocksEventReasons(const Ctx& c, nvmlDevice_t,
                                                unsigned long long* reasons) {
  return Answer(G(c).clock_event_reasons, reasons);
}
int Body_nvmlDeviceGetCurrentClocksThrottleReasons(const Ctx& c, nvmlDevice_t,
                                                   unsigned long long* reasons) {
  return Answer(G(c).clock_event_reasons, reasons);
}

int Body_nvmlDeviceGetTemperature(const Ctx& c, nvmlDevice_t, int sensor, unsigned* temp) {
  if (sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  return Answer(G(c).temperature_c, temp);
}
int Body_nvmlDeviceGetTemperatureThreshold(const Ctx& c, nvmlDevice_t, int threshold,
                                           unsigned* temp) {
  if (threshold == NVML_TEMPERATURE_THRESHOLD_SLOWDOWN) {
    return Answer(G(c).slowdown_temperature_c, temp);
  }
  if (threshold == NVML_TEMPERATURE_THRESHOLD_SHUTDOWN) {
    return Answer(G(c).shutdown_temperature_c, temp);
  }
  return NVML_ERROR_NOT_SUPPORTED;
}

int Body_nvmlDeviceGetPowerUsage(const Ctx& c, nvmlDevice_t, unsigned* mw) {
  return AnswerMilliwatts(G(c).power_w, mw);
}
int Body_nvmlDeviceGetEnforcedPowerLimit(const Ctx& c, nvmlDevice_t, unsigned* mw) {
  return AnswerMilliwatts(G(c).power_limit_w, mw);
}
int Body_nvmlDeviceGetPowerManagementDefaultLimit(const Ctx& c, nvmlDevice_t, unsigned* mw) {
  return AnswerMilliwatts(G(c).default_power_limit_w, mw);
}

int Body_nvmlDeviceGetCurrPcieLinkGeneration(const Ctx& c, nvmlDevice_t, unsigned* v) {
  return Answer(G(c).pcie_gen, v);
}
int Body_nvmlDeviceGetMaxPcieLinkGeneration(const Ctx& c, nvmlDevice_t, unsigned* v) {
  return Answer(G(c).pcie_gen_max, v);
}
int Body_nvmlDeviceGetCurrPcieLinkWidth(const Ctx& c, nvmlDevice_t, unsigned* v) {
  return Answer(G(c).pcie_width, v);
}
int Body_nvmlDeviceGetMaxPcieLinkWidth(const Ctx& c, nvmlDevice_t, unsigned* v) {
  return Answer(G(c).pcie_width_max, v);
}
int Body_nvmlDeviceGetPcieReplayCounter(const Ctx& c, nvmlDevice_t, unsigned* v) {
  return Answer(G(c).pcie_replay_counter, v);
}

int Body_nvmlDeviceGetEccMode(const Ctx& c, nvmlDevice_t, nvmlEnableState_t* current,
                              nvmlEnableState_t* pending) {
  const GpuState& g = G(c);
  if (int code = Combined(g.ecc_enabled, g.ecc_pending_enabled); code != NVML_SUCCESS) return code;
  *current = *g.ecc_enabled ? 1 : 0;
  *pending = *g.ecc_pending_enabled ? 1 : 0;
  return NVML_SUCCESS;
}

int Body_nvmlDeviceGetTotalEccErrors(const Ctx& c, nvmlDevice_t, int error_type, int counter_type,
                                     unsigned long long* count) {
  const GpuState& g = G(c);
  const bool corrected = error_type == NVML_MEMORY_ERROR_TYPE_CORRECTED;
  if (counter_type == NVML_VOLATILE_ECC) {
    return Answer(corrected ? g.ecc_corrected_volatile : g.ecc_uncorrected_volatile, count);
  }
  if (counter_type == NVML_AGGREGATE_ECC) {
    return Answer(corrected ? g.ecc_corrected_aggregate : g.ecc_uncorrected_aggregate, count);
  }
  return NVML_ERROR_INVALID_ARGUMENT;
}

// Count protocol: *page_count too small -> INSUFFICIENT_SIZE with the count needed.
int Body_nvmlDeviceGetRetiredPages(const Ctx& c, nvmlDevice_t, int cause, unsigned* page_count,
                                   unsigned long long* addresses) {
  const Reading<int>& r = cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
                              ? G(c).retired_pages_dbe
                              : G(c).retired_pages_sbe;
  if (int code = ScenarioAnswerCode(r); code != NVML_SUCCESS) return code;
  if (page_count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const unsigned n = static_cast<unsigned>(std::max(0, *r));
  if (*page_count < n) {
    *page_count = n;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  for (unsigned i = 0; i < n && addresses != nullptr; ++i) addresses[i] = 0x1000ULL * (i + 1);
  *page_count = n;
  return NVML_SUCCESS;
}

int Body_nvmlDeviceGetRetiredPagesPendingStatus(const Ctx& c, nvmlDevice_t,
                                                nvmlEnableState_t* pending) {
  return Answer(G(c).retired_pages_pending, pending);
}

int Body_nvmlDeviceGetRemappedRows(const Ctx& c, nvmlDevice_t, unsigned* corr_rows,
                                   unsigned* unc_rows, unsigned* is_pending,
                                   unsigned* failure_occurred) {
  const GpuState& g = G(c);
  if (int code = Combined(g.remapped_rows_correctable, g.remapped_rows_uncorrectable,
                          g.remap_pending, g.remap_failure);
      code != NVML_SUCCESS) {
    return code;
  }
  *corr_rows = static_cast<unsigned>(*g.remapped_rows_correctable);
  *unc_rows = static_cast<unsigned>(*g.remapped_rows_uncorrectable);
  *is_pending = *g.remap_pending ? 1 : 0;
  *failure_occurred = *g.remap_failure ? 1 : 0;
  return NVML_SUCCESS;
}

int Body_nvmlDeviceGetMigMode(const Ctx& c, nvmlDevice_t, unsigned* current, unsigned* pending) {
  const GpuState& g = G(c);
  if (int code = Combined(g.mig_enabled, g.mig_pending_enabled); code != NVML_SUCCESS) return code;
  *current = *g.mig_enabled ? 1 : 0;
  *pending = *g.mig_pending_enabled ? 1 : 0;
  return NVML_SUCCESS;
}

int Body_nvmlDeviceGetMaxMigDeviceCount(const Ctx& c, nvmlDevice_t, unsigned* count) {
  if (int code = ScenarioAnswerCode(G(c).mig_instances); code != NVML_SUCCESS) return code;
  *count = kMaxMigDevices;
  return NVML_SUCCESS;
}

// Slots 0..mig_instances-1 hold MIG devices; the rest answer NOT_FOUND.
int Body_nvmlDeviceGetMigDeviceHandleByIndex(const Ctx& c, nvmlDevice_t, unsigned index,
                                             nvmlDevice_t* mig) {
  if (int code = ScenarioAnswerCode(G(c).mig_instances); code != NVML_SUCCESS) return code;
  if (index >= kMaxMigDevices || mig == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (static_cast<int>(index) >= *G(c).mig_instances) return NVML_ERROR_NOT_FOUND;
  const size_t gpu = static_cast<size_t>(G(c).index);
  *mig = reinterpret_cast<nvmlDevice_t>(c.loaded->migs[gpu][index].get());
  return NVML_SUCCESS;
}

const gpuvet::NvLinkState* FindLink(const GpuState& g, unsigned link) {
  for (const auto& l : g.nvlinks) {
    if (static_cast<unsigned>(l.link) == link) return &l;
  }
  return nullptr;
}

// No links listed: NOT_SUPPORTED. Past the highest listed link: INVALID_ARGUMENT (no such link).
int Body_nvmlDeviceGetNvLinkState(const Ctx& c, nvmlDevice_t, unsigned link,
                                  nvmlEnableState_t* active) {
  const GpuState& g = G(c);
  if (g.nvlinks.empty()) return NVML_ERROR_NOT_SUPPORTED;
  if (const gpuvet::NvLinkState* l = FindLink(g, link)) {
    *active = l->active ? 1 : 0;
    return NVML_SUCCESS;
  }
  int highest = 0;
  for (const auto& l : g.nvlinks) highest = std::max(highest, l.link);
  return static_cast<int>(link) < highest ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
}

int Body_nvmlDeviceGetNvLinkErrorCounter(const Ctx& c, nvmlDevice_t, unsigned link, int counter,
                                         unsigned long long* value) {
  const gpuvet::NvLinkState* l = FindLink(G(c), link);
  if (l == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  switch (counter) {
    case NVML_NVLINK_ERROR_DL_REPLAY:
      return Answer(l->replay_errors, value);
    case NVML_NVLINK_ERROR_DL_RECOVERY:
      return Answer(l->recovery_errors, value);
    case NVML_NVLINK_ERROR_DL_CRC_FLIT:
      return Answer(l->crc_flit_errors, value);
    case NVML_NVLINK_ERROR_DL_CRC_DATA:
      return Answer(l->crc_data_errors, value);
    default:
      return NVML_ERROR_INVALID_ARGUMENT;
  }
}

// One past the highest field id the fake knows of (nvml.h NVML_FI_MAX is 300-odd in r580): a
// larger id answers INVALID_ARGUMENT for that field, as NVML does for ids it does not know; a
// known id the scenario does not model answers NOT_SUPPORTED.
constexpr unsigned kFakeFieldIdMax = 300;

// Fills one requested field the way NVML does: its own return code, and on success the value
// with its type. Per-link ids read the link in scopeId from the scenario's nvlinks.
void AnswerField(const GpuState& g, nvmlFieldValue_t& f) {
  f.timestamp = 0;
  f.latencyUsec = 0;
  f.value.ullVal = 0;
  if (f.fieldId >= kFakeFieldIdMax) {
    f.nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
    return;
  }
  if (f.fieldId == NVML_FI_DEV_NVLINK_LINK_COUNT) {
    if (g.nvlinks.empty()) {
      f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      return;
    }
    int highest = 0;
    for (const auto& l : g.nvlinks) highest = std::max(highest, l.link);
    f.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    f.value.uiVal = static_cast<unsigned>(highest + 1);
    f.nvmlReturn = NVML_SUCCESS;
    return;
  }
  for (const auto& id : gpuvet::scenario_internal::kNvLinkFieldIds) {
    if (id.field_id != f.fieldId) continue;
    const gpuvet::NvLinkState* l = g.nvlinks.empty() ? nullptr : FindLink(g, f.scopeId);
    if (g.nvlinks.empty()) {
      f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    } else if (l == nullptr) {
      f.nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;  // no such link
    } else {
      f.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
      f.nvmlReturn = Answer(l->*id.member, &f.value.ullVal);
    }
    return;
  }
  f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
}

// The whole call succeeds once it has a device and a buffer; each field carries its own answer.
int Body_nvmlDeviceGetFieldValues(const Ctx& c, nvmlDevice_t, int values_count,
                                  nvmlFieldValue_t* values) {
  if (values == nullptr || values_count <= 0) return NVML_ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < values_count; ++i) AnswerField(G(c), values[i]);
  return NVML_SUCCESS;
}

// A versioned struct: another version answers ARGUMENT_VERSION_MISMATCH, as NVML does.
int Body_nvmlDeviceGetMarginTemperature(const Ctx& c, nvmlDevice_t,
                                        nvmlMarginTemperature_t* margin) {
  if (margin == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (margin->version != nvmlMarginTemperature_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  return Answer(G(c).temperature_margin_c, &margin->marginTemperature);
}

// A scenario process with pid 0 stands for the calling process's first child: the workload that
// `gpuvet record -- CMD` spawned, whose pid no scenario can know in advance
// (docs/nvml-scenario.md).
unsigned ResolvePid(unsigned pid) {
  if (pid != 0) return pid;
  unsigned first = 0;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return 0;
  while (dirent* e = readdir(tasks)) {
    if (e->d_name[0] == '.') continue;
    auto text = gpuvet::ReadFile(std::string("/proc/self/task/") + e->d_name + "/children");
    if (!text.ok()) continue;
    unsigned child = 0;
    if (std::sscanf(text->c_str(), "%u", &child) == 1 && (first == 0 || child < first)) {
      first = child;
    }
  }
  closedir(tasks);
  return first;
}

// NVML's size-query protocol, as strict as the library: a NULL buffer (or *count 0) is the size
// query (SUCCESS when nothing runs, else INSUFFICIENT_SIZE with the count); a buffer smaller than
// the list gets INSUFFICIENT_SIZE and the count needed, and is not filled. The GPU's
// late_processes join after its first size query, so a caller that sized its buffer exactly must
// retry.
int Body_nvmlDeviceGetComputeRunningProcesses_v3(const Ctx& c, nvmlDevice_t, unsigned* count,
                                                 nvmlProcessInfo_t* infos) {
  const auto& r = G(c).compute_processes;
  if (int code = ScenarioAnswerCode(r); code != NVML_SUCCESS) return code;
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  std::vector<nvmlProcessInfo_t> list;
  for (const auto& p : r.value) {
    list.push_back(nvmlProcessInfo_t{ResolvePid(p.pid), p.used_memory_bytes, 0, 0});
  }
  const bool size_query = infos == nullptr || *count == 0;
  if (SizeQueried(c.gpu, kComputeList, size_query)) {
    for (const auto& p : c.gpu->late_processes) {
      list.push_back(nvmlProcessInfo_t{ResolvePid(p.pid), p.used_memory_bytes, 0, 0});
    }
  }
  const unsigned n = static_cast<unsigned>(list.size());
  if (*count < n || (n > 0 && infos == nullptr)) {
    *count = n;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  std::copy(list.begin(), list.end(), infos);
  *count = n;
  return NVML_SUCCESS;
}

// ---- sampling calls (gpuvet record / watch) ----

int Body_nvmlDeviceGetTotalEnergyConsumption(const Ctx& c, nvmlDevice_t, unsigned long long* mj) {
  return Answer(S(c).energy_mj, mj);
}

int Body_nvmlDeviceGetPcieThroughput(const Ctx& c, nvmlDevice_t, int counter, unsigned* kbps) {
  if (counter == NVML_PCIE_UTIL_TX_BYTES) return Answer(S(c).pcie_tx_kbps, kbps);
  if (counter == NVML_PCIE_UTIL_RX_BYTES) return Answer(S(c).pcie_rx_kbps, kbps);
  return NVML_ERROR_INVALID_ARGUMENT;
}

// The size-query protocol like the process list (late_processes with an sm_util_pct join after
// the first size query); an empty list answers NOT_FOUND (no samples in the window), as NVML
// does. Every answer carries the current time as its timestamp.
int Body_nvmlDeviceGetProcessUtilization(const Ctx& c, nvmlDevice_t,
                                         nvmlProcessUtilizationSample_t* samples, unsigned* count,
                                         unsigned long long /*last_seen_us*/) {
  const auto& r = S(c).process_utilization;
  if (int code = ScenarioAnswerCode(r); code != NVML_SUCCESS) return code;
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const auto now_us =
      static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::microseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
  std::vector<nvmlProcessUtilizationSample_t> list;
  for (const auto& u : r.value) {
    list.push_back(nvmlProcessUtilizationSample_t{ResolvePid(u.pid), now_us,
                                                  static_cast<unsigned>(u.sm_util_pct),
                                                  static_cast<unsigned>(u.mem_util_pct), 0, 0});
  }
  const bool size_query = samples == nullptr || *count == 0;
  if (SizeQueried(c.gpu, kUtilizationList, size_query)) {
    for (const auto& p : c.gpu->late_processes) {
      if (p.sm_util_pct < 0) continue;
      list.push_back(nvmlProcessUtilizationSample_t{ResolvePid(p.pid), now_us,
                                                    static_cast<unsigned>(p.sm_util_pct), 0, 0, 0});
    }
  }
  const unsigned n = static_cast<unsigned>(list.size());
  if (n == 0) return NVML_ERROR_NOT_FOUND;
  if (samples == nullptr || *count < n) {
    *count = n;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  std::copy(list.begin(), list.end(), samples);
  *count = n;
  return NVML_SUCCESS;
}

// A GPU offers GPM when its scenario lists any gpm_* key (in any step).
bool HasGpm(const ScenarioGpu& gpu) {
  auto any = [](const ScenarioSampling& s) {
    for (const auto* r :
         {&s.gpm_sm_active_pct, &s.gpm_sm_occupancy_pct, &s.gpm_tensor_active_pct,
          &s.gpm_dram_bw_util_pct, &s.gpm_pcie_tx_bytes_per_s, &s.gpm_pcie_rx_bytes_per_s,
          &s.gpm_nvlink_tx_bytes_per_s, &s.gpm_nvlink_rx_bytes_per_s}) {
      if (r->state != Reading<double>::State::kAbsent) return true;
    }
    return false;
  };
  if (any(gpu.sampling)) return true;
  for (const ScenarioGpuStep& step : gpu.steps) {
    if (any(step.sampling)) return true;
  }
  return false;
}

int Body_nvmlGpmQueryDeviceSupport(const Ctx& c, nvmlDevice_t, nvmlGpmSupport_t* support) {
  if (support == nullptr || support->version != NVML_GPM_SUPPORT_VERSION) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  support->isSupportedDevice = HasGpm(*c.gpu) ? 1 : 0;
  return NVML_SUCCESS;
}

int Body_nvmlGpmSampleAlloc(const Ctx&, nvmlGpmSample_t* sample) {
  if (sample == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  auto* s = new FakeGpmSample();
  FakeState& state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  state.gpm_samples.insert(s);
  *sample = reinterpret_cast<nvmlGpmSample_t>(s);
  return NVML_SUCCESS;
}

// The live sample behind a handle, or null.
FakeGpmSample* LiveGpmSample(nvmlGpmSample_t sample) {
  auto* s = reinterpret_cast<FakeGpmSample*>(sample);
  FakeState& state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  return state.gpm_samples.count(s) ? s : nullptr;
}

int Body_nvmlGpmSampleFree(const Ctx&, nvmlGpmSample_t sample) {
  auto* s = reinterpret_cast<FakeGpmSample*>(sample);
  FakeState& state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  if (state.gpm_samples.erase(s) == 0) return NVML_ERROR_INVALID_ARGUMENT;
  delete s;
  return NVML_SUCCESS;
}

int Body_nvmlGpmSampleGet(const Ctx& c, nvmlDevice_t, nvmlGpmSample_t sample) {
  FakeGpmSample* s = LiveGpmSample(sample);
  if (s == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!HasGpm(*c.gpu)) return NVML_ERROR_NOT_SUPPORTED;
  s->gpu = c.gpu;
  s->sampling = c.sampling;
  return NVML_SUCCESS;
}

// Answers each metric from the step of the second sample (NVML averages between the two; the
// scenario gives that average directly). PCIe and NVLink are answered in MiB/s, as NVML does.
int Body_nvmlGpmMetricsGet(const Ctx& c, nvmlGpmMetricsGet_t* m) {
  if (m == nullptr || m->version != NVML_GPM_METRICS_GET_VERSION ||
      m->numMetrics > NVML_GPM_METRIC_MAX) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  const FakeGpmSample* a = LiveGpmSample(m->sample1);
  const FakeGpmSample* b = LiveGpmSample(m->sample2);
  if (a == nullptr || b == nullptr || a->gpu == nullptr || b->gpu != a->gpu) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  const GpuState* state = &b->gpu->state;
  for (const ScenarioGpuStep& step : b->gpu->steps) {
    if (&step.sampling == b->sampling) state = &step.state;
  }
  if (int code = ApplyOverrides(*c.loaded, b->gpu, state, "nvmlGpmMetricsGet"); code != kContinue) {
    return code;
  }
  constexpr double kMiB = 1024.0 * 1024.0;
  const ScenarioSampling& s = *b->sampling;
  for (unsigned i = 0; i < m->numMetrics; ++i) {
    nvmlGpmMetric_t& metric = m->metrics[i];
    const Reading<double>* r = nullptr;
    double scale = 1.0;
    switch (metric.metricId) {
      case NVML_GPM_METRIC_SM_UTIL:
        r = &s.gpm_sm_active_pct;
        break;
      case NVML_GPM_METRIC_SM_OCCUPANCY:
        r = &s.gpm_sm_occupancy_pct;
        break;
      case NVML_GPM_METRIC_ANY_TENSOR_UTIL:
        r = &s.gpm_tensor_active_pct;
        break;
      case NVML_GPM_METRIC_DRAM_BW_UTIL:
        r = &s.gpm_dram_bw_util_pct;
        break;
      case NVML_GPM_METRIC_PCIE_TX_PER_SEC:
        r = &s.gpm_pcie_tx_bytes_per_s;
        scale = kMiB;
        break;
      case NVML_GPM_METRIC_PCIE_RX_PER_SEC:
        r = &s.gpm_pcie_rx_bytes_per_s;
        scale = kMiB;
        break;
      case NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC:
        r = &s.gpm_nvlink_tx_bytes_per_s;
        scale = kMiB;
        break;
      case NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC:
        r = &s.gpm_nvlink_rx_bytes_per_s;
        scale = kMiB;
        break;
      default:
        break;
    }
    metric.nvmlReturn = r == nullptr ? NVML_ERROR_NOT_SUPPORTED : ScenarioAnswerCode(*r);
    metric.value = r != nullptr && r->has() ? r->value / scale : 0.0;
  }
  return NVML_SUCCESS;
}

}  // namespace

// The exported C functions: prologue, then the body above.
extern "C" __attribute__((visibility("default"))) unsigned long long gpuvetFakeNvmlCallCount() {
  CallCounts& c = Counts();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.total;
}

#define FAKE_NVML_EXPORT(fn, params, args, required)                                    \
  extern "C" __attribute__((visibility("default"))) nvmlReturn_t fn params {            \
    Ctx ctx;                                                                            \
    if (int code = Prologue(#fn, DeviceArg args, &ctx); code != kContinue) return code; \
    return Bind(ctx, Body_##fn) args;                                                   \
  }
NVML_API_FUNCTIONS(FAKE_NVML_EXPORT)
#undef FAKE_NVML_EXPORT
