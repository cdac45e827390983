// One detector per window label (core/bottleneck.h): each reads the window's means and shares and
// either names its label with the numbers that decided it, or declines. LabelWindow
// (recording_labels.h) walks WindowDetectors() in the diagnosis playbook's order and takes the
// first answer: is the GPU starved at all; if so, by storage, by the CPU (quota, one pegged
// thread, all cores), by copies or by tiny kernels; if not, is it throttled, memory-bound or
// compute-bound.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/recording/recording_labels.h"
#include "analysis/recording/recording_options.h"
#include "core/bottleneck.h"
#include "core/finding.h"
#include "core/recording.h"

namespace gpuvet {

// What every detector reads. References only: the context lives for one LabelWindow call.
struct WindowContext {
  const WindowStats& w;
  const RecordingMeta& meta;
  const AnalyzeThresholds& th;
  bool fallback_run = false;  // the whole recording is a CPU fallback (IsCpuFallback)
};

// A detector's answer: the label and sub-case (always a row of the bottleneck table), the reason
// with the deciding numbers, the evidence with thresholds, and how the confidence is found.
struct WindowCause {
  Bottleneck label = Bottleneck::kNone;
  Subcase detail = Subcase::kNone;
  std::string reason;
  std::vector<Evidence> evidence;
  double margin = 1;  // deciding value / threshold (for low-is-bad tests: threshold / value)
  // Confidence capped at medium when activity is GPU-Util (the label rests on activity).
  bool needs_activity = false;
  bool cap_medium = false;       // confidence at most medium whatever the margin
  std::string fixed_confidence;  // when set, the confidence regardless of margin and samples
};

// A detector: the cause when its label applies to the window, else nullopt. A detector may
// assume that the detectors before it in WindowDetectors() declined; alone it tests only its own
// label's conditions.
using WindowDetector = std::optional<WindowCause> (*)(const WindowContext& c);

// CPU fallback run whose workload uses at least FallbackCpuPct of a core: cpu_fallback.
std::optional<WindowCause> DetectCpuFallback(const WindowContext& c);

// CPU fallback run whose workload is not busy either: idle.
std::optional<WindowCause> DetectFallbackIdle(const WindowContext& c);

// No GPU activity readings in the window: none, confidence low.
std::optional<WindowCause> DetectNoActivityReadings(const WindowContext& c);

// GPU-Util >= stalled_util_pct while board power <= stalled_power_pct of the limit and memory
// (NVML memory utilisation, GPM DRAM), PCIe and NVLink activity are ~0, for >= stalled_min_s:
// stalled. Needs power with its limit and a memory figure.
std::optional<WindowCause> DetectStalled(const WindowContext& c);

// Starved, with GPM: GPU-Util >= busy_util_pct while SM activity is low:
// launch_bound/busy_not_productive.
std::optional<WindowCause> DetectBusyNotProductive(const WindowContext& c);

// Starved while tasks wait on storage (iowait, PSI io, a busy disk; not when the workload itself
// reads next to nothing) or the workload reads many small files: host_io_bound/storage or
// host_io_bound/small_files.
std::optional<WindowCause> DetectHostIoBound(const WindowContext& c);

// Starved while the CPU holds the job back: host_cpu_bound/cpu_quota (cgroup throttling or quota
// used), else /single_thread_feeder (one pegged thread, host not saturated), else /cpu_saturated.
std::optional<WindowCause> DetectHostCpuBound(const WindowContext& c);

// Starved while an RDMA port runs at net_link_pct of its rate or the ports signal congestion
// (net_cnp_per_s): comm_bound/network, naming the port and its rate. Before the PCIe test: a
// GPUDirect RDMA transfer also crosses the GPU's PCIe link.
std::optional<WindowCause> DetectNetworkBound(const WindowContext& c);

// Starved while PCIe carries at least pcie_link_pct of the link's rate: transfer_bound.
std::optional<WindowCause> DetectStarvedTransfer(const WindowContext& c);

// Starved, and the recording has no host or workload figures (an import): idle/no_host_data,
// confidence low.
std::optional<WindowCause> DetectNoHostData(const WindowContext& c);

// Activity below gpu_idle_pct: idle.
std::optional<WindowCause> DetectIdle(const WindowContext& c);

// Starved with nothing waiting: none, or none/bursty when the window is a sawtooth. Always
// answers for a starved window.
std::optional<WindowCause> DetectNotLimited(const WindowContext& c);

// Busy by GPU-Util (no GPM) at >= busy_util_pct while board power stays below
// power_overstated_pct of the limit: GPU-Util overstates the load,
// launch_bound/busy_not_productive, confidence low.
std::optional<WindowCause> DetectUtilOverstated(const WindowContext& c);

// Not starved, slowdown reasons for throttle_share_pct of busy time and the SM clock
// clock_loss_pct below maximum: throttled/thermal, /power_cap or /hw_slowdown.
std::optional<WindowCause> DetectThrottled(const WindowContext& c);

// Not starved while PCIe carries at least pcie_link_pct of the link's rate: transfer_bound.
std::optional<WindowCause> DetectBusyTransfer(const WindowContext& c);

// Not starved; GPM DRAM bandwidth high with little tensor activity, or (without GPM DRAM figures)
// NVML memory utilisation high, confidence at most medium: memory_bound.
std::optional<WindowCause> DetectMemoryBound(const WindowContext& c);

// Not starved but busy less than no_host_busy_pct, with no host figures and neither GPM nor
// power showing saturation: idle/no_host_data ("GPU idle N %"), confidence low.
std::optional<WindowCause> DetectBusyNoHostData(const WindowContext& c);

// Not starved: compute_bound (confidence low when judged from GPU-Util alone). Always answers for a
// window that is not starved.
std::optional<WindowCause> DetectComputeBound(const WindowContext& c);

struct NamedWindowDetector {
  std::string_view name;  // the function's name, for test messages: "DetectHostCpuBound"
  WindowDetector detect;
};

// The detectors in the order LabelWindow tries them; the last answers for every window with
// activity readings, so the walk always ends with a label. Static storage.
std::span<const NamedWindowDetector> WindowDetectors();

}  // namespace gpuvet
