// Window statistics and the walk over the window detectors (recording_window_detectors.cc, where
// each label's rule and texts live).
#include "analysis/recording/recording_labels.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <optional>
#include <utility>

#include "analysis/recording/recording_window_detectors.h"
#include "core/bottleneck.h"

namespace gpuvet {

namespace {

bool Has(double v) { return std::isfinite(v); }

// "high" when the deciding value clears its threshold by half again, else "medium"; capped at
// medium when activity is GPU-Util (coarse) and at low for short windows.
std::string Confidence(const WindowStats& w, double margin, bool needs_activity,
                       const AnalyzeThresholds& th) {
  if (static_cast<int>(w.n) < th.min_samples_for_confidence) return "low";
  std::string c = margin >= 1.5 ? "high" : "medium";
  if (needs_activity && !w.gpm && c == "high") c = "medium";
  return c;
}

// Which of the signals a window label reads were recorded in the window, and which were not: the
// `judged_from` evidence row every label carries.
Evidence JudgedFrom(const WindowStats& w) {
  const std::pair<const char*, double> signals[] = {
      {"gpu_util", w.util},       {"sm_active", w.sm_active}, {"mem_util", w.mem_util},
      {"dram_bw", w.dram},        {"power", w.power_pct},     {"pcie", w.pcie},
      {"nvlink", w.nvlink_bps},   {"host_cpu", w.cpu_busy},   {"iowait", w.iowait},
      {"workload_cpu", w.wl_cpu}, {"disk", w.disk_busy},      {"rdma", w.net_link}};
  std::string from, missing;
  for (const auto& [name, v] : signals) {
    std::string& into = Has(v) ? from : missing;
    into += (into.empty() ? "" : ", ") + std::string(name);
  }
  return {"judged_from", from.empty() ? "nothing recorded" : from,
          missing.empty() ? "" : "not recorded: " + missing};
}

}  // namespace

WindowStats StatsOf(const RecordingSignals& sig, size_t begin, size_t end,
                    const AnalyzeThresholds& th) {
  WindowStats w;
  const auto& v = sig.samples;
  end = std::min(end, v.size());
  if (begin >= end) return w;
  w.n = end - begin;
  w.activity = MeanOf(v, begin, end, &SampleSignals::activity);
  w.util = MeanOf(v, begin, end, &SampleSignals::util);
  w.sm_active = MeanOf(v, begin, end, &SampleSignals::sm_active);
  w.gpm = Has(w.sm_active) && Has(w.activity) && std::fabs(w.sm_active - w.activity) < 1e-9;
  w.occupancy = MeanOf(v, begin, end, &SampleSignals::sm_occupancy);
  w.tensor = MeanOf(v, begin, end, &SampleSignals::tensor_active);
  w.dram = MeanOf(v, begin, end, &SampleSignals::dram_bw);
  w.mem_util = MeanOf(v, begin, end, &SampleSignals::mem_util);
  w.pcie = MeanOf(v, begin, end, &SampleSignals::pcie_link_pct);
  w.power_pct = MeanOf(v, begin, end, &SampleSignals::power_pct);
  w.nvlink_bps = MeanOf(v, begin, end, &SampleSignals::nvlink_bps);
  w.cpu_busy = MeanOf(v, begin, end, &SampleSignals::cpu_busy);
  w.iowait = MeanOf(v, begin, end, &SampleSignals::iowait);
  w.psi_io = MeanOf(v, begin, end, &SampleSignals::psi_io);
  w.psi_cpu = MeanOf(v, begin, end, &SampleSignals::psi_cpu);
  w.disk_busy = MeanOf(v, begin, end, &SampleSignals::disk_busy);
  w.busiest_thread = MeanOf(v, begin, end, &SampleSignals::busiest_thread);
  w.wl_cpu = MeanOf(v, begin, end, &SampleSignals::wl_cpu);
  w.cgroup_throttled = MeanOf(v, begin, end, &SampleSignals::cgroup_throttled);
  w.rchar = MeanOf(v, begin, end, &SampleSignals::wl_rchar_bps);
  w.read_syscalls = MeanOf(v, begin, end, &SampleSignals::wl_read_syscalls);
  w.opens = MeanOf(v, begin, end, &SampleSignals::wl_opens);
  w.clock_loss = MeanOf(v, begin, end, &SampleSignals::sm_clock_loss);
  w.net_link = MeanOf(v, begin, end, &SampleSignals::net_link_pct);
  w.net_cnp = MeanOf(v, begin, end, &SampleSignals::net_cnp_per_s);
  if (!sig.net_ports.empty()) {
    std::vector<size_t> votes(sig.net_ports.size(), 0);
    for (size_t i = begin; i < end; ++i) {
      if (v[i].net_port >= 0 && static_cast<size_t>(v[i].net_port) < votes.size()) {
        ++votes[static_cast<size_t>(v[i].net_port)];
      }
    }
    size_t best = static_cast<size_t>(std::max_element(votes.begin(), votes.end()) - votes.begin());
    if (votes[best] > 0) {
      w.net_port = sig.net_ports[best];
      w.net_port_gbps = sig.net_port_gbps[best];
      w.net_port_layer = sig.net_port_layer[best];
    }
  }
  size_t troughs = 0, transitions = 0, busy = 0, thr = 0, pw = 0, therm = 0, hw = 0;
  double pegged = 0;
  for (size_t i = begin; i < end; ++i) {
    const SampleSignals& s = v[i];
    w.seconds += s.dt;
    pegged += s.pegged_cores;
    bool trough = Has(s.activity) && s.activity < th.gpu_starved_pct;
    troughs += trough;
    if (i > begin) {
      bool prev = Has(v[i - 1].activity) && v[i - 1].activity < th.gpu_starved_pct;
      transitions += prev != trough;
    }
    if (Has(s.activity) && s.activity > th.gpu_idle_pct) {
      ++busy;
      bool any = s.throttle_power || s.throttle_thermal || s.throttle_hw;
      thr += any;
      pw += s.throttle_power;
      therm += s.throttle_thermal;
      hw += s.throttle_hw;
    }
  }
  double n = static_cast<double>(w.n);
  w.pegged_cores = pegged / n;
  w.trough_share = 100.0 * static_cast<double>(troughs) / n;
  w.transitions_pct = 100.0 * static_cast<double>(transitions) / n;
  if (busy > 0) {
    double b = static_cast<double>(busy);
    w.throttle_share = 100.0 * static_cast<double>(thr) / b;
    w.power_share = 100.0 * static_cast<double>(pw) / b;
    w.thermal_share = 100.0 * static_cast<double>(therm) / b;
    w.hw_share = 100.0 * static_cast<double>(hw) / b;
  }
  return w;
}

// Halved on a contended host, where a CPU-bound job gets only part of what it asks.
double FallbackCpuPct(const WindowStats& w, const AnalyzeThresholds& th) {
  const bool contended = Has(w.psi_cpu) && w.psi_cpu >= th.psi_cpu_pct;
  return contended ? th.fallback_cpu_pct / 2 : th.fallback_cpu_pct;
}

bool IsCpuFallback(const RecordingSignals& sig, const AnalyzeThresholds& th) {
  if (sig.process_gpu_seen || sig.samples.empty()) return false;
  bool processes = false;
  for (const SampleSignals& s : sig.samples) processes |= s.has_processes;
  if (!processes) return false;
  WindowStats w = StatsOf(sig, 0, sig.samples.size(), th);
  bool gpus_idle = Has(w.activity) && w.activity <= th.gpu_idle_pct;  // no readings: no claim
  return gpus_idle && Has(w.wl_cpu) && w.wl_cpu >= FallbackCpuPct(w, th);
}

BottleneckLabel LabelWindow(const RecordingSignals& sig, size_t begin, size_t end,
                            const RecordingMeta& meta, const AnalyzeThresholds& th,
                            bool fallback_run) {
  WindowStats w = StatsOf(sig, begin, end, th);
  const WindowContext context{w, meta, th, fallback_run};
  BottleneckLabel out;
  out.seconds = w.seconds;
  for (const NamedWindowDetector& d : WindowDetectors()) {
    std::optional<WindowCause> c = d.detect(context);
    if (!c) continue;
    assert(FindBottleneckRow(c->label, c->detail) != nullptr);
    out.label = c->label;
    out.detail = c->detail;
    out.reason = std::move(c->reason);
    out.evidence = std::move(c->evidence);
    out.evidence.push_back(JudgedFrom(w));
    out.confidence = !c->fixed_confidence.empty() ? c->fixed_confidence
                                                  : Confidence(w, c->margin, c->needs_activity, th);
    if (c->cap_medium && out.confidence == "high") out.confidence = "medium";
    out.decision = std::string(DecisionFor(out.label, out.detail));
    return out;
  }
  assert(false && "the last window detectors answer for every window");
  return out;
}

}  // namespace gpuvet
