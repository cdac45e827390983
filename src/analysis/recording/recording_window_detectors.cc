// The window detectors (see recording_window_detectors.h). Every cause states the numbers that
// decided it and the threshold each was held against (AnalyzeThresholds), like the trace verdict;
// the texts here are part of the analyze goldens.
#include "analysis/recording/recording_window_detectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/units.h"

namespace gpuvet {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool Has(double v) { return std::isfinite(v); }
std::string P(double v) { return Has(v) ? fmt::format("{:.1f} %", v) : "n/a"; }
std::string Ge(double v) { return fmt::format(">= {:.1f} %", v); }
std::string Lt(double v) { return fmt::format("< {:.1f} %", v); }

std::string Metric(const WindowStats& w) { return w.gpm ? "sm_active" : "gpu_util"; }

bool Starved(const WindowContext& c) {
  return Has(c.w.activity) && c.w.activity < c.th.gpu_starved_pct;
}

bool Busy(const WindowContext& c) {
  return Has(c.w.activity) && c.w.activity >= c.th.gpu_starved_pct;
}

// GPU activity held against the starved threshold.
Evidence StarvedActivity(const WindowContext& c) {
  return {"gpu_activity (" + Metric(c.w) + ")", P(c.w.activity), Lt(c.th.gpu_starved_pct)};
}

// GPU activity held against the starved threshold from above.
Evidence BusyActivity(const WindowContext& c) {
  return {"gpu_activity (" + Metric(c.w) + ")", P(c.w.activity), Ge(c.th.gpu_starved_pct)};
}

// " in a sawtooth (…)" for a reason when the window switches often between busy and trough.
std::string Sawtooth(const WindowContext& c) {
  return c.w.transitions_pct >= c.th.sawtooth_transitions_pct
             ? fmt::format(" in a sawtooth ({} of samples switch between busy and trough)",
                           P(c.w.transitions_pct))
             : "";
}

Evidence SawtoothEvidence(const WindowContext& c) {
  return {"busy_trough_switches", P(c.w.transitions_pct),
          Ge(c.th.sawtooth_transitions_pct) + " for a sawtooth"};
}

bool SmallFiles(const WindowStats& w, const AnalyzeThresholds& th, double* avg_read) {
  if (!Has(w.read_syscalls) || !Has(w.rchar) || w.read_syscalls <= 0) return false;
  *avg_read = w.rchar / w.read_syscalls;
  bool many =
      (Has(w.opens) && w.opens >= th.opens_per_s) || w.read_syscalls >= th.read_syscalls_per_s;
  return *avg_read < th.small_read_bytes && many;
}

// The evidence both fallback labels show: no process on a GPU, the workload's CPU, idle GPUs.
std::vector<Evidence> FallbackEvidence(const WindowContext& c) {
  const WindowStats& w = c.w;
  const double fallback_cpu = FallbackCpuPct(w, c.th);
  Evidence cpu_ev{
      "workload_cpu", P(w.wl_cpu) + " of one core",
      Ge(fallback_cpu) + (fallback_cpu < c.th.fallback_cpu_pct
                              ? " (halved: tasks wait for a CPU, PSI " + P(w.psi_cpu) + ")"
                              : "")};
  Evidence gpu_ev{"gpu_activity (" + Metric(w) + ")", P(w.activity),
                  fmt::format("<= {:.1f} %", c.th.gpu_idle_pct)};
  Evidence proc_ev{"workload_processes_on_gpu", "0", "> 0"};
  return {proc_ev, cpu_ev, gpu_ev};
}

bool FallbackCpuBusy(const WindowContext& c) {
  return Has(c.w.wl_cpu) && c.w.wl_cpu >= FallbackCpuPct(c.w, c.th);
}

// The evidence of a starved window in which nothing waits (idle, none).
std::vector<Evidence> NothingWaitsEvidence(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  return {StarvedActivity(c),
          {"host_cpu_busy", P(w.cpu_busy), Lt(th.host_cpu_busy_pct)},
          {"iowait", P(w.iowait), Lt(th.iowait_pct)},
          {"busiest_thread", P(w.busiest_thread) + " of one core", Lt(th.pegged_pct)},
          SawtoothEvidence(c)};
}

// Host or workload figures in the window (a `gpuvet record`, not a GPU-only import).
bool HostData(const WindowStats& w) { return Has(w.cpu_busy) || Has(w.iowait) || Has(w.wl_cpu); }

// The GPU's own figures show it saturated: SM activity (GPM) is the activity, or the board draws
// at least power_saturated_pct of its limit.
bool Saturated(const WindowContext& c) {
  return c.w.gpm || (Has(c.w.power_pct) && c.w.power_pct >= c.th.power_saturated_pct);
}

Evidence PowerEvidence(const WindowStats& w, std::string threshold) {
  return {"power_share_of_limit", Has(w.power_pct) ? P(w.power_pct) : "not recorded",
          std::move(threshold)};
}

// Each figure as read, or "not recorded".
std::string Rec(double v, const std::string& text) { return Has(v) ? text : "not recorded"; }

constexpr NamedWindowDetector kWindowDetectors[] = {
    {"DetectCpuFallback", DetectCpuFallback},
    {"DetectFallbackIdle", DetectFallbackIdle},
    {"DetectNoActivityReadings", DetectNoActivityReadings},
    {"DetectStalled", DetectStalled},
    {"DetectBusyNotProductive", DetectBusyNotProductive},
    {"DetectHostIoBound", DetectHostIoBound},
    {"DetectHostCpuBound", DetectHostCpuBound},
    {"DetectNetworkBound", DetectNetworkBound},
    {"DetectStarvedTransfer", DetectStarvedTransfer},
    {"DetectNoHostData", DetectNoHostData},
    {"DetectIdle", DetectIdle},
    {"DetectNotLimited", DetectNotLimited},
    {"DetectUtilOverstated", DetectUtilOverstated},
    {"DetectThrottled", DetectThrottled},
    {"DetectBusyTransfer", DetectBusyTransfer},
    {"DetectMemoryBound", DetectMemoryBound},
    {"DetectBusyNoHostData", DetectBusyNoHostData},
    {"DetectComputeBound", DetectComputeBound},
};

}  // namespace

std::span<const NamedWindowDetector> WindowDetectors() { return kWindowDetectors; }

std::optional<WindowCause> DetectCpuFallback(const WindowContext& c) {
  if (!c.fallback_run || !FallbackCpuBusy(c)) return std::nullopt;
  const double fallback_cpu = FallbackCpuPct(c.w, c.th);
  WindowCause out;
  out.label = Bottleneck::kCpuFallback;
  out.reason = fmt::format(
      "the workload never appears on a GPU and uses {} of a core while "
      "the GPUs idle",
      P(c.w.wl_cpu));
  out.evidence = FallbackEvidence(c);
  out.margin = c.w.wl_cpu / fallback_cpu;
  return out;
}

std::optional<WindowCause> DetectFallbackIdle(const WindowContext& c) {
  if (!c.fallback_run || FallbackCpuBusy(c)) return std::nullopt;
  WindowCause out;
  out.label = Bottleneck::kIdle;
  out.reason = "the workload does not use the GPUs and is not busy";
  out.evidence = FallbackEvidence(c);
  out.margin = 2;
  return out;
}

std::optional<WindowCause> DetectNoActivityReadings(const WindowContext& c) {
  if (Has(c.w.activity)) return std::nullopt;
  WindowCause out;
  out.label = Bottleneck::kNone;
  out.reason = "no GPU activity readings in this window";
  out.fixed_confidence = "low";
  return out;
}

std::optional<WindowCause> DetectStalled(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  // A pinned GPU-Util with near-idle power and nothing moving in memory or over the links: the
  // SMs poll, they do not work. Power and at least one memory figure must have been recorded.
  if (!Has(w.util) || w.util < th.stalled_util_pct) return std::nullopt;
  if (!Has(w.power_pct) || w.power_pct > th.stalled_power_pct) return std::nullopt;
  if (!Has(w.mem_util) && !Has(w.dram)) return std::nullopt;
  if (Has(w.mem_util) && w.mem_util > th.stalled_mem_pct) return std::nullopt;
  if (Has(w.dram) && w.dram > th.stalled_mem_pct) return std::nullopt;
  if (Has(w.pcie) && w.pcie > th.stalled_pcie_pct) return std::nullopt;
  if (Has(w.nvlink_bps) && w.nvlink_bps > th.stalled_nvlink_bytes_per_s) return std::nullopt;
  if (w.seconds < th.stalled_min_s) return std::nullopt;
  WindowCause out;
  out.label = Bottleneck::kStalled;
  out.reason = fmt::format(
      "GPU-Util {} for {:.0f} s while the board draws {} of its power limit and memory moves "
      "nothing (memory utilisation {}, DRAM bandwidth {}): a kernel or collective is not "
      "progressing",
      P(w.util), w.seconds, P(w.power_pct), Rec(w.mem_util, P(w.mem_util)), Rec(w.dram, P(w.dram)));
  out.evidence = {
      {"gpu_util", P(w.util), Ge(th.stalled_util_pct)},
      PowerEvidence(w, fmt::format("<= {:.1f} %", th.stalled_power_pct)),
      {"mem_util", Rec(w.mem_util, P(w.mem_util)), fmt::format("<= {:.1f} %", th.stalled_mem_pct)},
      {"dram_bw_util", Rec(w.dram, P(w.dram)), fmt::format("<= {:.1f} %", th.stalled_mem_pct)},
      {"pcie_link_share", Rec(w.pcie, P(w.pcie)), fmt::format("<= {:.1f} %", th.stalled_pcie_pct)},
      {"nvlink_per_gpu", Rec(w.nvlink_bps, fmt::format("{:.1f} MB/s", w.nvlink_bps / 1e6)),
       fmt::format("<= {:.0f} MB/s", th.stalled_nvlink_bytes_per_s / 1e6)},
      {"duration", fmt::format("{:.0f} s", w.seconds),
       fmt::format(">= {:.0f} s", th.stalled_min_s)}};
  out.margin = th.stalled_power_pct / std::max(w.power_pct, 1.0);
  return out;
}

std::optional<WindowCause> DetectBusyNotProductive(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  // Busy but not productive: kernels resident (GPU-Util high) while SMs stay mostly idle.
  if (!Starved(c) || !w.gpm || !Has(w.util) || w.util < th.busy_util_pct) return std::nullopt;
  WindowCause out;
  out.label = Bottleneck::kLaunchBound;
  out.detail = Subcase::kBusyNotProductive;
  out.reason = fmt::format(
      "GPU-Util {} but SM activity only {}: tiny kernels or per-step "
      "synchronisation keep the GPU nominally busy",
      P(w.util), P(w.sm_active));
  out.evidence = {{"gpu_util", P(w.util), Ge(th.busy_util_pct)},
                  StarvedActivity(c),
                  {"sm_occupancy", P(w.occupancy), ""},
                  {"busiest_thread", P(w.busiest_thread) + " of one core", ""}};
  out.margin = th.gpu_starved_pct / std::max(w.sm_active, 1.0);
  return out;
}

std::optional<WindowCause> DetectHostIoBound(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  if (!Starved(c)) return std::nullopt;
  double avg_read = 0;
  bool small = SmallFiles(w, th, &avg_read);
  // Storage wait is host-wide: when the workload's own reads are known and next to nothing,
  // the wait belongs to another tenant and does not explain this job's starved GPU.
  const bool workload_reads_nothing = Has(w.rchar) && w.rchar < th.own_read_bytes_per_s;
  bool io = !workload_reads_nothing && ((Has(w.iowait) && w.iowait >= th.iowait_pct) ||
                                        (Has(w.psi_io) && w.psi_io >= th.psi_io_pct) ||
                                        (Has(w.disk_busy) && w.disk_busy >= th.disk_busy_pct));
  if (!io && !small) return std::nullopt;
  const std::string sawtooth = Sawtooth(c);
  std::vector<Evidence> ev = {StarvedActivity(c),
                              {"iowait", P(w.iowait), Ge(th.iowait_pct)},
                              {"psi_io_some", P(w.psi_io), Ge(th.psi_io_pct)},
                              {"busiest_disk_busy", P(w.disk_busy), Ge(th.disk_busy_pct)}};
  if (Has(w.read_syscalls) && w.read_syscalls > 0 && Has(w.rchar)) {
    ev.push_back({"avg_read_size", FormatBytes(w.rchar / w.read_syscalls),
                  fmt::format("< {}", FormatBytes(th.small_read_bytes))});
    ev.push_back({"read_syscalls_per_s", fmt::format("{:.0f}", w.read_syscalls),
                  fmt::format(">= {:.0f}", th.read_syscalls_per_s)});
  }
  if (Has(w.opens)) {
    ev.push_back(
        {"opens_per_s", fmt::format("{:.1f}", w.opens), fmt::format(">= {:.0f}", th.opens_per_s)});
  }
  if (!sawtooth.empty()) ev.push_back(SawtoothEvidence(c));
  WindowCause out;
  out.label = Bottleneck::kHostIoBound;
  out.detail = small ? Subcase::kSmallFiles : Subcase::kStorage;
  out.margin = std::max({Has(w.iowait) ? w.iowait / th.iowait_pct : 0.0,
                         Has(w.psi_io) ? w.psi_io / th.psi_io_pct : 0.0,
                         Has(w.disk_busy) ? w.disk_busy / th.disk_busy_pct : 0.0,
                         small ? th.small_read_bytes / std::max(avg_read, 1.0) : 0.0});
  out.reason = small ? fmt::format(
                           "GPU activity {} while the workload opens {} files/s and issues "
                           "{:.0f} reads/s of {} on average{}: small-file/metadata-bound input",
                           P(w.activity), Has(w.opens) ? fmt::format("{:.0f}", w.opens) : "?",
                           w.read_syscalls, FormatBytes(avg_read), sawtooth)
                     : fmt::format(
                           "GPU activity {} while tasks wait on storage: iowait {}, PSI io {}, "
                           "busiest disk {}{}",
                           P(w.activity), P(w.iowait), P(w.psi_io), P(w.disk_busy), sawtooth);
  out.evidence = std::move(ev);
  out.needs_activity = true;
  return out;
}

std::optional<WindowCause> DetectHostCpuBound(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  const RecordingMeta& meta = c.meta;
  if (!Starved(c)) return std::nullopt;
  double quota_used = meta.cpu_quota_cores && *meta.cpu_quota_cores > 0 && Has(w.wl_cpu)
                          ? w.wl_cpu / *meta.cpu_quota_cores
                          : kNaN;
  bool quota = (Has(w.cgroup_throttled) && w.cgroup_throttled >= th.cgroup_throttled_pct) ||
               (Has(quota_used) && quota_used >= th.quota_used_pct);
  bool thread = w.busiest_thread >= th.pegged_pct;
  int cpus = std::max(meta.online_cpus, 1);
  const bool contended = Has(w.psi_cpu) && w.psi_cpu >= th.psi_cpu_pct;
  bool saturated = (Has(w.cpu_busy) && w.cpu_busy >= th.host_cpu_busy_pct) ||
                   w.pegged_cores >= std::max(2.0, cpus / 2.0) || contended;
  if (!quota && !thread && !saturated) return std::nullopt;
  const std::string sawtooth = Sawtooth(c);
  std::vector<Evidence> ev = {
      StarvedActivity(c),
      {"host_cpu_busy", P(w.cpu_busy), Ge(th.host_cpu_busy_pct)},
      {"pegged_cores", fmt::format("{:.1f} of {}", w.pegged_cores, cpus),
       fmt::format(">= {:.0f} (busy >= {:.0f} %)", std::max(2.0, cpus / 2.0), th.pegged_pct)},
      {"busiest_thread", P(w.busiest_thread) + " of one core", Ge(th.pegged_pct)},
      {"workload_cpu", P(w.wl_cpu) + " of one core", ""}};
  if (Has(w.psi_cpu)) ev.push_back({"psi_cpu_some", P(w.psi_cpu), Ge(th.psi_cpu_pct)});
  if (Has(w.cgroup_throttled)) {
    ev.push_back({"cgroup_throttled", P(w.cgroup_throttled), Ge(th.cgroup_throttled_pct)});
  }
  if (Has(quota_used)) {
    ev.push_back({"quota_used",
                  P(quota_used) + fmt::format(" of {:.1f} cores", *meta.cpu_quota_cores),
                  Ge(th.quota_used_pct)});
  }
  if (!sawtooth.empty()) ev.push_back(SawtoothEvidence(c));
  // Each threshold reads as the condition that held for the detail chosen.
  auto set = [&ev](const char* name, std::string threshold) {
    for (Evidence& e : ev) {
      if (e.name == name) e.threshold = std::move(threshold);
    }
  };
  if (!quota) {
    set("cgroup_throttled", Lt(th.cgroup_throttled_pct));
    set("quota_used", Lt(th.quota_used_pct));
  }
  if (!saturated) {
    set("host_cpu_busy", Lt(th.host_cpu_busy_pct) + " (CPUs to spare)");
    set("pegged_cores", fmt::format("< {:.0f}", std::max(2.0, cpus / 2.0)));
    set("psi_cpu_some", Lt(th.psi_cpu_pct));
  }
  WindowCause out;
  out.label = Bottleneck::kHostCpuBound;
  out.needs_activity = true;
  if (quota) {
    out.detail = Subcase::kCpuQuota;
    out.reason = fmt::format(
        "GPU activity {} while the workload's cgroup CPU quota holds it back "
        "(throttled {}, quota used {}){}",
        P(w.activity), P(w.cgroup_throttled), P(quota_used), sawtooth);
    out.margin =
        std::max(Has(w.cgroup_throttled) ? w.cgroup_throttled / th.cgroup_throttled_pct : 0,
                 Has(quota_used) ? quota_used / th.quota_used_pct : 0);
  } else if (thread && !saturated) {
    out.detail = Subcase::kSingleThreadFeeder;
    out.reason = fmt::format(
        "GPU activity {} while one workload thread is pegged at {} of a core "
        "and the host has CPUs to spare (busy {}){}",
        P(w.activity), P(w.busiest_thread), P(w.cpu_busy), sawtooth);
    out.margin =
        w.busiest_thread / th.pegged_pct * (th.gpu_starved_pct / std::max(w.activity, 1.0));
  } else {
    out.detail = Subcase::kCpuSaturated;
    out.reason = fmt::format(
        "GPU activity {} while the host CPUs are saturated: busy {}, {:.1f} of {} "
        "cores pegged{}{}",
        P(w.activity), P(w.cpu_busy), w.pegged_cores, cpus,
        contended ? fmt::format(", tasks wait for a CPU {} of the time (PSI)", P(w.psi_cpu)) : "",
        sawtooth);
    out.margin = std::max({Has(w.cpu_busy) ? w.cpu_busy / th.host_cpu_busy_pct : 0,
                           w.pegged_cores / std::max(2.0, cpus / 2.0),
                           contended ? w.psi_cpu / th.psi_cpu_pct : 0}) *
                 (th.gpu_starved_pct / std::max(w.activity, 1.0));
  }
  out.evidence = std::move(ev);
  return out;
}

std::optional<WindowCause> DetectNetworkBound(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  const bool line_rate = Has(w.net_link) && w.net_link >= th.net_link_pct;
  const bool congested = Has(w.net_cnp) && w.net_cnp >= th.net_cnp_per_s;
  if (!Starved(c) || (!line_rate && !congested)) return std::nullopt;
  WindowCause out;
  out.label = Bottleneck::kCommBound;
  out.detail = Subcase::kNetwork;
  const std::string layer = w.net_port_layer == "Ethernet" ? "RoCE" : "InfiniBand";
  const std::string port = w.net_port.empty() ? "the RDMA ports"
                                              : fmt::format("{} port {} ({:g} Gb/s)", layer,
                                                            w.net_port, w.net_port_gbps);
  const std::string cnp = Has(w.net_cnp) ? fmt::format("{:.0f}", w.net_cnp) : "n/a";
  out.reason = line_rate
                   ? fmt::format(
                         "GPU activity {} while {} runs at {} of its rate{}: the ranks wait on "
                         "inter-node traffic",
                         P(w.activity), port, P(w.net_link),
                         congested ? " with " + cnp + " congestion notifications/s" : "")
                   : fmt::format(
                         "GPU activity {} while the RDMA ports signal congestion ({} congestion "
                         "notifications/s; busiest {} at {} of its rate): the fabric throttles "
                         "the senders",
                         P(w.activity), cnp, port, P(w.net_link));
  out.evidence = {
      StarvedActivity(c),
      {"busiest_rdma_port", w.net_port.empty() ? "n/a" : port, ""},
      {"rdma_port_share_of_rate", P(w.net_link), Ge(th.net_link_pct)},
      {"congestion_notifications_per_s", cnp, fmt::format(">= {:.0f}", th.net_cnp_per_s)}};
  out.margin = line_rate ? w.net_link / th.net_link_pct : w.net_cnp / th.net_cnp_per_s;
  return out;
}

std::optional<WindowCause> DetectStarvedTransfer(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  if (!Starved(c) || !Has(w.pcie) || w.pcie < th.pcie_link_pct) return std::nullopt;
  WindowCause out;
  out.label = Bottleneck::kTransferBound;
  out.reason = fmt::format("GPU activity {} while PCIe carries {} of the link's rate",
                           P(w.activity), P(w.pcie));
  out.evidence = {StarvedActivity(c), {"pcie_link_share", P(w.pcie), Ge(th.pcie_link_pct)}};
  out.margin = w.pcie / th.pcie_link_pct;
  out.needs_activity = true;
  return out;
}

std::optional<WindowCause> DetectNoHostData(const WindowContext& c) {
  const WindowStats& w = c.w;
  // An import (nvidia-smi logs) has GPU figures only: starvation is visible, its cause is not.
  if (!Starved(c) || Has(w.cpu_busy) || Has(w.iowait) || Has(w.wl_cpu)) return std::nullopt;
  WindowCause out;
  out.label = Bottleneck::kIdle;
  out.detail = Subcase::kNoHostData;
  out.reason = fmt::format(
      "GPU idle {} (GPU activity {}); the recording has no host data to say why: no host or "
      "workload figures",
      P(100 - w.activity), P(w.activity));
  out.evidence = {StarvedActivity(c),
                  {"host_cpu_busy", "not recorded", ""},
                  {"iowait", "not recorded", ""},
                  {"workload_cpu", "not recorded", ""}};
  out.fixed_confidence = "low";
  return out;
}

std::optional<WindowCause> DetectIdle(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  if (!Starved(c) || w.activity >= th.gpu_idle_pct) return std::nullopt;
  WindowCause out;
  out.label = Bottleneck::kIdle;
  out.reason = fmt::format(
      "GPU activity {} and nothing on the host is busy: no work is "
      "being given to the GPU",
      P(w.activity));
  out.evidence = NothingWaitsEvidence(c);
  out.evidence[0].threshold = Lt(th.gpu_idle_pct);
  out.margin = th.gpu_idle_pct / std::max(w.activity, 0.5);
  return out;
}

std::optional<WindowCause> DetectNotLimited(const WindowContext& c) {
  const WindowStats& w = c.w;
  if (!Starved(c)) return std::nullopt;
  bool bursty = w.transitions_pct >= c.th.sawtooth_transitions_pct;
  WindowCause out;
  out.label = Bottleneck::kNone;
  out.detail = bursty ? Subcase::kBursty : Subcase::kNone;
  out.reason = bursty ? fmt::format(
                            "GPU activity {} in bursts ({} of samples switch) with the host "
                            "idle between them: the job waits for work, not for a resource",
                            P(w.activity), P(w.transitions_pct))
                      : fmt::format(
                            "GPU activity {} with nothing waiting (host CPU {}, iowait {}, "
                            "busiest thread {}): the GPU is not the limit",
                            P(w.activity), P(w.cpu_busy), P(w.iowait), P(w.busiest_thread));
  out.evidence = NothingWaitsEvidence(c);
  out.margin = 1.5;
  return out;
}

std::optional<WindowCause> DetectUtilOverstated(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  // Without GPM, GPU-Util counts the time any kernel was resident. Pinned high while the board
  // draws a fraction of its limit, it overstates the load: the SMs are mostly not working.
  if (!Busy(c) || w.gpm || !Has(w.util) || w.util < th.busy_util_pct || !Has(w.power_pct) ||
      w.power_pct >= th.power_overstated_pct) {
    return std::nullopt;
  }
  WindowCause out;
  out.label = Bottleneck::kLaunchBound;
  out.detail = Subcase::kBusyNotProductive;
  out.reason = fmt::format(
      "GPU-Util {} overstates the load: the board draws only {} of its power limit (no GPM "
      "figures): tiny kernels or per-step synchronisation keep the GPU nominally busy",
      P(w.util), P(w.power_pct));
  out.evidence = {{"gpu_util", P(w.util), Ge(th.busy_util_pct)},
                  PowerEvidence(w, Lt(th.power_overstated_pct)),
                  {"sm_active", "not recorded (no GPM)", ""},
                  {"mem_util", Rec(w.mem_util, P(w.mem_util)), ""}};
  out.fixed_confidence = "low";
  return out;
}

std::optional<WindowCause> DetectThrottled(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  if (!Busy(c) || w.throttle_share < th.throttle_share_pct || !Has(w.clock_loss) ||
      w.clock_loss < th.clock_loss_pct) {
    return std::nullopt;
  }
  WindowCause out;
  out.label = Bottleneck::kThrottled;
  out.detail = w.thermal_share >= w.power_share && w.thermal_share >= w.hw_share ? Subcase::kThermal
               : w.power_share >= w.hw_share ? Subcase::kPowerCap
                                             : Subcase::kHwSlowdown;
  out.reason = fmt::format(
      "clock slowdown ({}) active {} of busy time; SM clock {} below "
      "maximum",
      SubcaseName(out.detail), P(w.throttle_share), P(w.clock_loss));
  out.evidence = {{"throttle_share_of_busy", P(w.throttle_share), Ge(th.throttle_share_pct)},
                  {"power_cap_share", P(w.power_share), ""},
                  {"thermal_share", P(w.thermal_share), ""},
                  {"hw_slowdown_share", P(w.hw_share), ""},
                  {"sm_clock_below_max", P(w.clock_loss), Ge(th.clock_loss_pct)}};
  out.margin = std::min(w.throttle_share / th.throttle_share_pct, w.clock_loss / th.clock_loss_pct);
  return out;
}

std::optional<WindowCause> DetectBusyTransfer(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  if (!Busy(c) || !Has(w.pcie) || w.pcie < th.pcie_link_pct) return std::nullopt;
  WindowCause out;
  out.label = Bottleneck::kTransferBound;
  out.reason = fmt::format("PCIe carries {} of the link's rate while the GPU is {} active",
                           P(w.pcie), P(w.activity));
  out.evidence = {{"pcie_link_share", P(w.pcie), Ge(th.pcie_link_pct)}, BusyActivity(c)};
  out.margin = w.pcie / th.pcie_link_pct;
  return out;
}

std::optional<WindowCause> DetectMemoryBound(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  if (!Busy(c)) return std::nullopt;
  WindowCause out;
  out.label = Bottleneck::kMemoryBound;
  if (Has(w.dram) && w.dram >= th.dram_bw_pct &&
      (!Has(w.tensor) || w.tensor < th.tensor_active_pct)) {
    out.reason = fmt::format("DRAM bandwidth {} busy while tensor cores are active {}", P(w.dram),
                             P(w.tensor));
    out.evidence = {{"dram_bw_util", P(w.dram), Ge(th.dram_bw_pct)},
                    {"tensor_active", P(w.tensor), Lt(th.tensor_active_pct)},
                    BusyActivity(c)};
    out.margin = w.dram / th.dram_bw_pct;
    return out;
  }
  if (!Has(w.dram) && Has(w.mem_util) && w.mem_util >= th.mem_util_pct) {
    out.reason = fmt::format(
        "memory controller busy {} of the time (NVML memory utilisation; no GPM "
        "DRAM figures)",
        P(w.mem_util));
    out.evidence = {{"mem_util", P(w.mem_util), Ge(th.mem_util_pct)}, BusyActivity(c)};
    out.margin = w.mem_util / th.mem_util_pct;
    out.cap_medium = true;
    return out;
  }
  return std::nullopt;
}

std::optional<WindowCause> DetectBusyNoHostData(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  // Busy part of the time with GPU figures only: nothing says the host did not hold the GPU
  // back for the rest, so it is not called compute-bound.
  if (!Busy(c) || HostData(w) || Saturated(c) || w.activity >= th.no_host_busy_pct) {
    return std::nullopt;
  }
  WindowCause out;
  out.label = Bottleneck::kIdle;
  out.detail = Subcase::kNoHostData;
  out.reason = fmt::format(
      "GPU idle {} (GPU activity {}); the recording has no host data to say why, and neither "
      "GPM nor board power ({}) shows the GPU saturated while busy",
      P(100 - w.activity), P(w.activity), Rec(w.power_pct, P(w.power_pct) + " of its limit"));
  out.evidence = {{"gpu_activity (" + Metric(w) + ")", P(w.activity),
                   fmt::format("< {:.1f} % without host data", th.no_host_busy_pct)},
                  PowerEvidence(w, Lt(th.power_saturated_pct)),
                  {"host_cpu_busy", "not recorded", ""},
                  {"iowait", "not recorded", ""},
                  {"workload_cpu", "not recorded", ""}};
  out.fixed_confidence = "low";
  return out;
}

std::optional<WindowCause> DetectComputeBound(const WindowContext& c) {
  const WindowStats& w = c.w;
  const AnalyzeThresholds& th = c.th;
  if (!Busy(c)) return std::nullopt;
  WindowCause out;
  out.label = Bottleneck::kComputeBound;
  out.evidence = {BusyActivity(c)};
  if (Has(w.tensor)) out.evidence.push_back({"tensor_active", P(w.tensor), ""});
  if (Has(w.dram)) out.evidence.push_back({"dram_bw_util", P(w.dram), Lt(th.dram_bw_pct)});
  if (Has(w.pcie)) out.evidence.push_back({"pcie_link_share", P(w.pcie), Lt(th.pcie_link_pct)});
  const bool host = HostData(w), saturated = Saturated(c);
  if (Has(w.power_pct)) {
    out.evidence.push_back(
        PowerEvidence(w, saturated && !w.gpm ? Ge(th.power_saturated_pct) : std::string("")));
  }
  out.evidence.push_back({"host_figures", host ? "recorded" : "not recorded", ""});
  if (host || saturated) {
    out.reason = fmt::format("the GPU is {} active ({}) and nothing upstream waits ({})",
                             P(w.activity), Metric(w),
                             host    ? "the host figures show no wait"
                             : w.gpm ? "SM activity shows the GPU working"
                                     : "board power " + P(w.power_pct) + " of its limit");
  } else {
    // GPU-Util alone, busy nearly all the time: compute-bound is the likely reading, not a
    // proven one.
    out.reason = fmt::format(
        "the GPU is {} active ({}), judged from GPU-Util alone: the recording has no host, GPM "
        "or saturating power figures to show that nothing upstream waits",
        P(w.activity), Metric(w));
    out.fixed_confidence = "low";
  }
  out.margin = w.activity / th.gpu_starved_pct;
  out.needs_activity = true;
  return out;
}

}  // namespace gpuvet
