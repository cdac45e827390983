// Assembly of the analyze report: signals -> phases (split, labelled, equal neighbours merged) ->
// run labels -> detectors -> verdict -> energy -> forecast.
#include "analysis/recording/recording_analyze.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>

#include "analysis/recording/recording_detectors.h"
#include "analysis/recording/recording_energy.h"
#include "analysis/recording/recording_forecast.h"
#include "analysis/recording/recording_labels.h"
#include "analysis/recording/recording_phases.h"
#include "analysis/recording/recording_signals.h"
#include "core/bottleneck.h"
#include "core/gpu_state.h"
#include "core/hw/gpu_specs.h"
#include "util/units.h"

namespace gpuvet {

namespace {

std::string Dur(double s) {
  if (s >= 3600) return fmt::format("{:.1f} h", s / 3600);
  if (s >= 120) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.1f} s", s);
}

AnalyzePhase MakePhase(const RecordingSignals& sig, size_t b, size_t e, const RecordingMeta& meta,
                       const AnalyzeThresholds& th, bool fallback) {
  AnalyzePhase p;
  const auto& v = sig.samples;
  p.start_s = v[b].t - v[b].dt;
  if (p.start_s < 0) p.start_s = 0;
  p.end_s = v[e - 1].t;
  p.label = LabelWindow(sig, b, e, meta, th, fallback);
  WindowStats w = StatsOf(sig, b, e, th);
  p.activity_metric = w.gpm ? "sm_active" : "gpu_util";
  p.gpu_activity_pct = std::isfinite(w.activity) ? w.activity : 0;
  if (std::isfinite(w.util)) p.gpu_util_pct = w.util;
  if (std::isfinite(w.cpu_busy)) p.host_cpu_pct = w.cpu_busy;
  if (std::isfinite(w.iowait)) p.iowait_pct = w.iowait;
  p.busiest_thread_pct = w.busiest_thread;
  return p;
}

// Time-order warnings, counted one sample at a time.
struct TimeOrder {
  double interval = 1;
  bool any = false;
  double prev_t = 0;
  int backwards = 0, gaps = 0;
  void Add(double t) {
    if (any) {
      double d = t - prev_t;
      if (d <= 0) ++backwards;
      if (d > 3 * interval) ++gaps;
    }
    any = true;
    prev_t = t;
  }
};

void Warnings(const RecordingMeta& meta, size_t samples, const TimeOrder& order, AnalyzeReport& r) {
  if (samples == 0) {
    r.warnings.push_back("the recording holds no samples");
    return;
  }
  if (order.backwards) {
    r.warnings.push_back(fmt::format("{} sample(s) out of time order", order.backwards));
  }
  if (order.gaps) {
    r.warnings.push_back(
        fmt::format("{} gap(s) longer than 3 intervals between samples", order.gaps));
  }
  if (!meta.end_unix_s) {
    r.warnings.push_back(
        "the recording has no end time: the recorder was killed or is still running; results "
        "cover the samples written so far");
  }
}

// The run's labels from its phases: seconds summed per label, evidence from its longest phase.
// Keyed by the label's name, so labels of equal share keep their alphabetical order.
std::vector<BottleneckLabel> Aggregate(const std::vector<AnalyzePhase>& phases, double total) {
  std::map<std::string_view, BottleneckLabel> by;
  std::map<std::string_view, double> longest;
  for (const AnalyzePhase& p : phases) {
    const BottleneckLabel& l = p.label;
    const std::string_view name = BottleneckName(l.label);
    double s = p.end_s - p.start_s;
    auto [it, fresh] = by.emplace(name, l);
    if (!fresh) it->second.seconds += l.seconds;
    if (fresh || s > longest[name]) {
      double keep = it->second.seconds;
      it->second = l;
      it->second.seconds = keep;
      longest[name] = s;
    }
  }
  std::vector<BottleneckLabel> out;
  for (auto& [name, l] : by) {
    l.share_pct = total > 0 ? 100.0 * l.seconds / total : 0;
    out.push_back(l);
  }
  return out;
}

BottleneckLabel PeriodicLabel(const PeriodicStall& p, double total, const AnalyzeThresholds& th) {
  BottleneckLabel l;
  l.label = Bottleneck::kPeriodicStall;
  l.detail = p.write_burst ? Subcase::kWriteBurst : Subcase::kNone;
  l.seconds = p.share_pct / 100.0 * total;
  l.share_pct = p.share_pct;
  l.confidence = p.count >= 5 && p.write_burst ? "high" : "medium";
  l.reason = fmt::format("GPU activity drops every {} for {} ({} stalls from {}){}",
                         Dur(p.period_s), Dur(p.stall_s), p.count, Dur(p.first_s),
                         p.write_burst ? fmt::format(", with disk writes of {:.1f} MB/s during the "
                                                     "stalls against {:.1f} MB/s outside",
                                                     p.write_bytes_per_s_during / 1e6,
                                                     p.write_bytes_per_s_outside / 1e6)
                                       : "");
  // The threshold of a write burst, and whether the stalls are one (the row used to read as a
  // criterion met even when the disk was as quiet during the stalls as outside).
  const std::string burst = fmt::format(">= {:.1f} x outside ({:.1f} MB/s) and >= 1 MB/s",
                                        th.write_burst_ratio, p.write_bytes_per_s_outside / 1e6);
  l.evidence = {
      {"period", Dur(p.period_s),
       fmt::format("start-to-start within {:.0f} %", th.periodic_jitter_pct)},
      {"stall_length", Dur(p.stall_s), "< period / 2"},
      {"stalls", std::to_string(p.count), fmt::format(">= {}", th.periodic_min_stalls)},
      {"disk_write_during_stalls", fmt::format("{:.1f} MB/s", p.write_bytes_per_s_during / 1e6),
       p.write_burst ? burst : "not a write burst (" + burst + ")"}};
  if (!p.cause_kind.empty()) {
    // The kernel says why the loop waits: that decides, ahead of the disk writes.
    l.detail = p.cause_kind == "nfs_not_responding" ? Subcase::kNfsOutage : Subcase::kKernelEvent;
    l.confidence = "high";
    l.reason += p.cause_stalls == p.count
                    ? fmt::format(", coinciding with `{}` each time", p.cause_message)
                    : fmt::format(", coinciding with `{}` in {} of {} stalls", p.cause_message,
                                  p.cause_stalls, p.count);
    l.evidence.push_back({"stalls_with_kernel_event",
                          fmt::format("{} of {} ({})", p.cause_stalls, p.count, p.cause_kind),
                          ">= half of the stalls, >= 2"});
  }
  l.decision = std::string(DecisionFor(l.label, l.detail));
  return l;
}

// periodic_stall/input_bursts from a feeding cycle. Without host figures the reason says the
// cause cannot be named from GPU activity alone.
BottleneckLabel CycleLabel(const FeedingCycle& c, double total, bool host_data,
                           const AnalyzeThresholds& th) {
  BottleneckLabel l;
  l.label = Bottleneck::kPeriodicStall;
  l.detail = Subcase::kInputBursts;
  l.seconds = c.share_pct / 100.0 * total;
  l.share_pct = c.share_pct;
  l.confidence = c.cycles >= 30 && c.regular_pct >= 99 ? "high" : "medium";
  l.reason = fmt::format(
      "input arrives in bursts every {}: the GPU is busy {} of each cycle ({:.0f} % duty cycle, "
      "activity {:.0f} % in the bursts, {:.0f} % between them) and waits the rest ({} cycles "
      "from {}){}",
      Dur(c.period_s), Dur(c.burst_s), c.duty_pct, c.busy_level_pct, c.idle_level_pct, c.cycles,
      Dur(c.first_s),
      host_data ? "" : "; the recording holds no host figures to say what paces the bursts");
  l.evidence = {{"period", Dur(c.period_s),
                 fmt::format("start-to-start within one sample for >= {:.0f} % of cycles",
                             th.cycle_regular_pct)},
                {"regular_cycles", fmt::format("{:.0f} %", c.regular_pct),
                 fmt::format(">= {:.0f} %", th.cycle_regular_pct)},
                {"burst_length", Dur(c.burst_s), ""},
                {"duty_cycle", fmt::format("{:.0f} %", c.duty_pct),
                 fmt::format("< {:.0f} %", th.cycle_max_duty_pct)},
                {"cycles", std::to_string(c.cycles), fmt::format(">= {}", th.cycle_min_bursts)},
                {"busy_vs_idle_activity",
                 fmt::format("{:.0f} % vs {:.0f} %", c.busy_level_pct, c.idle_level_pct),
                 fmt::format("levels >= {:.0f} points apart", th.cycle_min_amplitude_pct)}};
  l.decision = std::string(DecisionFor(l.label, l.detail));
  return l;
}

std::string ReasonBits(uint64_t bits) {
  std::vector<std::string> names;
  if (bits & clock_reason::kSwPowerCap) names.push_back("power cap");
  if (bits & (clock_reason::kSwThermalSlowdown | clock_reason::kHwThermalSlowdown)) {
    names.push_back("thermal slowdown");
  }
  if (bits & clock_reason::kHwSlowdown) names.push_back("HW slowdown");
  if (bits & clock_reason::kHwPowerBrakeSlowdown) names.push_back("power brake");
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// gpu_imbalance/<kind> of the first (most severe) GPU unlike the others.
BottleneckLabel ImbalanceLabel(const std::vector<GpuImbalance>& v, const RecordingMeta& meta,
                               const AnalyzeThresholds& th) {
  const GpuImbalance& g = v.front();
  BottleneckLabel l;
  l.label = Bottleneck::kGpuImbalance;
  l.detail = g.kind;
  l.seconds = g.seconds;
  l.share_pct = g.share_pct;
  l.confidence = g.seconds >= th.min_samples_for_confidence * meta.interval_s ? "high" : "medium";
  const size_t n = meta.gpus.size();
  std::string what;
  switch (g.kind) {
    case Subcase::kIdleGpu:
      what = fmt::format("gpu{} idles at {:.1f} % activity while the other GPUs work at {:.1f} %",
                         g.gpu, g.value, g.others_median);
      break;
    case Subcase::kSlowGpu:
      what = g.unit == "MHz"
                 ? fmt::format(
                       "gpu{} runs at {:.0f} MHz SM clock while busy, {:.0f} % below the "
                       "other GPUs' {:.0f} MHz",
                       g.gpu, g.value, 100 * (1 - g.value / g.others_median), g.others_median)
                 : fmt::format(
                       "gpu{} is slowed {:.0f} % of its busy time against {:.0f} % on the "
                       "other GPUs",
                       g.gpu, g.value, g.others_median);
      if (g.clock_event_reasons) what += " (" + ReasonBits(*g.clock_event_reasons) + ")";
      what += ": every synchronous step waits for it";
      break;
    case Subcase::kStraggler:
      what = fmt::format(
          "gpu{} is busy {:.1f} % of the time while the other GPUs are at {:.1f} %: they wait for "
          "it",
          g.gpu, g.value, g.others_median);
      break;
    default:
      what = fmt::format(
          "gpu{} runs at {:.0f} C while busy, {:.0f} C above the other GPUs' "
          "{:.0f} C",
          g.gpu, g.value, g.value - g.others_median, g.others_median);
  }
  l.reason = fmt::format("{} (one of {} GPUs, over {} where most GPUs work)", what,
                         std::max<size_t>(n, v.size()), Dur(g.seconds));
  l.evidence = {
      {"gpu", fmt::format("gpu{}", g.gpu), ""},
      {"value", fmt::format("{:.1f} {}", g.value, g.unit), ""},
      {"others_median", fmt::format("{:.1f} {}", g.others_median, g.unit), ""},
      {"compared_over", Dur(g.seconds),
       fmt::format(">= {:.0f} % of the run with most GPUs busy", th.imbalance_min_share_pct)}};
  if (v.size() > 1) l.evidence.push_back({"also_unlike", std::to_string(v.size() - 1), ""});
  l.decision = std::string(DecisionFor(l.label, l.detail));
  return l;
}

BottleneckLabel LeakLabel(const std::vector<MemoryGrowth>& growth, double total,
                          const AnalyzeThresholds& th) {
  const MemoryGrowth& g = growth.front();
  BottleneckLabel l;
  l.label = Bottleneck::kMemoryLeak;
  l.detail = FindSubcase(g.kind).value_or(Subcase::kNone);  // host_rss, gpu_memory
  l.seconds = total;
  l.share_pct = 100;
  l.confidence = g.r2 >= 0.95 ? "high" : "medium";
  l.reason = fmt::format(
      "{} {} grows {}/h ({} -> {}){}", g.subject,
      l.detail == Subcase::kHostRss ? "RSS" : "memory in use",
      FormatBytes(g.slope_bytes_per_s * 3600), FormatBytes(g.start_bytes), FormatBytes(g.end_bytes),
      g.time_to_oom_s ? ", out of memory in about " + Dur(*g.time_to_oom_s) : "");
  l.evidence = {{"slope", FormatBytes(g.slope_bytes_per_s * 3600) + "/h", ""},
                {"fit_r2", fmt::format("{:.3f}", g.r2), fmt::format(">= {:.2f}", th.leak_r2)},
                {"growth", FormatBytes(g.end_bytes - g.start_bytes),
                 fmt::format(">= {:.0f} % of start and >= {}", th.leak_growth_pct,
                             FormatBytes(th.leak_min_bytes))}};
  if (g.time_to_oom_s)
    l.evidence.push_back({"time_to_oom", Dur(*g.time_to_oom_s), g.headroom_basis});
  if (growth.size() > 1) {
    l.evidence.push_back({"also_growing", std::to_string(growth.size() - 1), ""});
  }
  l.decision = std::string(DecisionFor(l.label));
  return l;
}

// The run-level throttled label of the worst GPU; nullopt when no GPU slows down for
// throttle_report_pct of its busy time.
std::optional<BottleneckLabel> ThrottleLabel(const std::vector<GpuThrottle>& t, double total,
                                             const AnalyzeThresholds& th) {
  BottleneckLabel l;
  const GpuThrottle* worst = nullptr;
  double worst_share = 0;
  for (const GpuThrottle& g : t) {
    double share = std::max({g.power_cap_pct, g.thermal_pct, g.hw_slowdown_pct});
    if (share > worst_share) worst = &g, worst_share = share;
  }
  if (!worst || worst_share < th.throttle_report_pct) return std::nullopt;
  l.label = Bottleneck::kThrottled;
  l.detail =
      worst->thermal_pct >= worst->power_cap_pct && worst->thermal_pct >= worst->hw_slowdown_pct
          ? Subcase::kThermal
      : worst->power_cap_pct >= worst->hw_slowdown_pct ? Subcase::kPowerCap
                                                       : Subcase::kHwSlowdown;
  l.seconds = worst_share / 100.0 * worst->busy_s;
  l.share_pct = total > 0 ? 100.0 * l.seconds / total : 0;
  l.confidence =
      worst->clock_loss_pct && *worst->clock_loss_pct >= th.clock_loss_pct ? "high" : "medium";
  l.reason = fmt::format("gpu{} ran with {} slowdown {:.1f} % of its busy time{}", worst->gpu,
                         SubcaseName(l.detail), worst_share,
                         worst->clock_loss_pct ? fmt::format(", SM clock {:.1f} % below maximum",
                                                             *worst->clock_loss_pct)
                                               : "");
  l.evidence = {{"slowdown_share_of_busy", fmt::format("{:.1f} %", worst_share),
                 fmt::format(">= {:.1f} %", th.throttle_report_pct)},
                {"busy_time", Dur(worst->busy_s), ""}};
  if (worst->clock_loss_pct) {
    l.evidence.push_back({"sm_clock_below_max", fmt::format("{:.1f} %", *worst->clock_loss_pct),
                          fmt::format(">= {:.1f} %", th.clock_loss_pct)});
  }
  l.decision = std::string(DecisionFor(l.label, l.detail));
  return l;
}

// Recorder faults as report events, by time.
std::vector<AnalyzeEvent> Faults(const std::vector<RecordingEvent>& events) {
  std::vector<AnalyzeEvent> out;
  for (const RecordingEvent& e : events) {
    if (!IsRecorderFault(e.kind)) continue;
    out.push_back({e.t, RecordingEventKindId(e.kind), e.subject, e.message});
  }
  return out;
}

// Kernel events grouped by kind and subject (NFS "OK" lines end outages: not grouped), each
// placed on the stalls (± slack) and phases it fell in.
std::vector<KernelEventGroup> GroupKernelEvents(const std::vector<RecordingEvent>& events,
                                                const std::optional<PeriodicStall>& periodic,
                                                const std::vector<AnalyzePhase>& phases,
                                                double slack) {
  std::vector<KernelEventGroup> out;
  std::vector<std::vector<char>> in_stall;
  for (const RecordingEvent& e : events) {
    if (IsRecorderFault(e.kind) || e.kind == RecordingEventKind::kNfsOk) continue;
    const std::string kind = RecordingEventKindId(e.kind);
    size_t g = 0;
    while (g < out.size() && !(out[g].kind == kind && out[g].subject == e.subject)) ++g;
    if (g == out.size()) {
      if (out.size() >= 64) continue;  // a flood of distinct subjects: the first 64 are enough
      KernelEventGroup k;
      k.kind = kind;
      k.subject = e.subject;
      k.message = e.message;
      k.first_s = e.t;
      out.push_back(std::move(k));
      in_stall.emplace_back(periodic ? periodic->stalls.size() : 0, 0);
    }
    KernelEventGroup& k = out[g];
    ++k.count;
    k.last_s = e.t;
    if (periodic) {
      for (size_t i = 0; i < periodic->stalls.size(); ++i) {
        const auto& [b, end] = periodic->stalls[i];
        if (e.t >= b - slack && e.t <= end + slack) in_stall[g][i] = 1;
      }
    }
    for (size_t i = 0; i < phases.size(); ++i) {
      if (e.t >= phases[i].start_s && e.t <= phases[i].end_s &&
          std::find(k.phases.begin(), k.phases.end(), static_cast<int>(i)) == k.phases.end()) {
        k.phases.push_back(static_cast<int>(i));
      }
    }
  }
  for (size_t g = 0; g < out.size(); ++g) {
    out[g].stalls_with = static_cast<int>(std::count(in_stall[g].begin(), in_stall[g].end(), 1));
  }
  return out;
}

// The kernel event that explains the periodic stalls: the group inside the most stalls, when
// that is at least half of them and at least two (NFS first on a tie: it names the server).
void FindStallCause(const std::vector<KernelEventGroup>& groups, PeriodicStall& p) {
  const KernelEventGroup* best = nullptr;
  for (const KernelEventGroup& g : groups) {
    if (g.stalls_with < 2 || 2 * g.stalls_with < p.count) continue;
    if (!best || g.stalls_with > best->stalls_with ||
        (g.stalls_with == best->stalls_with && g.kind == "nfs_not_responding")) {
      best = &g;
    }
  }
  if (!best) return;
  p.cause_kind = best->kind;
  p.cause_message = best->message;
  p.cause_stalls = best->stalls_with;
}

// The advice a recorder fault puts before everything else.
std::string FaultDecision(const std::vector<AnalyzeEvent>& faults) {
  for (const AnalyzeEvent& f : faults) {
    if (f.kind == "gpu_lost") {
      return fmt::format(
          "First the node: {} was lost at {} s into the run; run `gpuvet check` and drain the "
          "node if it fails. The figures after that time miss that GPU.",
          f.subject, static_cast<long>(f.t));
    }
  }
  for (const AnalyzeEvent& f : faults) {
    if (f.kind == "nvml_hung") {
      return fmt::format(
          "First the node: an NVML call hung at {} s into the run (the GPU or its driver stopped "
          "answering); run `gpuvet check`. GPU figures are missing while it hung.",
          static_cast<long>(f.t));
    }
  }
  return "";
}

// The series a recording can hold, each with the test of one sample: the report lists those no
// sample holds (AnalyzeReport::not_recorded).
struct SeriesPresence {
  const char* id;
  bool (*in)(const Sample& s);
};

template <typename F>
bool AnyGpu(const Sample& s, F f) {
  return std::any_of(s.gpus.begin(), s.gpus.end(), f);
}

constexpr SeriesPresence kSeries[] = {
    {"gpu_util",
     [](const Sample& s) {
       return AnyGpu(s, [](const GpuSample& g) { return g.util_pct.has_value(); });
     }},
    {"sm_active",
     [](const Sample& s) {
       return AnyGpu(s, [](const GpuSample& g) { return g.sm_active_pct.has_value(); });
     }},
    {"mem_util",
     [](const Sample& s) {
       return AnyGpu(s, [](const GpuSample& g) { return g.mem_util_pct.has_value(); });
     }},
    {"power",
     [](const Sample& s) {
       return AnyGpu(s, [](const GpuSample& g) { return g.power_w.has_value(); });
     }},
    {"throttle_reasons",
     [](const Sample& s) {
       return AnyGpu(s, [](const GpuSample& g) { return g.clock_event_reasons.has_value(); });
     }},
    {"sm_clock",
     [](const Sample& s) {
       return AnyGpu(s, [](const GpuSample& g) { return g.sm_clock_mhz.has_value(); });
     }},
    {"temperature",
     [](const Sample& s) {
       return AnyGpu(s, [](const GpuSample& g) { return g.temperature_c.has_value(); });
     }},
    {"memory_used",
     [](const Sample& s) {
       return AnyGpu(s, [](const GpuSample& g) { return g.memory_used_bytes.has_value(); });
     }},
    {"pcie_bytes",
     [](const Sample& s) {
       return AnyGpu(s, [](const GpuSample& g) {
         return g.pcie_tx_bytes_per_s || g.pcie_rx_bytes_per_s || g.gpm_pcie_tx_bytes_per_s ||
                g.gpm_pcie_rx_bytes_per_s;
       });
     }},
    {"nvlink_bytes",
     [](const Sample& s) {
       return AnyGpu(s, [](const GpuSample& g) {
         return g.nvlink_tx_bytes_per_s || g.nvlink_rx_bytes_per_s;
       });
     }},
    {"host_cpu", [](const Sample& s) { return s.host.cpu_user_pct || s.host.cpu_system_pct; }},
    {"iowait", [](const Sample& s) { return s.host.cpu_iowait_pct.has_value(); }},
    {"disk", [](const Sample& s) { return !s.host.disks.empty(); }},
    {"network", [](const Sample& s) { return !s.host.nets.empty(); }},
    {"rdma", [](const Sample& s) { return !s.host.ib_ports.empty(); }},
    {"workload_processes", [](const Sample& s) { return !s.processes.empty(); }},
};
constexpr size_t kSeriesCount = std::size(kSeries);

// While most recorded GPUs show the stalled shape in a sample (GPU-Util pinned, power near idle),
// the time each GPU is not spinning with them: idle (below the imbalance idle threshold) or gone
// from the sample. Streams: O(GPUs), not O(samples).
struct StallWatch {
  double stall_s = 0;
  std::map<int, double> not_spinning_s;
  void Add(const RecordingMeta& meta, const Sample& s, const AnalyzeThresholds& th) {
    int pinned = 0;
    std::map<int, const GpuSample*> by;
    for (const GpuSample& g : s.gpus) by[g.gpu] = &g;
    for (const RecordedGpu& rg : meta.gpus) {
      auto it = by.find(rg.index);
      if (it == by.end() || !rg.power_limit_w || *rg.power_limit_w <= 0) continue;
      const GpuSample& g = *it->second;
      if (g.util_pct && *g.util_pct >= th.stalled_util_pct && g.power_w &&
          100.0 * *g.power_w / *rg.power_limit_w <= th.stalled_power_pct) {
        ++pinned;
      }
    }
    if (pinned < 2 || 2 * pinned < static_cast<int>(meta.gpus.size())) return;
    const double dt = s.interval_s > 0 ? s.interval_s : meta.interval_s;
    stall_s += dt;
    for (const RecordedGpu& rg : meta.gpus) {
      auto it = by.find(rg.index);
      const bool gone = it == by.end() || !it->second->util_pct;
      if (gone || *it->second->util_pct < th.imbalance_idle_pct) not_spinning_s[rg.index] += dt;
    }
  }
};

// When the GPUs stall and one recorded GPU is not spinning with them (idle or gone for at least
// half the stalled samples, and it alone: fewer than a quarter of the GPUs), or a gpu_lost fault
// names one, that GPU's rank is the likely one missing from the collective: named in the stalled
// labels' reason, evidence and decision.
void NameStallCulprit(const AnalyzeReport& r, const StallWatch& watch, size_t gpus,
                      std::vector<BottleneckLabel>& labels) {
  std::string culprit, why;
  std::vector<int> odd;
  for (const auto& [g, secs] : watch.not_spinning_s) {
    if (watch.stall_s > 0 && 2 * secs >= watch.stall_s) odd.push_back(g);
  }
  if (!odd.empty() && odd.size() * 4 < std::max<size_t>(gpus, 4)) {
    culprit = fmt::format("gpu{}", odd.front());
    why = fmt::format("idle or gone {:.0f} s of the {:.0f} s the others spin",
                      watch.not_spinning_s.at(odd.front()), watch.stall_s);
  }
  for (const AnalyzeEvent& f : r.faults) {
    if (culprit.empty() && f.kind == "gpu_lost") {
      culprit = f.subject;
      why = fmt::format("lost at {} s into the run", static_cast<long>(f.t));
    }
  }
  if (culprit.empty()) return;
  for (BottleneckLabel& l : labels) {
    if (l.label != Bottleneck::kStalled) continue;
    l.reason += fmt::format(
        "; {} is not spinning with the others ({}): its rank is the likely one missing from the "
        "collective",
        culprit, why);
    l.evidence.push_back({"likely_culprit", culprit, why});
    l.decision =
        fmt::format("Start with {}: check the process of that rank first. ", culprit) + l.decision;
  }
}

}  // namespace

struct RecordingAnalysis::State {
  RecordingMeta meta;
  AnalyzeOptions options;
  size_t expected = 0;
  WorkloadGpuSurvey survey;
  MemoryGrowthDetector memory;
  // Built at the first Add, when the survey is complete.
  std::unique_ptr<SignalSeries> signals;
  std::unique_ptr<ThrottleSummary> throttle;
  std::unique_ptr<GpuImbalanceDetector> imbalance;
  std::unique_ptr<EnergyAccount> energy;
  std::vector<int> gpus;
  TimeOrder order;
  size_t samples = 0;
  std::array<bool, kSeriesCount> present{};  // kSeries seen in some sample
  StallWatch stall_watch;

  State(const RecordingMeta& m, const AnalyzeOptions& o, size_t n)
      : meta(m),
        options(o),
        expected(n),
        survey(meta, options.thresholds),
        memory(meta, options.thresholds) {
    order.interval = meta.interval_s > 0 ? meta.interval_s : 1;
  }
  void Start() {
    gpus = survey.Result();
    const AnalyzeThresholds& th = options.thresholds;
    signals = std::make_unique<SignalSeries>(meta, gpus, th, expected);
    memory.StartFits(gpus);
    throttle = std::make_unique<ThrottleSummary>(meta, gpus, th);
    imbalance = std::make_unique<GpuImbalanceDetector>(meta, gpus, th);
    energy = std::make_unique<EnergyAccount>(meta, gpus, th);
  }
};

RecordingAnalysis::RecordingAnalysis(const RecordingMeta& meta, const AnalyzeOptions& options,
                                     size_t expected_samples)
    : state_(std::make_unique<State>(meta, options, expected_samples)) {}

RecordingAnalysis::~RecordingAnalysis() = default;

void RecordingAnalysis::Survey(const Sample& s) {
  state_->survey.Add(s);
  state_->memory.Survey(s);
}

void RecordingAnalysis::Add(const Sample& s) {
  State& st = *state_;
  if (!st.signals) st.Start();
  st.signals->Add(s);
  st.memory.Add(s);
  st.throttle->Add(s);
  st.imbalance->Add(s);
  st.energy->Add(s);
  st.order.Add(s.t);
  ++st.samples;
  for (size_t i = 0; i < kSeriesCount; ++i) {
    if (!st.present[i]) st.present[i] = kSeries[i].in(s);
  }
  st.stall_watch.Add(st.meta, s, st.options.thresholds);
}

AnalyzeReport RecordingAnalysis::Finish(const std::vector<RecordingEvent>& events,
                                        const std::vector<std::string>& input_warnings) {
  State& st = *state_;
  if (!st.signals) st.Start();
  const AnalyzeOptions& options = st.options;
  const AnalyzeThresholds& th = options.thresholds;
  AnalyzeReport r;
  const RecordingMeta& m = st.meta;
  r.host = m.host;
  if (auto it = m.notes.find("owner"); it != m.notes.end()) r.owner = it->second;
  r.producer = m.producer;
  r.command = m.command;
  for (const RecordedGpu& g : m.gpus) r.gpu_names.push_back(g.name);
  r.start_unix_s = m.start_unix_s;
  r.interval_s = m.interval_s;
  r.samples = st.samples;
  r.exit_code = m.exit_code;
  r.complete = m.end_unix_s.has_value();
  r.warnings = input_warnings;
  Warnings(m, st.samples, st.order, r);
  for (size_t i = 0; i < kSeriesCount; ++i) {
    if (st.samples > 0 && !st.present[i]) r.not_recorded.push_back(kSeries[i].id);
  }

  RecordingSignals sig = st.signals->Finish();
  if (sig.step > 1) {
    r.warnings.push_back(fmt::format(
        "{} samples analysed at {} samples per step ({:.3g} s): phases, stalls and labels are "
        "resolved to one step; energy, throttling and memory growth use every sample",
        st.samples, sig.step, sig.step * (m.interval_s > 0 ? m.interval_s : 1.0)));
  }
  r.workload_gpus = sig.workload_gpus;
  r.gpm = sig.gpm;
  double total = 0;
  for (const SampleSignals& s : sig.samples) total += s.dt;
  r.duration_s =
      m.end_unix_s && *m.end_unix_s > m.start_unix_s ? *m.end_unix_s - m.start_unix_s : total;
  if (sig.samples.empty()) {
    r.faults = Faults(events);
    r.kernel_events = GroupKernelEvents(events, std::nullopt, {}, 0);
    r.verdict = {
        Bottleneck::kNone, Subcase::kNone, 0, 0, "low", "the recording holds no samples", {}, ""};
    r.verdict.decision = FaultDecision(r.faults);
    return r;
  }

  bool fallback = IsCpuFallback(sig, th);
  std::vector<std::pair<size_t, size_t>> ranges =
      SplitPhases(sig.samples, m.interval_s * sig.step, th);
  // Label each range, then merge neighbours with the same label and detail and label the merged
  // range again (its evidence then covers the whole stretch).
  std::vector<std::pair<size_t, size_t>> merged;
  std::vector<BottleneckLabel> first;
  for (auto [b, e] : ranges) {
    BottleneckLabel l = LabelWindow(sig, b, e, m, th, fallback);
    if (!merged.empty() && first.back().label == l.label && first.back().detail == l.detail) {
      merged.back().second = e;
    } else {
      merged.emplace_back(b, e);
      first.push_back(l);
    }
  }
  for (auto [b, e] : merged) r.phases.push_back(MakePhase(sig, b, e, m, th, fallback));
  for (AnalyzePhase& p : r.phases) {
    p.label.share_pct = total > 0 ? 100.0 * p.label.seconds / total : 0;
  }

  r.labels = Aggregate(r.phases, total);
  r.periodic = DetectPeriodicStalls(sig, th);
  r.faults = Faults(events);
  r.kernel_events =
      GroupKernelEvents(events, r.periodic, r.phases, 2 * (m.interval_s > 0 ? m.interval_s : 1));
  if (r.periodic) FindStallCause(r.kernel_events, *r.periodic);
  if (r.periodic) r.labels.push_back(PeriodicLabel(*r.periodic, total, th));
  if (!r.periodic) r.cycle = DetectFeedingCycle(sig, th);
  if (r.cycle) {
    bool host_data =
        std::any_of(sig.samples.begin(), sig.samples.end(), [](const SampleSignals& x) {
          return std::isfinite(x.cpu_busy) || std::isfinite(x.wl_cpu);
        });
    r.labels.push_back(CycleLabel(*r.cycle, total, host_data, th));
  }
  r.imbalance = st.imbalance->Result(total);
  if (!r.imbalance.empty()) r.labels.push_back(ImbalanceLabel(r.imbalance, m, th));
  r.memory = st.memory.Result();
  if (!r.memory.empty()) r.labels.push_back(LeakLabel(r.memory, total, th));
  r.throttle = st.throttle->Result();
  // No slowdown reasons in the file: no per-GPU shares (0 % would read as "not throttled").
  if (std::find(r.not_recorded.begin(), r.not_recorded.end(), "throttle_reasons") !=
      r.not_recorded.end()) {
    r.throttle.clear();
  }
  bool phase_throttled =
      std::any_of(r.labels.begin(), r.labels.end(),
                  [](const BottleneckLabel& l) { return l.label == Bottleneck::kThrottled; });
  if (!phase_throttled) {
    std::optional<BottleneckLabel> t = ThrottleLabel(r.throttle, total, th);
    if (t) r.labels.push_back(*t);
  }
  std::stable_sort(
      r.labels.begin(), r.labels.end(),
      [](const BottleneckLabel& a, const BottleneckLabel& b) { return a.share_pct > b.share_pct; });
  NameStallCulprit(r, st.stall_watch, m.gpus.size(), r.labels);
  for (AnalyzePhase& p : r.phases) {
    if (p.label.label != Bottleneck::kStalled) continue;
    std::vector<BottleneckLabel> one = {p.label};
    NameStallCulprit(r, st.stall_watch, m.gpus.size(), one);
    p.label = one.front();
  }

  // The verdict: a CPU fallback; else the waiting label (a phase bottleneck, periodic stalls,
  // run-level throttling that costs clock) with the largest share of wall time, when it covers
  // enough of the run; else a leak; else the largest phase label.
  const BottleneckLabel* v = nullptr;
  for (const BottleneckLabel& l : r.labels) {
    if (l.label == Bottleneck::kCpuFallback) v = &l;
  }
  // A hang outranks every slowness: nothing else matters while the job does not progress.
  for (const BottleneckLabel& l : r.labels) {
    if (!v && l.label == Bottleneck::kStalled && l.share_pct >= th.verdict_min_share_pct) v = &l;
  }
  for (const BottleneckLabel& l : r.labels) {  // sorted by share: the first that qualifies wins
    if (v) break;
    // A hot GPU that still holds its clock is a warning, not yet what the job waits on.
    if (l.label == Bottleneck::kGpuImbalance && l.detail == Subcase::kHotGpu) continue;
    bool waiting =
        l.label == Bottleneck::kPeriodicStall ||
        (l.label == Bottleneck::kThrottled && (phase_throttled || l.confidence == "high")) ||
        (l.label != Bottleneck::kMemoryLeak && l.label != Bottleneck::kThrottled &&
         IsBottleneck(l.label));  // the label's severity column (core/bottleneck)
    // Periodic stalls qualify at any share: they passed a strict regularity test and are the
    // one thing a healthy compute-bound job still waits on.
    if (waiting &&
        (l.share_pct >= th.verdict_min_share_pct || l.label == Bottleneck::kPeriodicStall)) {
      v = &l;
    }
  }
  for (const BottleneckLabel& l : r.labels) {
    if (!v && l.label == Bottleneck::kMemoryLeak) v = &l;
  }
  for (const BottleneckLabel& l : r.labels) {
    if (!v && l.label != Bottleneck::kPeriodicStall && l.label != Bottleneck::kThrottled &&
        l.label != Bottleneck::kGpuImbalance) {
      v = &l;
    }
  }
  if (!v) v = &r.labels.front();
  r.verdict = *v;
  if (std::string first = FaultDecision(r.faults); !first.empty()) {
    // Not "nothing to fix": what was measured after the fault is not the job's whole story.
    r.verdict.confidence = "low";
    r.verdict.reason += fmt::format(" ({} recorder fault{} during the run: see faults)",
                                    r.faults.size(), r.faults.size() == 1 ? "" : "s");
    r.verdict.decision = first + " Then: " + r.verdict.decision;
  }

  r.energy = st.energy->Result(total, options.price_per_gpu_hour);
  if (options.target_gpu) {
    const RecordedGpu* current = nullptr;
    for (const RecordedGpu& g : m.gpus) {
      if (!sig.workload_gpus.empty() && g.index == sig.workload_gpus.front()) current = &g;
    }
    if (!current && !m.gpus.empty()) current = &m.gpus.front();
    ForecastInputs in;
    in.signals = &sig;
    if (options.trace_budget) in.trace = &*options.trace_budget;
    in.trace_gpu = options.trace_gpu;
    in.trace_label = options.trace_label;
    r.forecast = ForecastUpgrade(r.phases, r.periodic, current, *options.target_gpu, in);
    if (!r.forecast) {
      r.warnings.push_back(
          fmt::format("unknown target GPU '{}' (known: {})", *options.target_gpu, GpuSpecKeys()));
    }
  }
  return r;
}

AnalyzeReport AnalyzeRecording(const Recording& rec, const AnalyzeOptions& options) {
  RecordingAnalysis a(rec.meta, options, rec.samples.size());
  for (const Sample& s : rec.samples) a.Survey(s);
  for (const Sample& s : rec.samples) a.Add(s);
  return a.Finish(rec.events, {});
}

LiveVerdict VerdictForWindow(const RecordingMeta& meta, const std::vector<Sample>& recent) {
  if (recent.empty()) return {Bottleneck::kNone, Subcase::kNone, "no samples yet", ""};
  AnalyzeThresholds th;
  Recording rec;
  rec.meta = meta;
  rec.samples = recent;
  RecordingSignals sig = ComputeSignals(rec, th);
  // Live, the stalled shape counts once it fills the whole live window of at least 5 samples
  // (watch: 30 s, the record status line: 10 samples); the reason says for how long.
  double window_s = 0;
  for (const SampleSignals& x : sig.samples) window_s += x.dt;
  if (sig.samples.size() >= 5) th.stalled_min_s = std::min(th.stalled_min_s, window_s * 0.99);
  BottleneckLabel l = LabelWindow(sig, 0, sig.samples.size(), meta, th, IsCpuFallback(sig, th));
  return {l.label, l.detail, l.reason, l.decision};
}

}  // namespace gpuvet
