// Internal to the GPU sampler: what runs on the NVML worker thread. One GpuSlot per GPU holds the
// handle, the GPM sample buffers and what earlier batches learned (unsupported calls, loss); a
// batch reads one GPU's static facts (OpenGpu) or one sample (SampleGpu) with plain NVML calls,
// the whole batch being bounded by the executor's deadline.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/recording.h"
#include "sources/nvml/nvml_loader.h"

namespace gpuvet::gpu_sampler_internal {

// Ownership: shared by the sampler and the closure running on the worker, which can outlive a
// Take when a call hangs. Everything but `mu`/`published`/`current_call` belongs to the worker
// while a batch runs; the sampler reads it only after the batch returned (the executor's lock
// orders the two) or after BoundedExecutor::Recover said the hung batch finished.
// NVML's minimum spacing of the two GPM samples nvmlGpmMetricsGet compares.
inline constexpr std::chrono::milliseconds kGpmMinSpacing{100};
// Most processes or utilisation samples read per GPU per sample (the bounded buffer).
inline constexpr unsigned kMaxListEntries = 4096;

struct GpuSlot {
  int index = 0;
  nvmlDevice_t handle = nullptr;  // null: never opened (then every field stays absent)
  bool lost = false;
  std::string lost_call;
  std::set<std::string, std::less<>> unsupported;  // "nvmlDeviceGetClockInfo(SM)", …
  std::vector<std::string> errors;                 // "nvmlDeviceGetPowerUsage: UNKNOWN", new ones
  std::set<std::string, std::less<>> errors_seen;

  bool gpm = false;  // GPM-capable and both sample buffers allocated
  nvmlGpmSample_t gpm_prev = nullptr;
  nvmlGpmSample_t gpm_next = nullptr;
  bool gpm_prev_taken = false;
  // When gpm_prev was taken: NVML compares GPM samples at least 100 ms apart (kGpmMinSpacing),
  // so a sample that comes sooner reads no GPM metric and the older sample stays the baseline.
  std::chrono::steady_clock::time_point gpm_prev_time;
  int gpm_too_close = 0;  // samples that read no GPM metric for that reason
  bool gpm_pcie = false;  // GPM answers PCIe bytes: skip the slow nvmlDeviceGetPcieThroughput
  std::string gpm_note;   // why GPM is off, when it is
  unsigned long long last_seen_us = 0;  // newest per-process utilisation sample consumed
  std::vector<nvmlProcessInfo_t> procs;
  std::vector<nvmlProcessUtilizationSample_t> utils;
  std::unique_ptr<nvmlGpmMetricsGet_t> metrics = std::make_unique<nvmlGpmMetricsGet_t>();

  std::mutex mu;
  GpuSample published;       // this batch's fields so far (a hung batch keeps what it read)
  std::string current_call;  // the call in progress, to name a hang
};

// Gets the handle of GPU `slot.index` and its static facts into `out` (index set by the caller);
// checks GPM support, allocates the GPM buffers and takes the first GPM sample; consumes pending
// per-process utilisation so the first sample covers only its interval. Returns the handle call's
// NVML code (the facts are best effort: failures are in slot.errors / slot.unsupported).
int OpenGpu(const NvmlLibrary& lib, GpuSlot& slot, RecordedGpu& out);

// Reads one sample of the GPU into slot.published (reset first). Returns NVML_SUCCESS; a lost GPU
// stops the batch (slot.lost set).
int SampleGpu(const NvmlLibrary& lib, GpuSlot& slot);

// Frees the GPM sample buffers (end of the session).
int FreeGpm(const NvmlLibrary& lib, GpuSlot& slot);

}  // namespace gpuvet::gpu_sampler_internal
