// ReadNvml and NvmlSession: init, system versions, device enumeration, then one batched device
// read per GPU (nvml_device_reader.cc); a session keeps init, handles and static info. Every call
// goes through NvmlCaller (nvml_caller.h), which bounds it, classifies the answer and records
// failures; a hang abandons the rest without blocking.
#include "sources/nvml/nvml_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "sources/nvml/bounded_call.h"
#include "sources/nvml/nvml_caller.h"
#include "sources/nvml/nvml_device_reader.h"
#include "sources/nvml/nvml_loader.h"
#include "util/strings.h"

namespace gpuvet {

using nvml_internal::kMaxDevices;
using nvml_internal::kSkipped;
using nvml_internal::kTimedOut;
using nvml_internal::NvmlCaller;
using nvml_internal::ToReading;

std::string NormalizePciBusId(std::string_view nvml_bus_id) {
  const std::string_view id = Trim(nvml_bus_id);
  std::vector<std::string_view> parts = Split(id, ':');
  if (parts.size() == 2) parts.insert(parts.begin(), "0");
  if (parts.size() == 3) {
    std::vector<std::string_view> dev_fn = Split(parts[2], '.');
    auto hex = [](std::string_view s) -> std::optional<uint64_t> {
      if (s.empty() || s.size() > 8) return std::nullopt;
      uint64_t v = 0;
      for (char c : s) {
        const int d =
            std::isxdigit(static_cast<unsigned char>(c))
                ? (std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                                                               : (std::tolower(c) - 'a' + 10))
                : -1;
        if (d < 0) return std::nullopt;
        v = v * 16 + static_cast<uint64_t>(d);
      }
      return v;
    };
    if (dev_fn.size() == 2) {
      auto domain = hex(parts[0]), bus = hex(parts[1]), dev = hex(dev_fn[0]), fn = hex(dev_fn[1]);
      if (domain && bus && dev && fn && *bus <= 0xff && *dev <= 0x1f && *fn <= 7) {
        return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", *domain, *bus, *dev, *fn);
      }
    }
  }
  return ToLower(id);
}

namespace {

// "16 s (--timeout)": how an overall budget was set, for the notes of the calls it cut short.
std::string BudgetText(std::chrono::milliseconds budget, std::string_view how) {
  return fmt::format("{} s ({})", budget.count() / 1000.0, how);
}

// Keeps a library a hung call may still be running in, for the life of the process: it is never
// unloaded or freed. The list is reachable from a global, so LeakSanitizer does not report it
// once the hung call returns and no thread holds the pointer any more (a dropped pointer was
// reported or not depending on that timing).
void KeepLoadedForever(std::unique_ptr<NvmlLibrary> lib) {
  if (lib == nullptr) return;
  static std::mutex mu;
  static auto* kept = new std::vector<std::unique_ptr<NvmlLibrary>>();
  std::lock_guard<std::mutex> lock(mu);
  kept->push_back(std::move(lib));
}

}  // namespace

struct NvmlSession::State {
  NvmlOptions options;
  std::unique_ptr<NvmlLibrary> lib;
  std::unique_ptr<BoundedExecutor> exec;
  bool initialised = false;
  Reading<std::string> driver_version, nvml_version;
  Reading<int> cuda_driver_version;
  std::vector<nvmlDevice_t> handles;  // by index; null until asked
  std::vector<std::optional<nvml_internal::StaticDeviceInfo>> statics;

  // Forgets the session. A wedged executor means a call still runs inside the library: it is
  // never unloaded then. Otherwise an initialised session is shut down.
  void Reset() {
    if (exec && exec->wedged()) {
      KeepLoadedForever(std::move(lib));
    } else if (initialised && lib && exec) {
      struct Empty {};
      std::vector<CallFailure> ignored;  // a failed shutdown changes nothing for the caller
      NvmlCaller quiet(*lib, *exec, &ignored, nullptr);
      auto r = quiet.Query<Empty>("nvmlShutdown",
                                  [](const NvmlLibrary& l, Empty&) { return l.nvmlShutdown(); });
      (void)r;
    }
    exec.reset();
    lib.reset();
    initialised = false;
    handles.clear();
    statics.clear();
  }
};

NvmlSession::NvmlSession(NvmlOptions options) : s_(std::make_unique<State>()) {
  s_->options = std::move(options);
}

NvmlSession::~NvmlSession() { s_->Reset(); }

void NvmlSession::Reset() { s_->Reset(); }

bool NvmlSession::initialised() const { return s_->initialised; }

GpuInventory NvmlSession::Read() {
  State& st = *s_;
  const NvmlOptions& options = st.options;
  GpuInventory inv;
  if (!st.lib) {
    Result<std::unique_ptr<NvmlLibrary>> loaded = NvmlLibrary::Load(options.library_path);
    if (!loaded.ok()) {
      inv.origin = fmt::format(
          "nvml ({})", options.library_path.empty() ? "libnvidia-ml.so.1" : options.library_path);
      inv.state = GpuSourceState::kLibraryMissing;
      inv.detail = loaded.status().message();
      return inv;
    }
    st.lib = std::move(loaded).value();
  }
  NvmlLibrary& lib = *st.lib;
  inv.origin = fmt::format("nvml ({})", lib.path());
  // One executor (and worker thread) per session; a fresh one after a hang or a spent budget.
  if (!st.exec) st.exec = std::make_unique<BoundedExecutor>(options.call_timeout);
  BoundedExecutor& exec = *st.exec;
  const auto start = std::chrono::steady_clock::now();
  if (options.budget.count() > 0) {
    exec.SetDeadline(start + options.budget, BudgetText(options.budget, "--timeout"));
  }
  NvmlCaller system(lib, exec, &inv.failures, nullptr);
  // Ends the read: a session that hung, ran out of time or failed to enumerate starts over next
  // time (re-init); a healthy one is kept.
  auto finish = [&](bool keep) {
    if (exec.out_of_time()) inv.budget_exhausted = exec.budget_text();
    if (!keep || exec.wedged() || exec.out_of_time()) st.Reset();
    return inv;
  };

  struct Empty {};
  if (!st.initialised) {
    auto [init, unused] = system.Query<Empty>(
        "nvmlInit_v2", [](const NvmlLibrary& l, Empty&) { return l.nvmlInit_v2(); },
        {NVML_ERROR_DRIVER_NOT_LOADED});
    (void)unused;
    if (!init.ok()) {
      if (init.stalled()) {
        inv.state = GpuSourceState::kHung;
        inv.detail = init.note;
      } else if (init.code == NVML_ERROR_DRIVER_NOT_LOADED) {
        inv.state = GpuSourceState::kDriverNotLoaded;
        inv.detail = "nvmlInit_v2: " + DescribeNvmlError(init.code);
      } else {
        inv.state = GpuSourceState::kInitFailed;
        inv.detail = "nvmlInit_v2: " + DescribeNvmlError(init.code);
      }
      if (exec.out_of_time()) inv.budget_exhausted = exec.budget_text();
      if (exec.wedged()) KeepLoadedForever(std::move(st.lib));  // a call may still run in it
      st.exec.reset();
      st.lib.reset();
      return inv;
    }
    st.initialised = true;
    // The driver's versions do not change while it stays loaded: read once per session.
    auto [dv, driver] = system.Query<std::array<char, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE>>(
        "nvmlSystemGetDriverVersion", [](const NvmlLibrary& l, auto& b) {
          return l.nvmlSystemGetDriverVersion(b.data(), b.size() - 1);
        });
    st.driver_version =
        ToReading(dv, std::string(driver.data(), strnlen(driver.data(), driver.size())));
    auto [nv, nvml] = system.Query<std::array<char, NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE>>(
        "nvmlSystemGetNVMLVersion", [](const NvmlLibrary& l, auto& b) {
          return l.nvmlSystemGetNVMLVersion(b.data(), b.size() - 1);
        });
    st.nvml_version = ToReading(nv, std::string(nvml.data(), strnlen(nvml.data(), nvml.size())));
    auto [cv, cuda] = system.Query<int>(
        "nvmlSystemGetCudaDriverVersion_v2",
        [](const NvmlLibrary& l, int& v) { return l.nvmlSystemGetCudaDriverVersion_v2(&v); });
    st.cuda_driver_version = ToReading(cv, cuda);
  }
  inv.driver_version = st.driver_version;
  inv.nvml_version = st.nvml_version;
  inv.cuda_driver_version = st.cuda_driver_version;

  auto [co, count] = system.Query<unsigned>(
      "nvmlDeviceGetCount_v2",
      [](const NvmlLibrary& l, unsigned& n) { return l.nvmlDeviceGetCount_v2(&n); });
  inv.device_count = ToReading(co, static_cast<int>(count));
  if (!co.ok()) {
    inv.state = co.stalled() ? GpuSourceState::kHung : GpuSourceState::kInitFailed;
    inv.detail = co.note;
    if (co.code == kSkipped) {
      // Skipped behind an earlier hang (e.g. nvmlSystemGetDriverVersion): name the call that hung.
      for (const CallFailure& f : inv.failures) {
        if (f.timed_out && f.call != "nvmlDeviceGetCount_v2") {
          inv.detail = f.message + "; GPUs were not enumerated";
          break;
        }
      }
    }
    return finish(false);
  }
  inv.state = GpuSourceState::kOk;
  if (count > kMaxDevices) {
    inv.failures.push_back(CallFailure{
        "nvmlDeviceGetCount_v2",
        fmt::format("implausible device count {}; reading the first {}", count, kMaxDevices),
        false});
    count = kMaxDevices;
  }
  if (st.handles.size() != count) {  // first read, or the driver now counts other devices
    st.handles.assign(count, nullptr);
    st.statics.assign(count, std::nullopt);
  }
  if (options.budget.count() == 0 && options.budget_per_gpu.count() > 0) {
    const auto budget = std::max(options.budget_floor, options.budget_per_gpu * count);
    exec.SetDeadline(start + budget,
                     BudgetText(budget, fmt::format("{} s per GPU, the default of --timeout",
                                                    options.budget_per_gpu.count() / 1000.0)));
  }
  for (unsigned i = 0; i < count; ++i) {
    GpuState gpu;
    gpu.index = static_cast<int>(i);
    nvmlDevice_t handle = st.handles[i];
    bool have_handle = handle != nullptr;
    bool stalled = false;
    if (!have_handle) {
      NvmlCaller caller(lib, exec, &gpu.failures, &gpu);
      auto [ho, h] = caller.Query<nvmlDevice_t>("nvmlDeviceGetHandleByIndex_v2",
                                                [i](const NvmlLibrary& l, nvmlDevice_t& out) {
                                                  return l.nvmlDeviceGetHandleByIndex_v2(i, &out);
                                                });
      if (ho.code == kTimedOut) {
        inv.state = GpuSourceState::kHung;
        inv.detail = fmt::format("{}; GPUs from index {} on were not read", ho.note, i);
      } else if (ho.code == kSkipped) {
        gpu.failures.push_back(CallFailure{"nvmlDeviceGetHandleByIndex_v2", ho.note, true});
      } else if (ho.called && !ho.ok()) {
        // The driver counts the GPU but cannot open it (nvidia-smi: "Unable to determine the
        // device handle for GPU…"): what the code says is the GPU's finding.
        gpu.handle_fault = nvml_internal::GpuFaultOf(ho.code);
      }
      stalled = ho.stalled();
      if (ho.ok()) {
        handle = h;
        have_handle = true;
        st.handles[i] = h;
      }
    }
    // After a hang every call is skipped at once without touching NVML (the null handle is never
    // passed on), and each field then says why it is missing.
    if (have_handle || stalled) {
      nvml_internal::StaticDeviceInfo learned;
      const nvml_internal::StaticDeviceInfo* cached = st.statics[i] ? &*st.statics[i] : nullptr;
      nvml_internal::ReadNvmlDeviceBatched(lib, exec, have_handle ? handle : nullptr, gpu, cached,
                                           cached == nullptr ? &learned : nullptr);
      if (cached == nullptr && !learned.uuid.empty()) st.statics[i] = std::move(learned);
    }
    inv.gpus.push_back(std::move(gpu));
  }
  return finish(true);
}

GpuInventory ReadNvml(const NvmlOptions& options) {
  NvmlSession session(options);
  return session.Read();  // the session's destructor shuts NVML down (or leaks it when hung)
}

}  // namespace gpuvet
