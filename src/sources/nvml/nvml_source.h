// The NVML GPU source: loads libnvidia-ml.so.1, reads every GpuState field through time-bounded
// calls, and converts units at the boundary (mW -> W, bytes, MHz, sysfs-form PCI addresses).
// "Not supported" stays distinct from errors; a lost or hung GPU never stops the run.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "core/gpu_state.h"

namespace gpuvet {

struct NvmlOptions {
  std::string library_path;  // empty: "libnvidia-ml.so.1" through the loader search path
  // Deadline for each NVML call (gpuvet's default: 2000 ms; a healthy call takes microseconds to
  // tens of milliseconds, a wedged GPU holds NVML's lock forever).
  std::chrono::milliseconds call_timeout{2000};
  // Overall budget for the whole read (`gpuvet check --timeout`), counted from the call of
  // ReadNvml; zero: none. A call still running when it ends counts as hung, later calls are
  // skipped, and GpuInventory::budget_exhausted says so.
  std::chrono::milliseconds budget{0};
  // When `budget` is zero: a budget of this much per enumerated GPU, at least `budget_floor`,
  // set once the GPUs are counted (`gpuvet check`'s default); zero: no overall budget.
  std::chrono::milliseconds budget_per_gpu{0};
  std::chrono::milliseconds budget_floor{10000};
};

// Reads the driver, NVML and every GPU. Never fails as a whole: the state and detail say why data
// is missing (kLibraryMissing, kDriverNotLoaded, kInitFailed, kHung), each field carries its own
// Reading state, and failed calls are listed in GpuState::failures / GpuInventory::failures.
// A hung call costs one call_timeout and every later call is skipped (NVML holds a global lock), so
// the whole read is bounded by about one timeout beyond the healthy calls. Thread-compatible: calls
// from several threads are independent (NVML serialises them).
GpuInventory ReadNvml(const NvmlOptions& options);

// An NVML session kept across reads (the exporter's collections): init, the driver's versions,
// device handles and each GPU's static identity and limits (StaticDeviceInfo) are asked once,
// so later reads make only the calls whose answers can change; each GPU's calls go to the
// worker thread as one batch. After a hang, a spent budget or a failed enumeration the session
// starts over on the next Read (re-init); a device count that changed drops the handles.
// Not thread-safe: one caller at a time.
class NvmlSession {
 public:
  explicit NvmlSession(NvmlOptions options);
  // nvmlShutdown when initialised, unless a call hung (then the library is left loaded).
  ~NvmlSession();
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;

  // One read, with ReadNvml's contract.
  GpuInventory Read();
  // Forgets the session (shuts NVML down); the next Read initialises again.
  void Reset();
  // True while a session is held (NVML initialised).
  bool initialised() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// "00000000:3B:00.0" -> "0000:3b:00.0" (the sysfs form); other text is returned lower-cased.
std::string NormalizePciBusId(std::string_view nvml_bus_id);

}  // namespace gpuvet
