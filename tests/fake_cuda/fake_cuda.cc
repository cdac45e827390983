// A fake libcuda.so.1 driven by a scenario JSON (docs/cuda-scenario.md), so `gpuvet bench` is
// tested end to end through dlopen without a GPU. Allocations are real host memory and copies and
// the gpuvet kernels really move data (results can be verified); time is virtual (see
// fake_cuda_world.h). Every export is generated from CUDA_API_FUNCTIONS: a shared prologue
// (initialised? injected error?) then a hand-written body below. As a C library it keeps global
// state: one leaked object under one mutex; worlds of earlier scenarios are never freed.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include "cuda_scenario.h"
#include "fake_cuda_world.h"
#include "sources/cuda/cuda_api.h"
#include "sources/cuda/cuda_loader.h"
#include "sources/cuda/ptx_kernels.h"
#include "util/file.h"

namespace {

using gpuvet::fake_cuda::Allocation;
using gpuvet::fake_cuda::DeviceState;
using gpuvet::fake_cuda::Timing;
using gpuvet::fake_cuda::TransferMicros;
using gpuvet::fake_cuda::World;

constexpr char kScenarioEnv[] = "GPUVET_FAKE_CUDA_SCENARIO";
// cuda.h: CU_STREAM_LEGACY and CU_STREAM_PER_THREAD, special handles for the default streams.
constexpr uintptr_t kStreamLegacy = 0x1;
constexpr uintptr_t kStreamPerThread = 0x2;
// Alignment cuMemAlloc guarantees (CUDA C Programming Guide: "at least 256 bytes").
constexpr size_t kDeviceAlignment = 256;
constexpr size_t kHostAlignment = 4096;
// cuLaunchKernel limits (CUDA C Programming Guide, compute capability table).
constexpr unsigned kMaxBlockThreads = 1024;
constexpr unsigned kMaxGridX = 0x7fffffff;
constexpr unsigned kMaxGridYZ = 65535;
// CUevent flags the fake accepts: BLOCKING_SYNC | DISABLE_TIMING | INTERPROCESS (0x4).
constexpr unsigned kEventFlags = 0x7;
// Marks "prologue found nothing to answer, run the body".
constexpr CUresult kContinue = -1;

struct Fake {
  std::mutex mu;
  std::vector<std::unique_ptr<World>> worlds;  // every scenario ever loaded (see file comment)
  World* current = nullptr;
};

Fake& TheFake() {
  static Fake* fake = new Fake();  // leaked: threads may call in during static destruction
  return *fake;
}

// The calling thread's current context (cuCtxSetCurrent), as the real driver keeps it per thread.
thread_local CUcontext t_current = nullptr;

// What a body gets: the world (null only for the functions that work before cuInit).
struct Call {
  World* w = nullptr;
};

// Reads the scenario named by the environment and makes it current unless it is the same text
// as the current one (cuInit is idempotent). CUDA_ERROR_NO_DEVICE without a scenario.
CUresult EnsureWorld(Fake& fake) {
  const char* path = std::getenv(kScenarioEnv);
  if (path == nullptr || path[0] == '\0') {
    std::fprintf(stderr, "fake libcuda: %s is not set\n", kScenarioEnv);
    return CUDA_ERROR_NO_DEVICE;
  }
  gpuvet::Result<std::string> text = gpuvet::ReadFile(path);
  if (!text.ok()) {
    std::fprintf(stderr, "fake libcuda: %s\n", text.status().message().c_str());
    return CUDA_ERROR_UNKNOWN;
  }
  if (fake.current != nullptr && fake.current->scenario_text == *text) return CUDA_SUCCESS;
  gpuvet::Result<gpuvet::fake_cuda::Scenario> parsed =
      gpuvet::fake_cuda::ParseScenario(*text, path);
  if (!parsed.ok()) {
    std::fprintf(stderr, "fake libcuda: %s\n", parsed.status().message().c_str());
    return CUDA_ERROR_UNKNOWN;
  }
  fake.worlds.push_back(gpuvet::fake_cuda::MakeWorld(std::move(parsed).value(), *text));
  fake.current = fake.worlds.back().get();
  return CUDA_SUCCESS;
}

bool WorksBeforeInit(std::string_view name) {
  return name == "cuInit" || name == "cuDriverGetVersion" || name == "cuGetErrorName" ||
         name == "cuGetErrorString";
}

// A wedged GPU: the call never returns, holding the driver lock as a real hung call does.
void HangIfListed(const World& w, std::string_view name) {
  if (w.scenario.hangs.contains(std::string(name))) {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

CUresult Prologue(Fake& fake, const char* name, Call* call) {
  if (WorksBeforeInit(name)) {
    // cuInit and cuDriverGetVersion load the scenario themselves and check for a hang after.
    if (fake.current != nullptr && std::string_view(name).starts_with("cuGetError")) {
      HangIfListed(*fake.current, name);
    }
    return kContinue;
  }
  if (fake.current == nullptr || !fake.current->initialised) return CUDA_ERROR_NOT_INITIALIZED;
  call->w = fake.current;
  HangIfListed(*call->w, name);
  // cuModuleLoadDataEx applies its own injected error, to fill the JIT log too.
  if (std::string_view(name) == "cuModuleLoadDataEx") return kContinue;
  const auto& errors = call->w->scenario.errors;
  if (auto it = errors.find(name); it != errors.end()) return it->second;
  return kContinue;
}

// ---- lookups ----

DeviceState* DeviceOf(World& w, CUdevice device) {
  if (device < 0 || static_cast<size_t>(device) >= w.devices.size()) return nullptr;
  return w.devices[device].get();
}

DeviceState* ContextDevice(World& w, CUcontext ctx) {
  for (auto& d : w.devices) {
    if (&d->ctx == ctx) return d.get();
  }
  return nullptr;
}

DeviceState* CurrentDevice(World& w) { return ContextDevice(w, t_current); }

// The stream a handle names (null and the special handles: the current device's default stream).
CUresult StreamOf(World& w, CUstream handle, CUstream_st** out) {
  const auto raw = reinterpret_cast<uintptr_t>(handle);
  if (raw == 0 || raw == kStreamLegacy || raw == kStreamPerThread) {
    DeviceState* d = CurrentDevice(w);
    if (d == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
    *out = &d->null_stream;
    return CUDA_SUCCESS;
  }
  auto it = w.streams.find(handle);
  if (it == w.streams.end()) return CUDA_ERROR_INVALID_HANDLE;
  *out = it->second.get();
  return CUDA_SUCCESS;
}

CUevent_st* EventOf(World& w, CUevent handle) {
  auto it = w.events.find(handle);
  return it == w.events.end() ? nullptr : it->second.get();
}

const Timing& TimingOf(const World& w, int device) { return w.devices[device]->spec->timing; }

uintptr_t Address(CUdeviceptr p) { return static_cast<uintptr_t>(p); }

// ---- copies ----

// A host <-> device copy: pinned when the host range lies in cuMemHostAlloc memory.
double HostCopyMicros(const World& w, int device, const void* host, size_t bytes, bool to_device) {
  const Timing& t = TimingOf(w, device);
  const bool pinned = gpuvet::fake_cuda::FindAllocation(w, reinterpret_cast<uintptr_t>(host), bytes,
                                                        true) != nullptr;
  double gbps = to_device ? (pinned ? t.h2d_pinned_gbps : t.h2d_pageable_gbps)
                          : (pinned ? t.d2h_pinned_gbps : t.d2h_pageable_gbps);
  if (gpuvet::fake_cuda::CallerIsRemote(*w.devices[device]->spec)) gbps *= t.remote_numa_factor;
  return t.copy_latency_us + TransferMicros(static_cast<double>(bytes), gbps);
}

// Device to device: on one device at the memory bandwidth (read + write counted); between two,
// over the P2P route when the scenario lists it and peer access is enabled, else staged through
// host memory (a device-to-host then a host-to-device pinned copy).
double DeviceCopyMicros(const World& w, int src, int dst, size_t bytes) {
  const double b = static_cast<double>(bytes);
  if (src == dst) {
    const Timing& t = TimingOf(w, src);
    return t.copy_latency_us + TransferMicros(2 * b, t.d2d_gbps);
  }
  const gpuvet::fake_cuda::Peer* peer = gpuvet::fake_cuda::FindPeer(w.scenario, src, dst);
  const bool enabled =
      w.devices[src]->peers_enabled.contains(dst) || w.devices[dst]->peers_enabled.contains(src);
  if (peer != nullptr && enabled) return peer->latency_us + TransferMicros(b, peer->gbps);
  const Timing& s = TimingOf(w, src);
  const Timing& d = TimingOf(w, dst);
  return s.copy_latency_us + TransferMicros(b, s.d2h_pinned_gbps) + d.copy_latency_us +
         TransferMicros(b, d.h2d_pinned_gbps);
}

CUresult HtoD(World& w, CUdeviceptr dst, const void* src, size_t bytes, CUstream stream,
              bool sync) {
  CUstream_st* s = nullptr;
  if (CUresult rc = StreamOf(w, stream, &s); rc != CUDA_SUCCESS) return rc;
  const Allocation* a = gpuvet::fake_cuda::FindAllocation(w, Address(dst), bytes, false);
  if (a == nullptr || src == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::memmove(reinterpret_cast<void*>(Address(dst)), src, bytes);
  const double end = Enqueue(w, *s, HostCopyMicros(w, a->device, src, bytes, true));
  if (sync) w.devices[s->device]->host_now_us = std::max(w.devices[s->device]->host_now_us, end);
  return CUDA_SUCCESS;
}

CUresult DtoH(World& w, void* dst, CUdeviceptr src, size_t bytes, CUstream stream, bool sync) {
  CUstream_st* s = nullptr;
  if (CUresult rc = StreamOf(w, stream, &s); rc != CUDA_SUCCESS) return rc;
  const Allocation* a = gpuvet::fake_cuda::FindAllocation(w, Address(src), bytes, false);
  if (a == nullptr || dst == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::memmove(dst, reinterpret_cast<const void*>(Address(src)), bytes);
  const double end = Enqueue(w, *s, HostCopyMicros(w, a->device, dst, bytes, false));
  if (sync) w.devices[s->device]->host_now_us = std::max(w.devices[s->device]->host_now_us, end);
  return CUDA_SUCCESS;
}

CUresult DtoD(World& w, CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  CUstream_st* s = nullptr;
  if (CUresult rc = StreamOf(w, stream, &s); rc != CUDA_SUCCESS) return rc;
  const Allocation* from = gpuvet::fake_cuda::FindAllocation(w, Address(src), bytes, false);
  const Allocation* to = gpuvet::fake_cuda::FindAllocation(w, Address(dst), bytes, false);
  if (from == nullptr || to == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::memmove(reinterpret_cast<void*>(Address(dst)), reinterpret_cast<const void*>(Address(src)),
               bytes);
  if (w.scenario.corrupt_device_copies && from->device == to->device && bytes > 17) {
    reinterpret_cast<unsigned char*>(Address(dst))[17] ^= 1;
  }
  Enqueue(w, *s, DeviceCopyMicros(w, from->device, to->device, bytes));
  return CUDA_SUCCESS;
}

// ---- JIT ----

// Writes `text` into a log buffer given by the JIT options, truncated, and the length back.
void WriteLog(const std::string& text, int buffer_option, int size_option, unsigned n,
              const int* options, void** values) {
  char* buffer = nullptr;
  int size_index = -1;
  for (unsigned i = 0; i < n; ++i) {
    if (options[i] == buffer_option) buffer = static_cast<char*>(values[i]);
    if (options[i] == size_option) size_index = static_cast<int>(i);
  }
  if (buffer == nullptr || size_index < 0) return;
  const size_t size = reinterpret_cast<uintptr_t>(values[size_index]);
  if (size == 0) return;
  const size_t used = std::min(text.size(), size - 1);
  std::memcpy(buffer, text.data(), used);
  buffer[used] = '\0';
  values[size_index] = reinterpret_cast<void*>(static_cast<uintptr_t>(used + 1));
}

// The names declared by `.entry NAME` in PTX text.
std::set<std::string> EntryNames(std::string_view ptx) {
  std::set<std::string> names;
  constexpr std::string_view kEntry = ".entry";
  for (size_t pos = ptx.find(kEntry); pos != std::string_view::npos;
       pos = ptx.find(kEntry, pos + kEntry.size())) {
    size_t i = pos + kEntry.size();
    while (i < ptx.size() && (ptx[i] == ' ' || ptx[i] == '\t' || ptx[i] == '\n')) ++i;
    size_t j = i;
    while (j < ptx.size() &&
           (std::isalnum(static_cast<unsigned char>(ptx[j])) || ptx[j] == '_' || ptx[j] == '$')) {
      ++j;
    }
    if (j > i) names.emplace(ptx.substr(i, j - i));
  }
  return names;
}

// ---- kernels ----

template <typename T>
T Param(void** params, int i) {
  T value;
  std::memcpy(&value, params[i], sizeof(T));
  return value;
}

// Runs a gpuvet kernel on the CPU and returns its modelled work time (before the launch floor).
CUresult RunKernel(World& w, const std::string& name, const Timing& t, unsigned __int128 threads,
                   void** params, double* work_us) {
  *work_us = 0;
  if (name == gpuvet::kPtxCopyKernel) {
    if (params == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const auto dst = Param<CUdeviceptr>(params, 0), src = Param<CUdeviceptr>(params, 1);
    const auto n = Param<uint64_t>(params, 2);
    if (n > (UINT64_MAX >> 6)) return CUDA_ERROR_ILLEGAL_ADDRESS;
    const uint64_t bytes = n * gpuvet::kPtxVectorBytes;
    if (!gpuvet::fake_cuda::FindAllocation(w, Address(dst), bytes, false) ||
        !gpuvet::fake_cuda::FindAllocation(w, Address(src), bytes, false)) {
      return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    std::memmove(reinterpret_cast<void*>(Address(dst)), reinterpret_cast<const void*>(Address(src)),
                 bytes);
    *work_us = TransferMicros(2.0 * static_cast<double>(bytes), t.d2d_gbps);
  } else if (name == gpuvet::kPtxTriadKernel) {
    if (params == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const auto a = Param<CUdeviceptr>(params, 0), b = Param<CUdeviceptr>(params, 1),
               c = Param<CUdeviceptr>(params, 2);
    const auto s = Param<float>(params, 3);
    const auto n = Param<uint64_t>(params, 4);
    if (n > (UINT64_MAX >> 6)) return CUDA_ERROR_ILLEGAL_ADDRESS;
    const uint64_t bytes = n * gpuvet::kPtxVectorBytes;
    for (CUdeviceptr p : {a, b, c}) {
      if (!gpuvet::fake_cuda::FindAllocation(w, Address(p), bytes, false)) {
        return CUDA_ERROR_ILLEGAL_ADDRESS;
      }
    }
    auto* fa = reinterpret_cast<float*>(Address(a));
    const auto* fb = reinterpret_cast<const float*>(Address(b));
    const auto* fc = reinterpret_cast<const float*>(Address(c));
    for (uint64_t i = 0; i < bytes / sizeof(float); ++i) fa[i] = fb[i] + s * fc[i];
    *work_us = TransferMicros(3.0 * static_cast<double>(bytes), t.d2d_gbps);
  } else if (name == gpuvet::kPtxFmaKernel) {
    if (params == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const auto out = Param<CUdeviceptr>(params, 0);
    const auto iterations = Param<uint32_t>(params, 1);
    // One float per thread; the values themselves are not computed (see docs/cuda-scenario.md).
    if (threads > (UINT64_MAX >> 3) ||
        !gpuvet::fake_cuda::FindAllocation(w, Address(out), static_cast<uint64_t>(threads) * 4,
                                           false)) {
      return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    const double flops = 2.0 * gpuvet::kFmaPerIteration * iterations * static_cast<double>(threads);
    *work_us = flops / (t.fp32_tflops * 1e6);  // 1 TFLOP/s = 1e6 FLOP/us
  } else if (name == gpuvet::kPtxSpinKernel) {
    if (params == nullptr) return CUDA_ERROR_INVALID_VALUE;
    // The flag is not waited for: queued work runs at once, and start gating changes no time.
    if (Param<CUdeviceptr>(params, 0) == 0) return CUDA_ERROR_ILLEGAL_ADDRESS;
  }
  return CUDA_SUCCESS;
}

// ---- bodies, one per CUDA_API_FUNCTIONS entry ----

// Codes of the built-in table; the driver answers CUDA_ERROR_INVALID_VALUE for others.
bool KnownError(CUresult error) {
  return gpuvet::CudaErrorFromName(gpuvet::CudaErrorName(error)).has_value();
}

CUresult Body_cuInit(Call&, unsigned flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  Fake& fake = TheFake();
  if (CUresult rc = EnsureWorld(fake); rc != CUDA_SUCCESS) return rc;
  World& w = *fake.current;
  HangIfListed(w, "cuInit");
  if (auto it = w.scenario.errors.find("cuInit"); it != w.scenario.errors.end()) return it->second;
  CUresult rc = w.scenario.init;
  if (rc == CUDA_SUCCESS && w.devices.empty()) rc = CUDA_ERROR_NO_DEVICE;
  w.initialised = rc == CUDA_SUCCESS;
  return rc;
}

CUresult Body_cuDriverGetVersion(Call&, int* version) {
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Fake& fake = TheFake();
  if (CUresult rc = EnsureWorld(fake); rc != CUDA_SUCCESS) return rc;
  HangIfListed(*fake.current, "cuDriverGetVersion");
  *version = fake.current->scenario.driver_version;
  return CUDA_SUCCESS;
}

CUresult Body_cuGetErrorName(Call&, CUresult error, const char** name) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!KnownError(error)) {
    *name = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *name = gpuvet::CudaErrorName(error).data();  // a NUL-terminated literal
  return CUDA_SUCCESS;
}

CUresult Body_cuGetErrorString(Call&, CUresult error, const char** text) {
  if (text == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!KnownError(error)) {
    *text = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *text = gpuvet::CudaErrorDescription(error).data();
  return CUDA_SUCCESS;
}

CUresult Body_cuDeviceGetCount(Call& c, int* count) {
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *count = static_cast<int>(c.w->devices.size());
  return CUDA_SUCCESS;
}

CUresult Body_cuDeviceGet(Call& c, CUdevice* device, int ordinal) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (DeviceOf(*c.w, ordinal) == nullptr) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

// Copies `text` into `out`, truncated to `length` bytes with the NUL, as the driver does.
CUresult CopyOut(const std::string& text, char* out, int length) {
  if (out == nullptr || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  const size_t used = std::min(text.size(), static_cast<size_t>(length) - 1);
  std::memcpy(out, text.data(), used);
  out[used] = '\0';
  return CUDA_SUCCESS;
}

CUresult Body_cuDeviceGetName(Call& c, char* name, int length, CUdevice device) {
  DeviceState* d = DeviceOf(*c.w, device);
  if (d == nullptr) return CUDA_ERROR_INVALID_DEVICE;
  return CopyOut(d->spec->name, name, length);
}

CUresult Body_cuDeviceGetAttribute(Call& c, int* value, int attribute, CUdevice device) {
  DeviceState* d = DeviceOf(*c.w, device);
  if (d == nullptr) return CUDA_ERROR_INVALID_DEVICE;
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const gpuvet::fake_cuda::Device& s = *d->spec;
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = static_cast<int>(kMaxBlockThreads);
      break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
      *value = s.sm_clock_mhz * 1000;
      break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *value = s.sm_count;
      break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
      *value = 1;
      break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
      *value = s.pci_bus;
      break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
      *value = s.pci_device;
      break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
      *value = s.pci_domain;
      break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
      *value = s.mem_clock_mhz * 1000;
      break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
      *value = s.memory_bus_bits;
      break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
      *value = static_cast<int>(std::min<uint64_t>(s.l2_bytes, INT32_MAX));
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
      *value = s.max_threads_per_sm;
      break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT:
      *value = s.copy_engines;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *value = s.cc_major;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *value = s.cc_minor;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult Body_cuDeviceTotalMem_v2(Call& c, size_t* bytes, CUdevice device) {
  DeviceState* d = DeviceOf(*c.w, device);
  if (d == nullptr) return CUDA_ERROR_INVALID_DEVICE;
  if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *bytes = d->spec->memory_bytes;
  return CUDA_SUCCESS;
}

// Upper-case hex, as the driver writes it ("0000:3B:00.0"), unlike sysfs.
CUresult Body_cuDeviceGetPCIBusId(Call& c, char* bus_id, int length, CUdevice device) {
  DeviceState* d = DeviceOf(*c.w, device);
  if (d == nullptr) return CUDA_ERROR_INVALID_DEVICE;
  char text[32];
  std::snprintf(text, sizeof(text), "%04X:%02X:%02X.0", d->spec->pci_domain, d->spec->pci_bus,
                d->spec->pci_device);
  return CopyOut(text, bus_id, length);
}

CUresult Body_cuDeviceCanAccessPeer(Call& c, int* can, CUdevice device, CUdevice peer) {
  if (DeviceOf(*c.w, device) == nullptr || DeviceOf(*c.w, peer) == nullptr) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  if (can == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *can = gpuvet::fake_cuda::FindPeer(c.w->scenario, device, peer) != nullptr ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult Body_cuDevicePrimaryCtxRetain(Call& c, CUcontext* ctx, CUdevice device) {
  DeviceState* d = DeviceOf(*c.w, device);
  if (d == nullptr) return CUDA_ERROR_INVALID_DEVICE;
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  ++d->retained;
  *ctx = &d->ctx;
  return CUDA_SUCCESS;
}

// The context and what it holds outlive the last release (the real driver would destroy them).
CUresult Body_cuDevicePrimaryCtxRelease_v2(Call& c, CUdevice device) {
  DeviceState* d = DeviceOf(*c.w, device);
  if (d == nullptr) return CUDA_ERROR_INVALID_DEVICE;
  if (d->retained == 0) return CUDA_ERROR_INVALID_CONTEXT;
  --d->retained;
  return CUDA_SUCCESS;
}

CUresult Body_cuCtxSetCurrent(Call& c, CUcontext ctx) {
  if (ctx != nullptr && ContextDevice(*c.w, ctx) == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  t_current = ctx;
  return CUDA_SUCCESS;
}

CUresult Body_cuCtxSynchronize(Call& c) {
  DeviceState* d = CurrentDevice(*c.w);
  if (d == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  d->host_now_us = std::max(d->host_now_us, d->null_stream.clock_us);
  for (const auto& [handle, s] : c.w->streams) {
    if (s->device == d->ctx.device) d->host_now_us = std::max(d->host_now_us, s->clock_us);
  }
  return CUDA_SUCCESS;
}

CUresult Body_cuCtxEnablePeerAccess(Call& c, CUcontext peer, unsigned flags) {
  DeviceState* d = CurrentDevice(*c.w);
  if (d == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  DeviceState* p = ContextDevice(*c.w, peer);
  if (p == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (p == d) return CUDA_ERROR_INVALID_DEVICE;
  if (gpuvet::fake_cuda::FindPeer(c.w->scenario, d->ctx.device, p->ctx.device) == nullptr) {
    return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
  }
  if (!d->peers_enabled.insert(p->ctx.device).second) return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  return CUDA_SUCCESS;
}

CUresult Body_cuMemAlloc_v2(Call& c, CUdeviceptr* ptr, size_t bytes) {
  DeviceState* d = CurrentDevice(*c.w);
  if (d == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (ptr == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (bytes > d->spec->memory_bytes - std::min(d->allocated_bytes, d->spec->memory_bytes)) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  const size_t rounded = (bytes + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
  void* memory = std::aligned_alloc(kDeviceAlignment, rounded);
  if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  c.w->allocations[reinterpret_cast<uintptr_t>(memory)] = Allocation{bytes, d->ctx.device, 0};
  d->allocated_bytes += bytes;
  *ptr = reinterpret_cast<uintptr_t>(memory);
  return CUDA_SUCCESS;
}

CUresult Body_cuMemFree_v2(Call& c, CUdeviceptr ptr) {
  if (ptr == 0) return CUDA_SUCCESS;
  auto it = c.w->allocations.find(Address(ptr));
  if (it == c.w->allocations.end() || it->second.device < 0) return CUDA_ERROR_INVALID_VALUE;
  c.w->devices[it->second.device]->allocated_bytes -= it->second.bytes;
  std::free(reinterpret_cast<void*>(it->first));
  c.w->allocations.erase(it);
  return CUDA_SUCCESS;
}

CUresult Body_cuMemGetInfo_v2(Call& c, size_t* free_bytes, size_t* total_bytes) {
  DeviceState* d = CurrentDevice(*c.w);
  if (d == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (free_bytes == nullptr || total_bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *total_bytes = d->spec->memory_bytes;
  *free_bytes = d->spec->memory_bytes - std::min(d->allocated_bytes, d->spec->memory_bytes);
  return CUDA_SUCCESS;
}

CUresult Body_cuMemHostAlloc(Call& c, void** ptr, size_t bytes, unsigned flags) {
  if (CurrentDevice(*c.w) == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  constexpr unsigned kKnown =
      CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
  if (ptr == nullptr || bytes == 0 || (flags & ~kKnown) != 0) return CUDA_ERROR_INVALID_VALUE;
  const size_t rounded = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
  void* memory = std::aligned_alloc(kHostAlignment, rounded);
  if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  c.w->allocations[reinterpret_cast<uintptr_t>(memory)] = Allocation{bytes, -1, flags};
  *ptr = memory;
  return CUDA_SUCCESS;
}

CUresult Body_cuMemFreeHost(Call& c, void* ptr) {
  auto it = c.w->allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == c.w->allocations.end() || it->second.device >= 0) return CUDA_ERROR_INVALID_VALUE;
  std::free(ptr);
  c.w->allocations.erase(it);
  return CUDA_SUCCESS;
}

// Host memory is addressed by the "GPU" at the same address (unified addressing).
CUresult Body_cuMemHostGetDevicePointer_v2(Call& c, CUdeviceptr* device_ptr, void* host_ptr,
                                           unsigned flags) {
  if (device_ptr == nullptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (!gpuvet::fake_cuda::FindAllocation(*c.w, reinterpret_cast<uintptr_t>(host_ptr), 1, true)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *device_ptr = reinterpret_cast<uintptr_t>(host_ptr);
  return CUDA_SUCCESS;
}

CUresult Body_cuMemcpyHtoD_v2(Call& c, CUdeviceptr dst, const void* src, size_t bytes) {
  return HtoD(*c.w, dst, src, bytes, nullptr, true);
}

CUresult Body_cuMemcpyDtoH_v2(Call& c, void* dst, CUdeviceptr src, size_t bytes) {
  return DtoH(*c.w, dst, src, bytes, nullptr, true);
}

CUresult Body_cuMemcpyHtoDAsync_v2(Call& c, CUdeviceptr dst, const void* src, size_t bytes,
                                   CUstream stream) {
  return HtoD(*c.w, dst, src, bytes, stream, false);
}

CUresult Body_cuMemcpyDtoHAsync_v2(Call& c, void* dst, CUdeviceptr src, size_t bytes,
                                   CUstream stream) {
  return DtoH(*c.w, dst, src, bytes, stream, false);
}

CUresult Body_cuMemcpyDtoDAsync_v2(Call& c, CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                   CUstream stream) {
  return DtoD(*c.w, dst, src, bytes, stream);
}

CUresult Body_cuMemcpyPeerAsync(Call& c, CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src,
                                CUcontext src_ctx, size_t bytes, CUstream stream) {
  DeviceState* to = ContextDevice(*c.w, dst_ctx);
  DeviceState* from = ContextDevice(*c.w, src_ctx);
  if (to == nullptr || from == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  const Allocation* a = gpuvet::fake_cuda::FindAllocation(*c.w, Address(dst), bytes, false);
  const Allocation* b = gpuvet::fake_cuda::FindAllocation(*c.w, Address(src), bytes, false);
  if (a == nullptr || b == nullptr || a->device != to->ctx.device ||
      b->device != from->ctx.device) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return DtoD(*c.w, dst, src, bytes, stream);
}

CUresult Body_cuMemsetD8Async(Call& c, CUdeviceptr dst, unsigned char value, size_t count,
                              CUstream stream) {
  CUstream_st* s = nullptr;
  if (CUresult rc = StreamOf(*c.w, stream, &s); rc != CUDA_SUCCESS) return rc;
  const Allocation* a = gpuvet::fake_cuda::FindAllocation(*c.w, Address(dst), count, false);
  if (a == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::memset(reinterpret_cast<void*>(Address(dst)), value, count);
  const Timing& t = TimingOf(*c.w, a->device);
  Enqueue(*c.w, *s, t.copy_latency_us + TransferMicros(static_cast<double>(count), t.d2d_gbps));
  return CUDA_SUCCESS;
}

CUresult Body_cuStreamCreate(Call& c, CUstream* stream, unsigned flags) {
  DeviceState* d = CurrentDevice(*c.w);
  if (d == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (stream == nullptr || (flags & ~CU_STREAM_NON_BLOCKING) != 0) return CUDA_ERROR_INVALID_VALUE;
  auto s = std::make_unique<CUstream_st>();
  s->device = d->ctx.device;
  s->blocking = (flags & CU_STREAM_NON_BLOCKING) == 0;
  s->clock_us = d->host_now_us;
  *stream = s.get();
  c.w->streams[s.get()] = std::move(s);
  return CUDA_SUCCESS;
}

CUresult Body_cuStreamDestroy_v2(Call& c, CUstream stream) {
  return c.w->streams.erase(stream) == 1 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult Body_cuStreamSynchronize(Call& c, CUstream stream) {
  CUstream_st* s = nullptr;
  if (CUresult rc = StreamOf(*c.w, stream, &s); rc != CUDA_SUCCESS) return rc;
  DeviceState& d = *c.w->devices[s->device];
  d.host_now_us = std::max(d.host_now_us, s->clock_us);
  return CUDA_SUCCESS;
}

// Work runs when queued, so every stream is always complete.
CUresult Body_cuStreamQuery(Call& c, CUstream stream) {
  CUstream_st* s = nullptr;
  return StreamOf(*c.w, stream, &s);
}

CUresult Body_cuEventCreate(Call& c, CUevent* event, unsigned flags) {
  if (CurrentDevice(*c.w) == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (event == nullptr || (flags & ~kEventFlags) != 0) return CUDA_ERROR_INVALID_VALUE;
  auto e = std::make_unique<CUevent_st>();
  e->timing = (flags & CU_EVENT_DISABLE_TIMING) == 0;
  *event = e.get();
  c.w->events[e.get()] = std::move(e);
  return CUDA_SUCCESS;
}

CUresult Body_cuEventDestroy_v2(Call& c, CUevent event) {
  return c.w->events.erase(event) == 1 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult Body_cuEventRecord(Call& c, CUevent event, CUstream stream) {
  CUevent_st* e = EventOf(*c.w, event);
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  CUstream_st* s = nullptr;
  if (CUresult rc = StreamOf(*c.w, stream, &s); rc != CUDA_SUCCESS) return rc;
  e->device = s->device;
  e->recorded = true;
  e->time_us = Enqueue(*c.w, *s, 0);
  return CUDA_SUCCESS;
}

CUresult Body_cuEventSynchronize(Call& c, CUevent event) {
  CUevent_st* e = EventOf(*c.w, event);
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (e->recorded) {
    DeviceState& d = *c.w->devices[e->device];
    d.host_now_us = std::max(d.host_now_us, e->time_us);
  }
  return CUDA_SUCCESS;
}

CUresult Body_cuEventElapsedTime(Call& c, float* ms, CUevent start, CUevent end) {
  CUevent_st* a = EventOf(*c.w, start);
  CUevent_st* b = EventOf(*c.w, end);
  if (ms == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (a == nullptr || b == nullptr || !a->recorded || !b->recorded || !a->timing || !b->timing ||
      a->device != b->device) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  *ms = static_cast<float>((b->time_us - a->time_us) / 1000.0);
  return CUDA_SUCCESS;
}

CUresult Body_cuModuleLoadDataEx(Call& c, CUmodule* module, const void* image, unsigned n,
                                 int* options, void** values) {
  if (CurrentDevice(*c.w) == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (module == nullptr || image == nullptr ||
      (n > 0 && (options == nullptr || values == nullptr))) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const gpuvet::fake_cuda::Scenario& sc = c.w->scenario;
  auto fail = [&](CUresult rc, const std::string& log) {
    WriteLog(log, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, n, options, values);
    return rc;
  };
  if (auto it = sc.errors.find("cuModuleLoadDataEx"); it != sc.errors.end()) {
    return fail(it->second, sc.jit_error_log);
  }
  std::set<std::string> entries = EntryNames(static_cast<const char*>(image));
  if (entries.empty()) {
    return fail(CUDA_ERROR_INVALID_PTX, sc.jit_error_log.empty()
                                            ? "fake libcuda: the image declares no .entry"
                                            : sc.jit_error_log);
  }
  WriteLog(sc.jit_info_log, CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, n, options,
           values);
  auto m = std::make_unique<CUmod_st>();
  m->entries = std::move(entries);
  *module = m.get();
  c.w->modules[m.get()] = std::move(m);
  return CUDA_SUCCESS;
}

CUresult Body_cuModuleGetFunction(Call& c, CUfunction* function, CUmodule module,
                                  const char* name) {
  auto it = c.w->modules.find(module);
  if (it == c.w->modules.end()) return CUDA_ERROR_INVALID_HANDLE;
  if (function == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUmod_st& m = *it->second;
  if (!m.entries.contains(name)) return CUDA_ERROR_NOT_FOUND;
  std::unique_ptr<CUfunc_st>& f = m.functions[name];
  if (f == nullptr) {
    f = std::make_unique<CUfunc_st>(CUfunc_st{name, &m});
    c.w->functions.insert(f.get());
  }
  *function = f.get();
  return CUDA_SUCCESS;
}

CUresult Body_cuModuleUnload(Call& c, CUmodule module) {
  auto it = c.w->modules.find(module);
  if (it == c.w->modules.end()) return CUDA_ERROR_INVALID_HANDLE;
  for (const auto& [name, f] : it->second->functions) c.w->functions.erase(f.get());
  c.w->modules.erase(it);
  return CUDA_SUCCESS;
}

// Kernel time: the modelled work of a gpuvet kernel. Kernels with no work (gpuvet_empty, …) take
// the launch overhead; kernels with work take their work time alone, as back-to-back kernels on a
// busy stream hide the launch cost on a real GPU (so small test buffers still give the modelled
// bandwidth).
CUresult Body_cuLaunchKernel(Call& c, CUfunction function, unsigned grid_x, unsigned grid_y,
                             unsigned grid_z, unsigned block_x, unsigned block_y, unsigned block_z,
                             unsigned shared_bytes, CUstream stream, void** params, void** extra) {
  if (!c.w->functions.contains(function)) return CUDA_ERROR_INVALID_HANDLE;
  if (extra != nullptr) return CUDA_ERROR_NOT_SUPPORTED;  // the fake decodes `params` only
  const uint64_t block = static_cast<uint64_t>(block_x) * block_y * block_z;
  if (grid_x == 0 || grid_y == 0 || grid_z == 0 || block == 0 || block > kMaxBlockThreads ||
      grid_x > kMaxGridX || grid_y > kMaxGridYZ || grid_z > kMaxGridYZ) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  (void)shared_bytes;
  CUstream_st* s = nullptr;
  if (CUresult rc = StreamOf(*c.w, stream, &s); rc != CUDA_SUCCESS) return rc;
  const unsigned __int128 threads =
      static_cast<unsigned __int128>(static_cast<uint64_t>(grid_x) * grid_y * grid_z) * block;
  const Timing& t = TimingOf(*c.w, s->device);
  double work_us = 0;
  if (CUresult rc = RunKernel(*c.w, function->name, t, threads, params, &work_us);
      rc != CUDA_SUCCESS) {
    return rc;
  }
  Enqueue(*c.w, *s, work_us > 0 ? work_us : t.launch_overhead_us);
  return CUDA_SUCCESS;
}

}  // namespace

// The exported C functions: lock, prologue, then the body above.
#define FAKE_CUDA_EXPORT(fn, params, args, required)                                \
  extern "C" __attribute__((visibility("default"))) CUresult fn params {            \
    Fake& fake = TheFake();                                                         \
    std::lock_guard<std::mutex> lock(fake.mu);                                      \
    Call call;                                                                      \
    if (CUresult code = Prologue(fake, #fn, &call); code != kContinue) return code; \
    return [&call](auto... a) { return Body_##fn(call, a...); } args;               \
  }
CUDA_API_FUNCTIONS(FAKE_CUDA_EXPORT)
#undef FAKE_CUDA_EXPORT
