// Labels one window of samples (a phase, the live window of `watch`) with the shared bottleneck
// vocabulary (core/bottleneck.h): the window's means and shares, then the first of the window
// detectors (recording_window_detectors.h) that answers, with its deciding numbers and
// thresholds, a confidence and the decision from the vocabulary table.
#pragma once

#include <cstddef>
#include <string>

#include "analysis/recording/recording_options.h"
#include "analysis/recording/recording_signals.h"
#include "core/analyze_report.h"
#include "core/recording.h"

namespace gpuvet {

// Means and shares of one window, the numbers every label reads.
struct WindowStats {
  size_t n = 0;
  double seconds = 0;
  double activity = 0, util = 0, sm_active = 0, occupancy = 0, tensor = 0, dram = 0, mem_util = 0,
         pcie = 0;
  double power_pct = 0;   // mean board power as a share of the power limit; NaN unknown
  double nvlink_bps = 0;  // mean NVLink TX + RX per GPU; NaN when not recorded
  bool gpm = false;       // activity is SM activity
  double cpu_busy = 0, iowait = 0, psi_io = 0, psi_cpu = 0, disk_busy = 0, pegged_cores = 0;
  double busiest_thread = 0, wl_cpu = 0, cgroup_throttled = 0;
  double rchar = 0, read_syscalls = 0, opens = 0;
  double trough_share = 0;     // % of samples with activity below the starved threshold
  double transitions_pct = 0;  // % of samples that switch between trough and busy
  double throttle_share = 0;   // % of busy samples with power/thermal/HW slowdown
  double power_share = 0, thermal_share = 0, hw_share = 0;
  double clock_loss = 0;  // mean % below max SM clock while busy; NaN unknown
  // RDMA ports: mean of the busiest port's share of its rate, mean congestion notifications per
  // second; NaN without ports. The port busiest most often, its rate and link layer.
  double net_link = 0, net_cnp = 0;
  std::string net_port;
  double net_port_gbps = 0;
  std::string net_port_layer;
};

// The stats of samples [begin, end) (clamped to the signals); n == 0 for an empty window.
WindowStats StatsOf(const RecordingSignals& sig, size_t begin, size_t end,
                    const AnalyzeThresholds& th);

// The workload CPU (% of one core) that makes a GPU-less job a CPU fallback rather than an idle
// one: fallback_cpu_pct, halved on a host whose tasks wait for a CPU (PSI).
double FallbackCpuPct(const WindowStats& w, const AnalyzeThresholds& th);

// The label of samples [begin, end). `fallback_run`: the whole recording is a CPU fallback (the
// workload never appeared on a GPU and the GPUs stayed idle). share_pct is left 0 for the caller.
BottleneckLabel LabelWindow(const RecordingSignals& sig, size_t begin, size_t end,
                            const RecordingMeta& meta, const AnalyzeThresholds& th,
                            bool fallback_run);

// True when the recording is a CPU fallback (see LabelWindow).
bool IsCpuFallback(const RecordingSignals& sig, const AnalyzeThresholds& th);

}  // namespace gpuvet
