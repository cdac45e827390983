// Trace text renderer. The findings section is the check renderer's own layout (RenderFindings
// from text_renderer.h), so both commands read alike.
#include "output/text/trace_text.h"

#include <fmt/format.h>

#include "core/bottleneck.h"
#include "core/report.h"
#include "output/forecast_render.h"
#include "output/text/severity_colour.h"
#include "output/text/text_renderer.h"
#include "util/strings.h"
#include "util/units.h"

namespace gpuvet {

namespace {

std::string Dur(int64_t ns) {
  double v = static_cast<double>(ns);
  if (ns >= 1'000'000'000) return fmt::format("{:.2f} s", v / 1e9);
  if (ns >= 1'000'000) return fmt::format("{:.1f} ms", v / 1e6);
  return fmt::format("{:.1f} µs", v / 1e3);
}

// Long C++ kernel names are cut to keep one kernel per line.
std::string Short(const std::string& name, size_t width) {
  return name.size() <= width ? name : name.substr(0, width - 3) + "...";
}

std::string VerdictText(const TraceVerdict& v) {
  switch (v.label) {
    case Bottleneck::kNoGpuActivity:
    case Bottleneck::kUnsupportedDevice:
      return std::string(BottleneckName(v.label));
    case Bottleneck::kInsufficientData:
      return fmt::format("{} (too little GPU activity)", BottleneckName(v.label));
    case Bottleneck::kCountersOnly:
      return fmt::format("{} (kernel counters, no timeline)", BottleneckName(v.label));
    default:
      break;
  }
  return fmt::format("{} ({:.1f} % of the {}, confidence {})", BottleneckName(v.label), v.share_pct,
                     v.share_of == "roofline_time"  ? "roofline time"
                     : v.share_of == "trace_window" ? "traced window"
                                                    : "GPU span",
                     v.confidence);
}

std::string Flops(double f) { return fmt::format("{:.2f} GFLOP", f / 1e9); }

// A counter-mode trace: kernels on the roofline instead of a timeline.
std::string CounterLines(const CounterStats& c) {
  std::string out = fmt::format(
      "  counter mode (CUPTI range profiler): {} kernel launch(es) of {} kernel(s), {} "
      "counter(s), no timeline\n",
      c.ranges, c.kernels, c.metrics.size());
  if (c.has_flops) {
    out += fmt::format("  FLOPs  FP32 {}  FP16 {}  FP64 {}\n", Flops(c.flops_fp32),
                       Flops(c.flops_fp16), Flops(c.flops_fp64));
  }
  if (c.has_dram)
    out += fmt::format("  DRAM   {}\n", FormatBytes(static_cast<uint64_t>(c.dram_bytes)));
  if (c.ridge_flop_per_byte > 0) {
    out += fmt::format("  ridge  {:.1f} FLOP/byte ({})\n", c.ridge_flop_per_byte, c.gpu_spec);
  }
  out += "  top kernels by FLOPs\n";
  for (const KernelCounterStat& k : c.top) {
    std::string tail;
    if (k.intensity) tail += fmt::format("  {:.2f} FLOP/B", *k.intensity);
    if (k.bound) tail += fmt::format("  {}", BottleneckName(*k.bound));
    out += fmt::format("    {:>5.1f} % {:>14} x{:<4} {}{}\n", k.flop_share_pct, Flops(k.flops),
                       k.ranges, Short(k.name, 60), tail);
  }
  return out;
}

std::string RankSection(const RankAnalysis& a) {
  std::string out = fmt::format("{}  {}  [{}]\n", a.subject, a.source, a.format);
  if (!a.has_gpu_ops && a.counters.ranges > 0) return out + CounterLines(a.counters);
  if (!a.has_gpu_ops) return out + "  no GPU activity\n";
  const TemporalBreakdown& t = a.temporal;
  out += fmt::format("  span {}   idle {:.1f} %   compute {:.1f} %   non-compute {:.1f} %{}\n",
                     Dur(t.span_ns), t.idle_pct, t.compute_pct, t.non_compute_pct,
                     t.last_step_excluded ? "   (last ProfilerStep excluded, as HTA)" : "");
  out += fmt::format("  {:<12} {:>8} {:>12} {:>12} {:>12}\n", "idle/stream", "ops", "host wait",
                     "kernel wait", "other");
  for (const StreamIdle& s : a.idle) {
    out += fmt::format("  {:<12} {:>8} {:>12} {:>12} {:>12}\n",
                       fmt::format("{}:{}", s.device, s.stream), s.ops, Dur(s.host_wait_ns),
                       Dur(s.kernel_wait_ns), Dur(s.other_ns));
  }
  if (a.idle.size() > 1) {  // with one stream the GPU's gaps are that stream's
    const StreamIdle& g = a.gpu_idle;
    out += fmt::format("  {:<12} {:>8} {:>12} {:>12} {:>12}\n", "GPU (all)", g.ops,
                       Dur(g.host_wait_ns), Dur(g.kernel_wait_ns), Dur(g.other_ns));
  }
  const KernelBreakdown& k = a.kernels;
  out +=
      fmt::format("  GPU ops in the window {} ({} kernels, {} launched by CUDA graphs), total {}\n",
                  k.op_count, k.kernel_count, k.graph_launched_count, Dur(k.total_ns));
  for (const KernelCategoryTime& c : k.categories) {
    out += fmt::format("    {:<14} {:>10} {:>6.1f} %  x{}\n", c.category, Dur(c.total_ns), c.pct,
                       c.count);
  }
  if (!k.types.empty()) out += "  kernel types (exclusive time, as HTA)\n";
  for (const KernelTypeTime& t : k.types) {
    out += fmt::format("    {:<40} {:>10} {:>6.1f} %\n", t.type, Dur(t.time_ns), t.pct);
  }
  std::string type;
  for (const KernelStat& s : k.top) {
    if (s.type != type) {
      type = s.type;
      out += fmt::format("  top kernels ({})\n", type);
    }
    out += fmt::format("    {:>5.1f} % {:>10} x{:<6} {}\n", s.pct, Dur(s.total_ns), s.count,
                       Short(s.name, 70));
  }
  const LaunchStats& l = a.launch;
  int max_q = 0;
  for (const StreamQueue& q : l.queues) max_q = std::max(max_q, q.max_queue);
  out += fmt::format(
      "  whole trace: launches {}: {:.1f} % shorter than their launch; launch median {}, kernel "
      "median {}; "
      "delay p50 {} p95 {}; in the window: max queue {}\n",
      l.launches, l.shorter_pct, Dur(l.launch_median_ns), Dur(l.kernel_median_ns),
      Dur(l.delay_p50_ns), Dur(l.delay_p95_ns), max_q);
  const CopyStats& c = a.copies;
  for (const CopyDirection& d : c.directions) {
    out += fmt::format("  copies {:<5} {:>10} in {} copies, {}, {:.1f} GB/s\n", d.direction,
                       FormatBytes(d.bytes), d.count, Dur(d.time_ns), d.gb_per_s);
  }
  uint64_t nsync = 0;
  for (const SyncKindStat& s : c.syncs) nsync += s.count;
  if (c.host_copy_in_span_ns > 0) {
    out += fmt::format("  host-device copies in the span {}, not overlapped by compute {}\n",
                       Dur(c.host_copy_in_span_ns), Dur(c.host_copy_exposed_in_span_ns));
  }
  out += fmt::format(
      "  pageable copies {} ({}); blocking copies {} ({}); host syncs {} ({}, {} while the GPU "
      "idled); scalar reads {}\n",
      c.pageable_count, FormatBytes(c.pageable_bytes), c.blocking_copies, Dur(c.blocking_copy_ns),
      nsync, Dur(c.sync_ns), Dur(c.sync_idle_in_span_ns), c.scalar_reads);
  if (a.overlap.comm_ns > 0) {
    std::vector<std::string> kinds;
    for (const CommKindTime& ck : a.overlap.kinds) kinds.push_back(ck.kind);
    out += fmt::format("  communication {} ({}), {:.1f} % overlapped by compute\n",
                       Dur(a.overlap.comm_ns), Join(kinds, ", "), a.overlap.overlap_pct);
  }
  if (!a.steps.empty()) {
    double busy = 0;
    for (const StepStat& s : a.steps) busy += s.busy_pct;
    out += fmt::format("  steps {}: GPU busy {:.1f} % on average\n", a.steps.size(),
                       busy / static_cast<double>(a.steps.size()));
  }
  if (a.host.has_phases && a.host.steps > 0) {
    out += fmt::format(
        "  DataLoader {:.1f} % of step time (worst step {:.1f} %), optimizer {:.1f} %\n",
        a.host.dataloader_step_pct, a.host.dataloader_max_step_pct, a.host.optimizer_step_pct);
  }
  if (a.startup.detected) {
    out += fmt::format("  start-up: one-time work {} of a {} window ({:.1f} %)\n",
                       Dur(a.startup.one_time_ns), Dur(a.startup.window_ns), a.startup.share_pct);
  }
  return out;
}

std::string CrossSection(const CrossRank& x) {
  if (x.lateness.empty() && x.missing_ranks.empty() && x.duplicate_ranks.empty() &&
      x.runs.size() <= 1) {
    return "";
  }
  std::string out = fmt::format("across ranks: world size {}, {} rank(s) present",
                                x.world_size < 0 ? "unknown" : std::to_string(x.world_size),
                                x.ranks_present.size());
  if (!x.missing_ranks.empty()) out += ", missing " + FormatCpuList(x.missing_ranks);
  out += "\n";
  for (const auto& [rank, files] : x.duplicate_ranks) {
    out += fmt::format("  rank {} claimed by {} files: separate runs, ranks not compared\n", rank,
                       files.size());
  }
  if (x.runs.size() > 1) {
    out += fmt::format("  {} separate runs, compared as runs (not ranks):\n", x.runs.size());
    for (size_t i = 0; i < x.runs.size(); ++i) {
      const TraceRun& r = x.runs[i];
      out += fmt::format("    run {}  world size {}, {} file(s), {}, mean step {}\n", i + 1,
                         r.world_size, r.sources.size(), r.device,
                         r.mean_step_ns > 0 ? Dur(r.mean_step_ns) : "-");
    }
  }
  if (!x.lateness.empty()) {
    out += fmt::format("  collective compared over {} step(s): {}\n", x.steps_compared,
                       Short(x.collective, 80));
    for (const RankLateness& l : x.lateness) {
      out += fmt::format("  rank {:<4} late in {} step(s), mean delay {}\n", l.rank, l.late_count,
                         Dur(l.mean_delay_ns));
    }
  }
  return out;
}

// The findings section, laid out as `gpuvet check` lays out its findings.
std::string FindingsSection(const TraceReport& r, bool color) {
  return RenderFindings(r.findings, TextOptions{color, false});
}

}  // namespace

std::string TraceVerdictLine(const TraceReport& r) {
  std::string line = "verdict: " + VerdictText(r.verdict);
  if (!r.verdict.reason.empty()) line += ": " + r.verdict.reason;
  return line;
}

std::string RenderTraceText(const TraceReport& r, bool color) {
  std::string out = fmt::format("gpuvet trace: {} rank(s)\n", r.ranks.size());
  for (const RankAnalysis& a : r.ranks) {
    out += fmt::format("  {:<10} {}\n", a.subject, VerdictText(a.verdict));
  }
  for (const RankAnalysis& a : r.ranks) out += "\n" + RankSection(a);
  if (std::string x = CrossSection(r.cross); !x.empty()) out += "\n" + x;
  for (const UpgradeForecast& f : r.forecasts) out += "\n" + RenderForecastText(f);
  out += "\n" + FindingsSection(r, color);
  std::string verdict = TraceVerdictLine(r);
  verdict = PaintSeverity(verdict, LabelSeverity(r.verdict.label), color);
  return out + "\n" + verdict + "\n";
}

}  // namespace gpuvet
