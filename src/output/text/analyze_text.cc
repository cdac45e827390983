// Analyze text renderer. Labels read like the findings of `gpuvet check` and `gpuvet trace`:
// summary line, evidence with thresholds, then what to do.
#include "output/text/analyze_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/bottleneck.h"
#include "output/forecast_render.h"
#include "output/text/severity_colour.h"
#include "util/strings.h"
#include "util/units.h"

namespace gpuvet {

namespace {

std::string Clock(double s) {
  if (!std::isfinite(s) || s > 1e9) return "?";  // garbled times: never cast infinity
  long total = std::lround(std::max(0.0, s));
  return fmt::format("{}:{:02}:{:02}", total / 3600, (total / 60) % 60, total % 60);
}

std::string Dur(double s) {
  if (s >= 3600) return fmt::format("{:.1f} h", s / 3600);
  if (s >= 120) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.1f} s", s);
}

std::string Joules(double j) {
  if (j >= 3.6e6) return fmt::format("{:.2f} kWh", j / 3.6e6);
  if (j >= 1e3) return fmt::format("{:.1f} kJ", j / 1e3);
  return fmt::format("{:.1f} J", j);
}

// "label" or "label/detail": the id of the label's row in the bottleneck table.
std::string Name(const BottleneckLabel& l) {
  const BottleneckInfo* row = FindBottleneckRow(l.label, l.detail);
  if (row) return std::string(row->id);
  return fmt::format("{}/{}", BottleneckName(l.label), SubcaseName(l.detail));
}

std::string LabelHead(const BottleneckLabel& l) {
  return fmt::format("{} ({:.1f} % of wall time, confidence {})", Name(l), l.share_pct,
                     l.confidence);
}

std::string LabelBlock(const BottleneckLabel& l) {
  std::string out = fmt::format("  {}\n    {}\n", LabelHead(l), l.reason);
  for (const Evidence& e : l.evidence) {
    out += fmt::format("      {:<30} {}{}\n", e.name, e.value,
                       e.threshold.empty() ? "" : "   (" + e.threshold + ")");
  }
  if (!l.decision.empty()) out += "    What to do: " + l.decision + "\n";
  return out;
}

std::string Header(const AnalyzeReport& r) {
  std::string out = fmt::format("gpuvet analyze: {}\n", r.source);
  out += fmt::format("  host {}; {} samples over {} at {} intervals{}\n",
                     r.host.empty() ? "?" : r.host, r.samples, Dur(r.duration_s), Dur(r.interval_s),
                     r.complete ? "" : " (recording not finished)");
  if (!r.owner.empty()) out += fmt::format("  owner: {}\n", r.owner);
  if (!r.command.empty()) {
    out += fmt::format("  command: {}{}\n", Join(r.command, " "),
                       r.exit_code ? fmt::format(" (exit code {})", *r.exit_code) : "");
  }
  std::vector<std::string> gpus;
  for (int g : r.workload_gpus) {
    std::string name = g >= 0 && static_cast<size_t>(g) < r.gpu_names.size() ? r.gpu_names[g] : "";
    gpus.push_back(fmt::format("gpu{}{}", g, name.empty() ? "" : " " + name));
  }
  out +=
      fmt::format("  judged GPUs: {}; activity from {}\n", gpus.empty() ? "none" : Join(gpus, ", "),
                  r.gpm ? "SM activity (GPM)" : "GPU-Util (no GPM: coarser)");
  for (const std::string& w : r.warnings) out += "  warning: " + w + "\n";
  if (!r.not_recorded.empty()) {
    out += fmt::format("  not recorded (never read as 0): {}\n", Join(r.not_recorded, ", "));
  }
  return out;
}

// Recorder faults, before everything else; then the kernel log events of the run.
std::string Events(const AnalyzeReport& r) {
  std::string out;
  if (!r.faults.empty()) {
    out += "faults during the recording (figures after them miss what stopped answering)\n";
    for (const AnalyzeEvent& f : r.faults) {
      out += fmt::format("  {}  {:<15} {:<6} {}\n", Clock(f.t), f.kind, f.subject, f.message);
    }
  }
  if (!r.kernel_events.empty()) {
    if (!out.empty()) out += "\n";
    out += "kernel log during the recording\n";
    for (const KernelEventGroup& k : r.kernel_events) {
      out += fmt::format(
          "  {}-{}  {} x{} {}{}: {}\n", Clock(k.first_s), Clock(k.last_s), k.kind, k.count,
          k.subject.empty() ? "" : k.subject + " ",
          k.stalls_with && r.periodic
              ? fmt::format("(in {} of {} stalls)", k.stalls_with, r.periodic->count)
              : std::string(
                    k.phases.empty() ? "" : "(phase " + std::to_string(k.phases.front() + 1) + ")"),
          k.message);
    }
  }
  return out;
}

std::string Phases(const AnalyzeReport& r) {
  if (r.phases.empty()) return "";
  std::string out = "phases\n";
  for (const AnalyzePhase& p : r.phases) {
    out += fmt::format("  {}-{}  {:<36} {:>5.1f} %   activity {:.1f} %", Clock(p.start_s),
                       Clock(p.end_s), Name(p.label), p.label.share_pct, p.gpu_activity_pct);
    if (p.host_cpu_pct) out += fmt::format("  cpu {:.1f} %", *p.host_cpu_pct);
    if (p.iowait_pct) out += fmt::format("  iowait {:.1f} %", *p.iowait_pct);
    if (std::find(r.not_recorded.begin(), r.not_recorded.end(), "workload_processes") ==
        r.not_recorded.end()) {
      out += fmt::format("  busiest thread {:.0f} %", p.busiest_thread_pct);
    }
    out += "\n";
  }
  return out;
}

std::string Details(const AnalyzeReport& r) {
  std::string out;
  if (r.periodic) {
    const PeriodicStall& p = *r.periodic;
    const bool disk =
        std::find(r.not_recorded.begin(), r.not_recorded.end(), "disk") == r.not_recorded.end();
    out += fmt::format(
        "periodic stalls: every {} for {} ({} stalls from {}, {:.1f} % of wall time); {}\n",
        Dur(p.period_s), Dur(p.stall_s), p.count, Clock(p.first_s), p.share_pct,
        disk ? fmt::format("disk writes {:.1f} MB/s during, {:.1f} MB/s outside{}",
                           p.write_bytes_per_s_during / 1e6, p.write_bytes_per_s_outside / 1e6,
                           p.write_burst ? " (write burst)" : "")
             : std::string("disk writes not recorded"));
    if (!p.cause_kind.empty()) {
      out += fmt::format("  coinciding with `{}` in {} of {} stalls\n", p.cause_message,
                         p.cause_stalls, p.count);
    }
  }
  if (r.cycle) {
    const FeedingCycle& c = *r.cycle;
    out += fmt::format(
        "feeding cycle: input arrives in bursts every {}; busy {} of each cycle ({:.0f} % duty "
        "cycle, activity {:.0f} % vs {:.0f} % between bursts), {} cycles {}-{}, idle {:.1f} % of "
        "wall time\n",
        Dur(c.period_s), Dur(c.burst_s), c.duty_pct, c.busy_level_pct, c.idle_level_pct, c.cycles,
        Clock(c.first_s), Clock(c.last_s), c.share_pct);
  }
  if (!r.imbalance.empty()) {
    out += "GPUs unlike the others\n";
    for (const GpuImbalance& g : r.imbalance) {
      out += fmt::format(
          "  gpu{:<3} {:<10} {:.1f} {} against a median of {:.1f} {} on the others "
          "({} compared)\n",
          g.gpu, SubcaseName(g.kind), g.value, g.unit, g.others_median, g.unit, Dur(g.seconds));
    }
  }
  if (!r.memory.empty()) {
    out += "memory growth\n";
    for (const MemoryGrowth& g : r.memory) {
      out += fmt::format(
          "  {:<24} {} -> {}, {}/h (r² {:.3f}){}\n", g.subject, FormatBytes(g.start_bytes),
          FormatBytes(g.end_bytes), FormatBytes(g.slope_bytes_per_s * 3600), g.r2,
          g.time_to_oom_s
              ? fmt::format(", out of memory in ~{} ({})", Dur(*g.time_to_oom_s), g.headroom_basis)
              : "");
    }
  }
  bool any_throttle = false;
  for (const GpuThrottle& t : r.throttle) {
    any_throttle |= t.power_cap_pct > 0 || t.thermal_pct > 0 || t.hw_slowdown_pct > 0;
  }
  if (any_throttle) {
    out += "throttling while busy\n";
    for (const GpuThrottle& t : r.throttle) {
      out += fmt::format(
          "  gpu{:<3} busy {}: power cap {:.1f} %, thermal {:.1f} %, HW slowdown "
          "{:.1f} %{}\n",
          t.gpu, Dur(t.busy_s), t.power_cap_pct, t.thermal_pct, t.hw_slowdown_pct,
          t.clock_loss_pct ? fmt::format(", SM clock {:.1f} % below max", *t.clock_loss_pct) : "");
    }
  }
  return out;
}

std::string Energy(const AnalyzeReport& r) {
  const EnergySummary& e = r.energy;
  if (e.method == "none" && !e.work) return "";
  std::string out = "energy and work\n";
  for (const GpuEnergy& g : e.gpus) {
    out +=
        fmt::format("  gpu{:<3} {:>10} ({}{}), {} while starved{}\n", g.gpu, Joules(g.joules),
                    g.method == "power" ? "integrated power: no energy counter" : g.method,
                    g.counter_resets ? fmt::format(", {} counter reset(s)", g.counter_resets) : "",
                    Joules(g.starved_joules),
                    g.mean_power_w ? fmt::format(", mean {:.0f} W", *g.mean_power_w) : "");
  }
  out +=
      fmt::format("  run    {:>10}, {:.1f} % of it while the GPU was starved; {:.2f} GPU-hours\n",
                  Joules(e.joules), e.starved_pct, e.gpu_hours);
  std::string unit = e.work_unit.empty() ? "units" : e.work_unit;
  if (e.work) {
    out += fmt::format("  work   {:.0f} {}", *e.work, unit);
    if (e.work_per_s) out += fmt::format(", {:.2f} {}/s", *e.work_per_s, unit);
    if (e.work_per_kj) out += fmt::format(", {:.2f} {}/kJ", *e.work_per_kj, unit);
    out += "\n";
  }
  if (e.cost) {
    out += fmt::format("  cost   ${:.2f} at ${:.2f}/GPU-hour", *e.cost, *e.price_per_gpu_hour);
    if (e.work_per_dollar) out += fmt::format(", {:.1f} {}/$", *e.work_per_dollar, unit);
    out += "\n";
  }
  return out;
}

std::string Forecast(const AnalyzeReport& r) {
  return r.forecast ? RenderForecastText(*r.forecast) : "";
}

}  // namespace

std::string AnalyzeVerdictLine(const AnalyzeReport& r) {
  std::string line = "verdict: " + LabelHead(r.verdict);
  if (!r.verdict.reason.empty()) line += ": " + r.verdict.reason;
  return line;
}

std::string RenderAnalyzeText(const AnalyzeReport& r, bool color) {
  std::string out = Header(r);
  if (std::string e = Events(r); !e.empty()) out += "\n" + e;
  if (std::string p = Phases(r); !p.empty()) out += "\n" + p;
  if (!r.labels.empty()) {
    out += "\nlabels\n";
    for (const BottleneckLabel& l : r.labels) out += LabelBlock(l);
  }
  if (std::string d = Details(r); !d.empty()) out += "\n" + d;
  if (std::string e = Energy(r); !e.empty()) out += "\n" + e;
  if (std::string f = Forecast(r); !f.empty()) out += "\n" + f;
  std::string verdict = AnalyzeVerdictLine(r);
  verdict = PaintSeverity(verdict, LabelSeverity(r.verdict.label, r.verdict.detail), color);
  out += "\n" + verdict + "\n";
  if (!r.verdict.decision.empty()) out += "what to do: " + r.verdict.decision + "\n";
  return out;
}

}  // namespace gpuvet
