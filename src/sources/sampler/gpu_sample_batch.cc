// The per-GPU NVML batches of the sampler (see gpu_sample_batch.h). Units are converted here:
// mW -> W, mJ -> J, KB/s and MiB/s -> bytes/s. A call that answers NOT_SUPPORTED is remembered
// and not asked again; other errors are recorded once per call and leave the field absent.
#include "sources/sampler/gpu_sample_batch.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <initializer_list>
#include <map>

#include "sources/nvml/nvml_source.h"

namespace gpuvet::gpu_sampler_internal {

namespace {

// nvmlProcessInfo_t::usedGpuMemory when the driver cannot say (NVML_VALUE_NOT_AVAILABLE).
constexpr unsigned long long kValueNotAvailable = ~0ULL;
// Room for processes that start between the size query and the read, and how often a list that
// keeps growing is asked again.
constexpr unsigned kListHeadroom = 4;
constexpr int kListAttempts = 3;
constexpr double kMiB = 1024.0 * 1024.0;

class Batch {
 public:
  Batch(const NvmlLibrary& lib, GpuSlot& slot) : lib_(lib), g_(slot) {}

  // Runs one NVML call named `name`. Returns its code; codes in `expected` are protocol answers
  // returned as they are. NOT_SUPPORTED / FUNCTION_NOT_FOUND mark the call unsupported (skipped
  // from now on), GPU_IS_LOST marks the GPU lost, anything else is recorded as an error. A call
  // skipped for either reason answers NVML_ERROR_NOT_SUPPORTED without touching NVML.
  template <typename F>
  int Call(std::string_view name, F fn, std::initializer_list<int> expected = {}) {
    if (g_.lost || g_.unsupported.count(name)) return NVML_ERROR_NOT_SUPPORTED;
    {
      std::lock_guard<std::mutex> lock(g_.mu);
      g_.current_call.assign(name);
    }
    const int code = fn();
    if (code == NVML_SUCCESS) return code;
    for (int e : expected) {
      if (code == e) return code;
    }
    if (code == NVML_ERROR_NOT_SUPPORTED || code == NVML_ERROR_FUNCTION_NOT_FOUND) {
      g_.unsupported.emplace(name);
    } else if (code == NVML_ERROR_GPU_IS_LOST) {
      g_.lost = true;
      g_.lost_call.assign(name);
    } else if (g_.errors_seen.emplace(name).second) {
      g_.errors.push_back(fmt::format("{}: {}", name, NvmlErrorName(code)));
    }
    return code;
  }

  // Writes into the published sample under its lock.
  template <typename F>
  void Set(F f) {
    std::lock_guard<std::mutex> lock(g_.mu);
    f(g_.published);
  }

  const NvmlLibrary& lib() const { return lib_; }
  GpuSlot& slot() { return g_; }
  nvmlDevice_t h() const { return g_.handle; }

 private:
  const NvmlLibrary& lib_;
  GpuSlot& g_;
};

// NVML's size-query protocol for a list call `query(count, buffer)`: first a NULL buffer with
// count 0 (SUCCESS: the list is empty; INSUFFICIENT_SIZE: *count is the size needed), then a
// buffer of that size plus headroom, asked again (up to kListAttempts) while the list grows
// between the calls, never beyond kMaxListEntries. `buffer` holds the answer; returns the code
// and sets *n to the entries filled. `extra` are codes the call answers as protocol (NOT_FOUND).
template <typename T, typename Q>
int SizeQueryRead(Batch& b, std::string_view name, std::vector<T>& buffer, unsigned* n, Q query,
                  std::initializer_list<int> extra = {}) {
  auto call = [&](unsigned* count, T* data) {
    return b.Call(name, [&] { return query(count, data); },
                  {NVML_ERROR_INSUFFICIENT_SIZE, extra.size() ? *extra.begin() : NVML_SUCCESS});
  };
  *n = 0;
  int code = call(n, nullptr);
  if (code != NVML_ERROR_INSUFFICIENT_SIZE) {
    if (code == NVML_SUCCESS) *n = 0;  // nothing listed
    return code;
  }
  int reads = 0;
  for (; reads < kListAttempts; ++reads) {
    if (*n > kMaxListEntries) break;
    const unsigned capacity = std::min(*n + kListHeadroom, kMaxListEntries);
    buffer.resize(capacity);
    *n = capacity;
    code = call(n, buffer.data());
    if (code != NVML_ERROR_INSUFFICIENT_SIZE) {
      *n = code == NVML_SUCCESS ? std::min(*n, capacity) : 0;
      return code;
    }
  }
  // Still too small: more than kMaxListEntries, or a list that grew on every attempt.
  GpuSlot& g = b.slot();
  if (g.errors_seen.emplace(std::string(name) + "(size)").second) {
    g.errors.push_back(
        *n > kMaxListEntries
            ? fmt::format("{}: INSUFFICIENT_SIZE: a list of {} does not fit the buffer (bounded "
                          "at {}); not read",
                          name, *n, kMaxListEntries)
            : fmt::format("{}: INSUFFICIENT_SIZE: the list kept growing over {} reads ({} "
                          "needed); not read",
                          name, reads, *n));
  }
  *n = 0;
  return NVML_ERROR_INSUFFICIENT_SIZE;
}

void ReadProcesses(Batch& b) {
  GpuSlot& g = b.slot();
  unsigned n = 0;
  const int code =
      SizeQueryRead(b, "nvmlDeviceGetComputeRunningProcesses_v3", g.procs, &n,
                    [&](unsigned* count, nvmlProcessInfo_t* infos) {
                      return b.lib().nvmlDeviceGetComputeRunningProcesses_v3(b.h(), count, infos);
                    });
  if (code != NVML_SUCCESS) return;
  b.Set([&](GpuSample& s) {
    for (unsigned i = 0; i < n; ++i) {
      GpuProcessSample p;
      p.pid = g.procs[i].pid;
      if (g.procs[i].usedGpuMemory != kValueNotAvailable) {
        p.used_memory_bytes = g.procs[i].usedGpuMemory;
      }
      s.processes.push_back(p);
    }
  });
}

// Per-process SM use over the samples NVML took since the last call, averaged per pid. A value
// above 100 % is not a share of anything (seen on real drivers as 4294967295 or a few hundred):
// it is dropped, and the first one is named in the GPU's errors.
void ReadProcessUtilization(Batch& b, bool baseline_only) {
  GpuSlot& g = b.slot();
  unsigned n = 0;
  const int code = SizeQueryRead(b, "nvmlDeviceGetProcessUtilization", g.utils, &n,
                                 [&](unsigned* count, nvmlProcessUtilizationSample_t* samples) {
                                   return b.lib().nvmlDeviceGetProcessUtilization(
                                       b.h(), samples, count, g.last_seen_us);
                                 },
                                 {NVML_ERROR_NOT_FOUND});
  if (code != NVML_SUCCESS) return;  // NOT_FOUND: no process ran kernels since the last call
  std::map<uint32_t, std::pair<double, int>> by_pid;  // sum of smUtil, samples
  for (unsigned i = 0; i < n; ++i) {
    const nvmlProcessUtilizationSample_t& u = g.utils[i];
    g.last_seen_us = std::max(g.last_seen_us, u.timeStamp);
    if (u.smUtil > 100) {
      if (g.errors_seen.emplace("nvmlDeviceGetProcessUtilization(>100%)").second) {
        g.errors.push_back(fmt::format(
            "nvmlDeviceGetProcessUtilization: smUtil {} % for pid {} dropped (above 100 %; "
            "later such samples are dropped too)",
            u.smUtil, u.pid));
      }
      continue;
    }
    auto& [sum, count] = by_pid[u.pid];
    sum += u.smUtil;
    ++count;
  }
  if (baseline_only) return;
  b.Set([&](GpuSample& s) {
    for (const auto& entry : by_pid) {
      const uint32_t pid = entry.first;
      const auto& acc = entry.second;
      auto it = std::find_if(s.processes.begin(), s.processes.end(),
                             [pid](const GpuProcessSample& p) { return p.pid == pid; });
      if (it == s.processes.end()) {
        s.processes.push_back(GpuProcessSample{pid, std::nullopt, std::nullopt});
        it = s.processes.end() - 1;
      }
      it->sm_util_pct = acc.first / acc.second;
    }
  });
}

// GPM: take the next sample, compute metrics between the previous one and it, then swap.
void ReadGpm(Batch& b) {
  GpuSlot& g = b.slot();
  if (!g.gpm) return;
  const auto now = std::chrono::steady_clock::now();
  if (g.gpm_prev_taken && now - g.gpm_prev_time < kGpmMinSpacing) {
    ++g.gpm_too_close;  // keep the older baseline; the next sample compares against it
    return;
  }
  if (b.Call("nvmlGpmSampleGet", [&] { return b.lib().nvmlGpmSampleGet(b.h(), g.gpm_next); }) !=
      NVML_SUCCESS) {
    return;
  }
  if (g.gpm_prev_taken) {
    struct Want {
      unsigned id;
      std::optional<double> GpuSample::*field;
      double scale;
    };
    static constexpr Want kWant[] = {
        {NVML_GPM_METRIC_SM_UTIL, &GpuSample::sm_active_pct, 1},
        {NVML_GPM_METRIC_SM_OCCUPANCY, &GpuSample::sm_occupancy_pct, 1},
        {NVML_GPM_METRIC_ANY_TENSOR_UTIL, &GpuSample::tensor_active_pct, 1},
        {NVML_GPM_METRIC_DRAM_BW_UTIL, &GpuSample::dram_bw_util_pct, 1},
        {NVML_GPM_METRIC_PCIE_TX_PER_SEC, &GpuSample::gpm_pcie_tx_bytes_per_s, kMiB},
        {NVML_GPM_METRIC_PCIE_RX_PER_SEC, &GpuSample::gpm_pcie_rx_bytes_per_s, kMiB},
        {NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, &GpuSample::nvlink_tx_bytes_per_s, kMiB},
        {NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, &GpuSample::nvlink_rx_bytes_per_s, kMiB},
    };
    nvmlGpmMetricsGet_t& m = *g.metrics;
    std::memset(&m, 0, sizeof(m));
    m.version = NVML_GPM_METRICS_GET_VERSION;
    m.numMetrics = std::size(kWant);
    m.sample1 = g.gpm_prev;
    m.sample2 = g.gpm_next;
    for (size_t i = 0; i < std::size(kWant); ++i) m.metrics[i].metricId = kWant[i].id;
    if (b.Call("nvmlGpmMetricsGet", [&] { return b.lib().nvmlGpmMetricsGet(&m); }) ==
        NVML_SUCCESS) {
      bool pcie = true;
      b.Set([&](GpuSample& s) {
        for (size_t i = 0; i < std::size(kWant); ++i) {
          const bool ok = m.metrics[i].nvmlReturn == NVML_SUCCESS;
          if (ok) s.*kWant[i].field = m.metrics[i].value * kWant[i].scale;
          if (kWant[i].id == NVML_GPM_METRIC_PCIE_TX_PER_SEC ||
              kWant[i].id == NVML_GPM_METRIC_PCIE_RX_PER_SEC) {
            pcie = pcie && ok;
          }
        }
      });
      g.gpm_pcie = pcie;
    }
  }
  std::swap(g.gpm_prev, g.gpm_next);
  g.gpm_prev_taken = true;
  g.gpm_prev_time = now;
}

}  // namespace

int OpenGpu(const NvmlLibrary& lib, GpuSlot& slot, RecordedGpu& out) {
  Batch b(lib, slot);
  nvmlDevice_t handle = nullptr;
  const unsigned index = static_cast<unsigned>(slot.index);
  const int code = b.Call("nvmlDeviceGetHandleByIndex_v2",
                          [&] { return lib.nvmlDeviceGetHandleByIndex_v2(index, &handle); });
  if (code != NVML_SUCCESS) return code;
  slot.handle = handle;

  std::array<char, NVML_DEVICE_NAME_V2_BUFFER_SIZE> text{};
  auto str = [&] { return std::string(text.data(), strnlen(text.data(), text.size())); };
  if (b.Call("nvmlDeviceGetName", [&] {
        return lib.nvmlDeviceGetName(handle, text.data(), text.size() - 1);
      }) == NVML_SUCCESS) {
    out.name = str();
  }
  text.fill(0);
  if (b.Call("nvmlDeviceGetUUID", [&] {
        return lib.nvmlDeviceGetUUID(handle, text.data(), text.size() - 1);
      }) == NVML_SUCCESS) {
    out.uuid = str();
  }
  nvmlPciInfo_t pci{};
  if (b.Call("nvmlDeviceGetPciInfo_v3",
             [&] { return lib.nvmlDeviceGetPciInfo_v3(handle, &pci); }) == NVML_SUCCESS) {
    out.pci_bus_id =
        NormalizePciBusId(std::string(pci.busId, strnlen(pci.busId, sizeof(pci.busId))));
  }
  nvmlMemory_t mem{};
  if (b.Call("nvmlDeviceGetMemoryInfo",
             [&] { return lib.nvmlDeviceGetMemoryInfo(handle, &mem); }) == NVML_SUCCESS) {
    out.memory_total_bytes = mem.total;
  }
  unsigned v = 0;
  if (b.Call("nvmlDeviceGetEnforcedPowerLimit",
             [&] { return lib.nvmlDeviceGetEnforcedPowerLimit(handle, &v); }) == NVML_SUCCESS) {
    out.power_limit_w = v / 1000.0;
  }
  if (b.Call("nvmlDeviceGetMaxClockInfo(SM)", [&] {
        return lib.nvmlDeviceGetMaxClockInfo(handle, NVML_CLOCK_SM, &v);
      }) == NVML_SUCCESS) {
    out.sm_clock_max_mhz = static_cast<int>(v);
  }
  if (b.Call("nvmlDeviceGetMaxClockInfo(MEM)", [&] {
        return lib.nvmlDeviceGetMaxClockInfo(handle, NVML_CLOCK_MEM, &v);
      }) == NVML_SUCCESS) {
    out.mem_clock_max_mhz = static_cast<int>(v);
  }
  if (b.Call("nvmlDeviceGetMaxPcieLinkGeneration",
             [&] { return lib.nvmlDeviceGetMaxPcieLinkGeneration(handle, &v); }) == NVML_SUCCESS) {
    out.pcie_gen_max = static_cast<int>(v);
  }
  if (b.Call("nvmlDeviceGetMaxPcieLinkWidth",
             [&] { return lib.nvmlDeviceGetMaxPcieLinkWidth(handle, &v); }) == NVML_SUCCESS) {
    out.pcie_width_max = static_cast<int>(v);
  }

  nvmlGpmSupport_t support{NVML_GPM_SUPPORT_VERSION, 0};
  if (b.Call("nvmlGpmQueryDeviceSupport",
             [&] { return lib.nvmlGpmQueryDeviceSupport(handle, &support); }) != NVML_SUCCESS) {
    slot.gpm_note = "nvmlGpmQueryDeviceSupport not answered (driver before r520?)";
  } else if (support.isSupportedDevice == 0) {
    slot.gpm_note = "not a GPM-capable GPU (Hopper or newer needed)";
  } else if (b.Call("nvmlGpmSampleAlloc", [&] { return lib.nvmlGpmSampleAlloc(&slot.gpm_prev); }) !=
                 NVML_SUCCESS ||
             b.Call("nvmlGpmSampleAlloc", [&] { return lib.nvmlGpmSampleAlloc(&slot.gpm_next); }) !=
                 NVML_SUCCESS) {
    slot.gpm_note = "nvmlGpmSampleAlloc failed";
  } else {
    slot.gpm = true;
    if (b.Call("nvmlGpmSampleGet", [&] { return lib.nvmlGpmSampleGet(handle, slot.gpm_prev); }) ==
        NVML_SUCCESS) {
      slot.gpm_prev_taken = true;
      slot.gpm_prev_time = std::chrono::steady_clock::now();
    }
  }
  ReadProcessUtilization(b, /*baseline_only=*/true);
  return NVML_SUCCESS;
}

int SampleGpu(const NvmlLibrary& lib, GpuSlot& slot) {
  Batch b(lib, slot);
  b.Set([&](GpuSample& s) {
    s = GpuSample{};
    s.gpu = slot.index;
  });
  const nvmlDevice_t h = slot.handle;

  nvmlUtilization_t util{};
  if (b.Call("nvmlDeviceGetUtilizationRates",
             [&] { return lib.nvmlDeviceGetUtilizationRates(h, &util); }) == NVML_SUCCESS) {
    b.Set([&](GpuSample& s) {
      s.util_pct = util.gpu;
      s.mem_util_pct = util.memory;
    });
  }
  unsigned v = 0;
  if (b.Call("nvmlDeviceGetClockInfo(SM)",
             [&] { return lib.nvmlDeviceGetClockInfo(h, NVML_CLOCK_SM, &v); }) == NVML_SUCCESS) {
    b.Set([&](GpuSample& s) { s.sm_clock_mhz = v; });
  }
  if (b.Call("nvmlDeviceGetClockInfo(MEM)",
             [&] { return lib.nvmlDeviceGetClockInfo(h, NVML_CLOCK_MEM, &v); }) == NVML_SUCCESS) {
    b.Set([&](GpuSample& s) { s.mem_clock_mhz = v; });
  }
  if (b.Call("nvmlDeviceGetPowerUsage", [&] { return lib.nvmlDeviceGetPowerUsage(h, &v); }) ==
      NVML_SUCCESS) {
    b.Set([&](GpuSample& s) { s.power_w = v / 1000.0; });
  }
  unsigned long long u64 = 0;
  if (b.Call("nvmlDeviceGetTotalEnergyConsumption",
             [&] { return lib.nvmlDeviceGetTotalEnergyConsumption(h, &u64); }) == NVML_SUCCESS) {
    b.Set([&](GpuSample& s) { s.energy_j = static_cast<double>(u64) / 1000.0; });
  }
  if (b.Call("nvmlDeviceGetTemperature", [&] {
        return lib.nvmlDeviceGetTemperature(h, NVML_TEMPERATURE_GPU, &v);
      }) == NVML_SUCCESS) {
    b.Set([&](GpuSample& s) { s.temperature_c = v; });
  }
  // The "event" name since r535; older drivers only know the "throttle" one.
  int code = b.Call("nvmlDeviceGetCurrentClocksEventReasons",
                    [&] { return lib.nvmlDeviceGetCurrentClocksEventReasons(h, &u64); });
  if (code == NVML_ERROR_NOT_SUPPORTED || code == NVML_ERROR_FUNCTION_NOT_FOUND) {
    code = b.Call("nvmlDeviceGetCurrentClocksThrottleReasons",
                  [&] { return lib.nvmlDeviceGetCurrentClocksThrottleReasons(h, &u64); });
  }
  if (code == NVML_SUCCESS) b.Set([&](GpuSample& s) { s.clock_event_reasons = u64; });
  nvmlMemory_t mem{};
  if (b.Call("nvmlDeviceGetMemoryInfo", [&] { return lib.nvmlDeviceGetMemoryInfo(h, &mem); }) ==
      NVML_SUCCESS) {
    b.Set([&](GpuSample& s) { s.memory_used_bytes = mem.used; });
  }
  if (b.Call("nvmlDeviceGetTotalEccErrors(corrected, volatile)", [&] {
        return lib.nvmlDeviceGetTotalEccErrors(h, NVML_MEMORY_ERROR_TYPE_CORRECTED,
                                               NVML_VOLATILE_ECC, &u64);
      }) == NVML_SUCCESS) {
    b.Set([&](GpuSample& s) { s.ecc_corrected_volatile = u64; });
  }
  if (b.Call("nvmlDeviceGetTotalEccErrors(uncorrected, volatile)", [&] {
        return lib.nvmlDeviceGetTotalEccErrors(h, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                               NVML_VOLATILE_ECC, &u64);
      }) == NVML_SUCCESS) {
    b.Set([&](GpuSample& s) { s.ecc_uncorrected_volatile = u64; });
  }
  ReadProcesses(b);
  ReadProcessUtilization(b, /*baseline_only=*/false);
  ReadGpm(b);
  // Last: on real hardware each call measures a 20 ms window. GPM's PCIe counters replace it.
  if (!slot.gpm_pcie) {
    if (b.Call("nvmlDeviceGetPcieThroughput(TX)", [&] {
          return lib.nvmlDeviceGetPcieThroughput(h, NVML_PCIE_UTIL_TX_BYTES, &v);
        }) == NVML_SUCCESS) {
      b.Set([&](GpuSample& s) { s.pcie_tx_bytes_per_s = v * 1024.0; });
    }
    if (b.Call("nvmlDeviceGetPcieThroughput(RX)", [&] {
          return lib.nvmlDeviceGetPcieThroughput(h, NVML_PCIE_UTIL_RX_BYTES, &v);
        }) == NVML_SUCCESS) {
      b.Set([&](GpuSample& s) { s.pcie_rx_bytes_per_s = v * 1024.0; });
    }
  }
  return NVML_SUCCESS;
}

int FreeGpm(const NvmlLibrary& lib, GpuSlot& slot) {
  for (nvmlGpmSample_t* s : {&slot.gpm_prev, &slot.gpm_next}) {
    if (*s != nullptr) lib.nvmlGpmSampleFree(*s);
    *s = nullptr;
  }
  slot.gpm = false;
  return NVML_SUCCESS;
}

}  // namespace gpuvet::gpu_sampler_internal
