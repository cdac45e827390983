// Verdict labels and trace.* findings. Every warn carries the measured value and the threshold it
// crossed; every passed check says what was measured, so the report shows what was looked at.
#include "analysis/trace/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <map>

#include "core/bottleneck.h"
#include "core/catalogue.h"
#include "util/strings.h"
#include "util/units.h"

namespace gpuvet {

namespace {

Finding Make(std::string_view id, const std::string& subject, Severity sev, std::string summary,
             std::vector<Evidence> evidence = {}) {
  assert(FindCatalogueEntry(id) != nullptr);
  return NewFinding(id, subject, sev, std::move(summary), std::move(evidence));
}

std::string P(double v) { return fmt::format("{:.1f} %", v); }

std::string Ms(int64_t ns) {
  double v = static_cast<double>(ns);
  if (ns >= 1'000'000'000) return fmt::format("{:.2f} s", v / 1e9);
  if (ns >= 1'000'000) return fmt::format("{:.1f} ms", v / 1e6);
  return fmt::format("{:.1f} µs", v / 1e3);
}

double Share(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }
double Share(int64_t part, int64_t whole) {
  return Share(static_cast<double>(part), static_cast<double>(whole));
}

// The numbers every verdict rule reads, derived once.
struct Signals {
  double idle_pct = 0;
  // Shares of idle: each stream's category ratios averaged with the stream's busy time as weight.
  double host_wait_share = 0;    // % of stream idle that is host wait
  double kernel_wait_share = 0;  // % of stream idle that is kernel wait
  double short_host_share = 0;   // % of stream idle that is host wait in short gaps
  double short_kernel_pct = 0;
  double transfer_pct = 0;
  double comm_exposed_pct = 0;
  double compute_pct = 0;
  double sync_pct = 0;      // host sync time while the GPU idles
  double blocking_pct = 0;  // host time in blocking copy calls while the GPU idles
  bool starved = false;
};

Signals Derive(const RankAnalysis& a, const TraceThresholds& th) {
  Signals s;
  // Why the GPU as a whole was idle: the gaps of the merged timeline, each classified by the op
  // that ended it. (Per-stream gaps while another stream runs are not GPU idle, and a gap on every
  // stream at once — the host between two phases — is missed by a per-stream view.)
  const StreamIdle& g = a.gpu_idle;
  const int64_t idle = g.idle_ns();
  int64_t span = a.temporal.span_ns;
  s.idle_pct = a.temporal.idle_pct;
  s.host_wait_share = Share(g.host_wait_ns, idle);
  s.kernel_wait_share = Share(g.kernel_wait_ns, idle);
  s.short_host_share = Share(g.host_wait_short_ns, idle);
  s.short_kernel_pct = a.launch.shorter_pct;
  // Exposed time for every GPU-side bottleneck: what compute did not hide (transfers, comm) and
  // what the host waited while the GPU had nothing to run (syncs).
  s.transfer_pct = std::min(100.0, Share(a.copies.host_copy_exposed_in_span_ns, span));
  s.comm_exposed_pct = std::min(100.0, Share(a.overlap.exposed_ns, span));
  s.compute_pct = a.temporal.compute_pct;
  s.sync_pct = std::min(100.0, Share(a.copies.sync_idle_in_span_ns, span));
  s.blocking_pct = std::min(100.0, Share(a.copies.blocking_copy_idle_in_span_ns, span));
  s.starved = s.idle_pct >= th.idle_pct;
  return s;
}

bool LaunchBound(const Signals& s, const TraceThresholds& th) {
  return s.starved && s.short_kernel_pct >= th.short_kernel_pct &&
         s.kernel_wait_share + s.short_host_share >= th.launch_gap_share_pct;
}

bool HostBound(const Signals& s, const TraceThresholds& th) {
  return s.starved && !LaunchBound(s, th) && s.host_wait_share >= th.host_wait_share_pct;
}

std::string Confidence(const RankAnalysis& a, double share, double threshold,
                       const TraceThresholds& th) {
  if (a.truncated || a.temporal.ops_counted < th.min_ops_for_confidence ||
      a.temporal.span_ns < th.min_span_for_confidence_ns) {
    return "low";
  }
  return share >= 1.5 * threshold ? "high" : "medium";
}

// "9: smsp__sass_thread_inst_executed_op_dadd_pred_on.sum, … (+6)": the first few names.
std::string CounterList(const std::vector<std::string>& metrics) {
  constexpr size_t kShown = 3;
  std::vector<std::string> head(metrics.begin(),
                                metrics.begin() + std::min(kShown, metrics.size()));
  std::string out = fmt::format("{}: {}", metrics.size(), Join(head, ", "));
  if (metrics.size() > kShown) out += fmt::format(", … (+{})", metrics.size() - kShown);
  return out;
}

// C++ kernel names run to thousands of characters; evidence keeps the head.
std::string TruncateName(const std::string& name) {
  constexpr size_t kMax = 80;
  return name.size() <= kMax ? name : name.substr(0, kMax - 3) + "...";
}

std::string Flops(double f) {
  if (f >= 1e12) return fmt::format("{:.2f} TFLOP", f / 1e12);
  if (f >= 1e9) return fmt::format("{:.2f} GFLOP", f / 1e9);
  if (f >= 1e6) return fmt::format("{:.2f} MFLOP", f / 1e6);
  return fmt::format("{:.0f} FLOP", f);
}

std::string GpuOf(const CounterStats& c) {
  return c.gpu_spec.empty() ? (c.gpu_name.empty() ? "unknown GPU" : c.gpu_name) : c.gpu_spec;
}

// What a counter-mode trace lacks to place its kernels on the roofline; "" when nothing.
std::string RooflineGap(const CounterStats& c) {
  if (!c.has_dram) {
    return "no DRAM byte counters: add dram__bytes_read.sum and dram__bytes_write.sum to "
           "profiler_metrics";
  }
  if (!c.has_flops) {
    return "no FLOP counters: add smsp__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_"
           "on.sum to profiler_metrics";
  }
  if (c.ridge_flop_per_byte <= 0) {
    return fmt::format("the GPU ({}) is not in gpuvet's spec table, so its ridge point is unknown",
                       c.gpu_name.empty() ? "not named in the trace" : c.gpu_name);
  }
  return "";
}

TraceVerdict CounterVerdict(const CounterStats& c) {
  if (c.memory_bound_time_pct) {
    double m = *c.memory_bound_time_pct;
    bool memory = m >= 50;
    return {memory ? Bottleneck::kMemoryBound : Bottleneck::kComputeBound, memory ? m : 100 - m,
            "medium",
            fmt::format("{} of the profiled kernels' roofline time is in kernels {} the ridge "
                        "point ({:.1f} FLOP/byte on {})",
                        P(memory ? m : 100 - m), memory ? "below" : "above", c.ridge_flop_per_byte,
                        GpuOf(c)),
            "roofline_time"};
  }
  return {Bottleneck::kCountersOnly, 0, "low",
          fmt::format("{} kernel(s) profiled by the CUPTI range profiler, no timeline; {}",
                      c.kernels, RooflineGap(c))};
}

void AppendCounterFindings(const RankAnalysis& a, std::vector<Finding>& out) {
  const CounterStats& c = a.counters;
  out.push_back(Make(
      "trace.input", a.subject, Severity::kInfo,
      fmt::format("counter-mode trace: the CUPTI range profiler replayed {} kernel launch(es) of "
                  "{} kernel(s) to read {} counter(s); it has no timeline, so the idle, launch, "
                  "copy and step analyses do not apply",
                  c.ranges, c.kernels, c.metrics.size()),
      {{"profiled_ranges", std::to_string(c.ranges), ""},
       {"counters", CounterList(c.metrics), ""},
       {"gpu_ops", std::to_string(a.kernels.op_count), ""}}));
  out.back().decision =
      "Nothing is wrong with the trace. For idle, launch, copy and sync analysis take a normal "
      "trace as well (without profiler_metrics): counter mode serialises and replays kernels.";
  std::vector<Evidence> ev;
  if (c.has_flops) {
    ev.push_back({"flops",
                  fmt::format("FP32 {}, FP16 {}, FP64 {}", Flops(c.flops_fp32), Flops(c.flops_fp16),
                              Flops(c.flops_fp64)),
                  "SASS add/mul/fma instructions, FMA = 2"});
  }
  if (c.has_dram)
    ev.push_back({"dram_bytes", FormatBytes(static_cast<uint64_t>(c.dram_bytes)), ""});
  ev.push_back({"gpu", GpuOf(c), ""});
  if (c.ridge_flop_per_byte > 0) {
    ev.push_back({"ridge_point", fmt::format("{:.1f} FLOP/byte", c.ridge_flop_per_byte),
                  "FP32 peak / memory bandwidth"});
  }
  for (size_t i = 0; i < c.top.size() && i < 5; ++i) {
    const KernelCounterStat& k = c.top[i];
    std::string value = fmt::format("{} x{}, {} ({:.1f} % of FLOPs)", TruncateName(k.name),
                                    k.ranges, Flops(k.flops), k.flop_share_pct);
    if (k.intensity) value += fmt::format(", {:.2f} FLOP/byte", *k.intensity);
    if (k.bound) value += fmt::format(", {}", BottleneckName(*k.bound));
    ev.push_back({fmt::format("kernel{}", i + 1), value, ""});
  }
  std::string summary;
  if (c.memory_bound_time_pct) {
    summary = fmt::format(
        "{} of {} profiled kernel(s) are memory-bound (below the ridge point of {:.1f} FLOP/byte "
        "on {}): {} of the kernels' roofline time",
        c.memory_bound_kernels, c.memory_bound_kernels + c.compute_bound_kernels,
        c.ridge_flop_per_byte, GpuOf(c), P(*c.memory_bound_time_pct));
  } else {
    summary = fmt::format(
        "{} kernel(s) with counters{}; not placed on the roofline: {}", c.kernels,
        c.has_flops ? fmt::format(", {} in all", Flops(c.flops_fp32 + c.flops_fp16 + c.flops_fp64))
                    : "",
        RooflineGap(c));
  }
  out.push_back(Make("trace.kernel_counters", a.subject, Severity::kInfo, summary, std::move(ev)));
}

// A window too short for any label (see TraceThresholds::min_span_for_verdict_ns).
bool TooLittle(const RankAnalysis& a, const TraceThresholds& th) {
  return a.has_gpu_ops && a.temporal.span_ns < th.min_span_for_verdict_ns;
}

// Who holds the idle GPU, from ComputeHostAttribution: the largest of the four shares.
struct Holder {
  std::string_view name;  // as the finding says it
  int64_t ns = 0;
  std::string_view decision;
};

constexpr std::string_view kLoaderDecision =
    "The DataLoader holds the GPU: raise DataLoader(num_workers=...) (and persistent_workers=True, "
    "prefetch_factor), set pin_memory=True, move decode and augmentation off the main process or "
    "onto the GPU (DALI), and put the dataset on faster or local storage; a faster GPU would not "
    "help.";
constexpr std::string_view kOptimizerDecision =
    "The optimizer step holds the GPU: use a fused or multi-tensor optimizer "
    "(torch.optim.AdamW(fused=True) or foreach=True, apex FusedAdam), zero_grad(set_to_none=True), "
    "or capture the step in a CUDA graph; a faster GPU would not help.";
constexpr std::string_view kSyncDecision =
    "Host synchronisation holds the GPU: remove per-step .item()/.cpu()/print of tensors and "
    "torch.cuda.synchronize(), read metrics every N steps, and copy with non_blocking=True from "
    "pinned memory.";
constexpr std::string_view kPythonDecision =
    "Host work between kernels holds the GPU (Python and framework overhead, or input work the "
    "trace does not mark): cut per-step Python with torch.compile or CUDA graphs, batch small ops "
    "into larger kernels, and profile the host side (py-spy) for the rest; a faster GPU would not "
    "help.";

std::vector<Holder> Holders(const HostAttribution& h) {
  return {{"the DataLoader", h.dataloader_idle_ns, kLoaderDecision},
          {"the optimizer", h.optimizer_idle_ns, kOptimizerDecision},
          {"host syncs", h.sync_idle_ns, kSyncDecision},
          {"Python between kernels", h.other_idle_ns, kPythonDecision}};
}

const Holder TopHolder(const HostAttribution& h) {
  std::vector<Holder> all = Holders(h);
  return *std::max_element(all.begin(), all.end(),
                           [](const Holder& x, const Holder& y) { return x.ns < y.ns; });
}

// "the DataLoader holds 85.2 % of the idle (optimizer 3.1 %, syncs 0.0 %, Python between
// kernels 11.7 %)".
std::string HolderText(const HostAttribution& h) {
  if (h.idle_ns <= 0) return "";
  Holder top = TopHolder(h);
  std::vector<std::string> rest;
  for (const Holder& x : Holders(h)) {
    if (x.name != top.name) rest.push_back(fmt::format("{} {}", x.name, P(Share(x.ns, h.idle_ns))));
  }
  const bool plural = top.name == "host syncs";
  return fmt::format("{} {} {} of the idle ({}){}", top.name, plural ? "hold" : "holds",
                     P(Share(top.ns, h.idle_ns)), Join(rest, ", "),
                     h.has_phases ? "" : "; the trace marks no DataLoader or optimizer ops");
}

std::vector<Evidence> HolderEvidence(const HostAttribution& h) {
  std::vector<Evidence> ev;
  if (h.steps > 0 && h.has_phases) {
    ev.push_back({"dataloader_share_of_step", P(h.dataloader_step_pct),
                  fmt::format("worst step {}", P(h.dataloader_max_step_pct))});
    ev.push_back({"optimizer_share_of_step", P(h.optimizer_step_pct), ""});
  }
  if (h.idle_ns > 0) {
    ev.push_back({"idle_in_dataloader", P(Share(h.dataloader_idle_ns, h.idle_ns)), "of GPU idle"});
    ev.push_back({"idle_in_optimizer", P(Share(h.optimizer_idle_ns, h.idle_ns)), "of GPU idle"});
    ev.push_back({"idle_in_syncs", P(Share(h.sync_idle_ns, h.idle_ns)), "of GPU idle"});
    ev.push_back({"idle_other_host", P(Share(h.other_idle_ns, h.idle_ns)),
                  "of GPU idle: Python between kernels"});
  }
  return ev;
}

std::string WorkList(const StartupStats& st) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < st.work.size() && i < 3; ++i) {
    parts.push_back(fmt::format("{} {}", st.work[i].kind, Ms(st.work[i].time_ns)));
  }
  return Join(parts, ", ");
}

TraceVerdict StartupVerdict(const RankAnalysis& a, const TraceThresholds& th) {
  const StartupStats& st = a.startup;
  TraceVerdict v;
  v.label = Bottleneck::kStartup;
  v.share_pct = st.share_pct;
  v.share_of = "trace_window";
  // The one-time calls are the evidence, not the number of GPU ops (a capture runs few).
  v.confidence = a.truncated ? "low" : st.share_pct >= 1.5 * th.startup_pct ? "high" : "medium";
  v.reason = fmt::format(
      "one-time start-up work takes {} of the window ({}); after it: {}", P(st.share_pct),
      WorkList(st),
      st.steady.label == Bottleneck::kInsufficientData
          ? "too little to judge"
          : fmt::format("{} {}", BottleneckName(st.steady.label), P(st.steady.share_pct)));
  return v;
}

std::string UnsupportedList(const std::vector<UnsupportedDevice>& u) {
  std::vector<std::string> parts;
  for (const UnsupportedDevice& x : u) parts.push_back(fmt::format("{} {}", x.events, x.category));
  return Join(parts, ", ");
}

// "MTIA", "HPU", "XPU", "PrivateUse1" for the report's device names.
std::string DeviceTitle(const std::string& device) {
  if (device == "privateuse1") return "PrivateUse1";
  std::string out = device;
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// trace.transfer_bound, trace.pageable_copies, trace.sync_stalls and trace.comm_bound: each judged
// by exposed time (what compute did not hide, or host waits while the GPU idled) against its
// threshold, with the totals beside it so the hidden part is visible too.
void AppendCopySyncCommFindings(const RankAnalysis& a, const TraceThresholds& th, const Signals& s,
                                std::vector<Finding>& out) {
  const std::string& subj = a.subject;
  const CopyStats& c = a.copies;
  const int64_t span = a.temporal.span_ns;

  // Transfers: host-device copies not hidden behind compute.
  const int64_t hidden = c.host_copy_in_span_ns - c.host_copy_exposed_in_span_ns;
  std::vector<Evidence> copy_ev = {
      {"exposed_host_copy_share", P(s.transfer_pct), fmt::format(">= {}", P(th.transfer_pct))},
      {"host_copy_share", P(Share(c.host_copy_in_span_ns, span)), "HtoD + DtoH, union"},
      {"host_copy_hidden_by_compute", P(Share(hidden, c.host_copy_in_span_ns)), ""},
      {"all_copy_share", P(Share(c.copy_busy_in_span_ns, span)), "every direction, union"}};
  for (const CopyDirection& d : c.directions) {
    copy_ev.push_back(
        {d.direction,
         fmt::format("{} in {} copies, {:.1f} GB/s", FormatBytes(d.bytes), d.count, d.gb_per_s),
         ""});
  }
  bool transfer = s.transfer_pct >= th.transfer_pct;
  std::string hidden_note =
      c.host_copy_in_span_ns > 0
          ? fmt::format(" ({} of the span in all, {} of that hidden behind compute)",
                        P(Share(c.host_copy_in_span_ns, span)),
                        P(Share(hidden, c.host_copy_in_span_ns)))
          : "";
  std::string other_copies =
      c.copy_busy_in_span_ns > c.host_copy_in_span_ns
          ? "; device-to-device and peer copies are memory traffic, not transfers"
          : "";
  out.push_back(Make("trace.transfer_bound", subj, transfer ? Severity::kWarn : Severity::kOk,
                     fmt::format("host-device copies not overlapped by compute take {} of the "
                                 "span{}{}",
                                 P(s.transfer_pct), hidden_note, other_copies),
                     copy_ev));

  // Pageable and blocking copies: judged by what they move per step and by how long they hold
  // the host while the GPU has nothing to run (a copy call that waits while the GPU works costs
  // the GPU nothing).
  const uint64_t nsteps = std::max<uint64_t>(1, a.steps.size());
  const uint64_t bytes_per_step = c.pageable_bytes / nsteps;
  std::vector<Evidence> pg_ev = {
      {"pageable_copies", std::to_string(c.pageable_count), ""},
      {"pageable_bytes", FormatBytes(c.pageable_bytes), ""},
      {"pageable_bytes_per_step", FormatBytes(bytes_per_step),
       fmt::format(">= {}{}", FormatBytes(th.pageable_min_bytes),
                   a.steps.empty() ? " (no profiler steps: the whole trace)" : "")},
      {"pageable_time", Ms(c.pageable_ns), ""},
      {"host_blocked_in_copies_share", P(s.blocking_pct),
       fmt::format(">= {}, synchronous or pageable copy calls while the GPU idles",
                   P(th.blocking_copy_pct))},
      {"blocking_copies", fmt::format("{} ({})", c.blocking_copies, Ms(c.blocking_copy_ns)), ""},
      {"longest_blocking_copy", Ms(c.blocking_copy_max_ns),
       fmt::format("{} of one call while the GPU idled", Ms(c.blocking_copy_idle_max_ns))}};
  // A DtoH copy that waits for the GPU's queue: an implicit sync, named with what it waited for.
  std::string gpu_wait;
  if (c.dtoh_gpu_waits > 0) {
    std::string behind =
        c.dtoh_gpu_wait_behind.empty() ? "" : " behind " + TruncateName(c.dtoh_gpu_wait_behind);
    gpu_wait =
        fmt::format("a {} DtoH {} waited {} for the GPU{}", FormatBytes(c.dtoh_gpu_wait_max_bytes),
                    c.dtoh_gpu_wait_call, Ms(c.dtoh_gpu_wait_max_ns), behind);
    pg_ev.push_back({"dtoh_waiting_for_gpu",
                     fmt::format("{} call(s), {} while the GPU ran other work; longest: {}",
                                 c.dtoh_gpu_waits, Ms(c.dtoh_gpu_wait_ns), gpu_wait),
                     "an implicit sync, not lost GPU time"});
  }
  const bool blocked = s.blocking_pct >= th.blocking_copy_pct;
  const bool bulk = bytes_per_step >= th.pageable_min_bytes;
  std::vector<std::string> said;
  if (c.pageable_count > 0) {
    said.push_back(fmt::format(
        "{} {} ({}{}) use{} pageable host memory", c.pageable_count,
        c.pageable_count == 1 ? "copy" : "copies", FormatBytes(c.pageable_bytes),
        a.steps.size() > 1 ? fmt::format(", {} per step", FormatBytes(bytes_per_step)) : "",
        c.pageable_count == 1 ? "s" : ""));
  } else {
    said.push_back("no copies from or to pageable host memory");
  }
  if (c.blocking_copies > 0) {
    said.push_back(fmt::format(
        "{} blocking {} the host {} of the span while the GPU idles{}", c.blocking_copies,
        c.blocking_copies == 1 ? "copy holds" : "copies hold", P(s.blocking_pct),
        c.blocking_copy_idle_max_ns > 0
            ? fmt::format(" (longest {})", Ms(c.blocking_copy_idle_max_ns))
            : ""));
  }
  if (!gpu_wait.empty()) said.push_back(gpu_wait + ": an implicit sync while the GPU is busy");
  Severity pg_sev = bulk || blocked                             ? Severity::kWarn
                    : c.pageable_count > 0 || !gpu_wait.empty() ? Severity::kInfo
                                                                : Severity::kOk;
  out.push_back(Make("trace.pageable_copies", subj, pg_sev, Join(said, "; "), pg_ev));

  // Synchronisation: only the time the GPU sat idle while the host waited is lost.
  std::vector<Evidence> sync_ev = {
      {"sync_while_gpu_idle_share", P(s.sync_pct), fmt::format(">= {}", P(th.sync_pct))},
      {"sync_time_share", P(std::min(100.0, Share(c.sync_in_span_ns, span))), "GPU busy or not"}};
  for (const SyncKindStat& k : c.syncs) {
    sync_ev.push_back({k.kind + "_syncs", fmt::format("{} ({})", k.count, Ms(k.time_ns)), ""});
  }
  sync_ev.push_back({"scalar_reads", fmt::format("{} ({})", c.scalar_reads, Ms(c.scalar_read_ns)),
                     fmt::format("DtoH <= {} then sync", FormatBytes(th.scalar_read_max_bytes))});
  uint64_t nsync = 0;
  for (const SyncKindStat& k : c.syncs) nsync += k.count;
  bool stalls = s.sync_pct >= th.sync_pct;
  std::string reads = c.scalar_reads > 0 ? fmt::format("; {} scalar reads ({})", c.scalar_reads,
                                                       Ms(c.scalar_read_ns))
                                         : "";
  out.push_back(Make(
      "trace.sync_stalls", subj, stalls ? Severity::kWarn : Severity::kOk,
      nsync == 0
          ? "no host synchronisation calls" + reads
          : fmt::format("host blocked in {} synchronisations for {}, {} of it while "
                        "the GPU idled ({} of the span){}",
                        nsync, Ms(c.sync_ns), Ms(c.sync_idle_in_span_ns), P(s.sync_pct), reads),
      sync_ev));

  // Communication, whatever library moves it.
  const CommOverlap& o = a.overlap;
  if (o.comm_ns == 0) {
    out.push_back(
        Make("trace.comm_bound", subj, Severity::kOk, "no communication kernels: not applicable"));
    return;
  }
  std::vector<std::string> kinds;
  for (const CommKindTime& k : o.kinds) {
    kinds.push_back(fmt::format("{} x{} ({})", k.kind, k.count, Ms(k.time_ns)));
  }
  bool comm = s.comm_exposed_pct >= th.comm_exposed_pct;
  out.push_back(Make(
      "trace.comm_bound", subj, comm ? Severity::kWarn : Severity::kOk,
      fmt::format("communication {} of the span, {} of it overlapped by compute; exposed {}",
                  P(Share(o.comm_ns, span)), P(o.overlap_pct), P(s.comm_exposed_pct)),
      {{"comm_exposed_share", P(s.comm_exposed_pct), fmt::format(">= {}", P(th.comm_exposed_pct))},
       {"comm_time", Ms(o.comm_ns), ""},
       {"comm_comp_overlap", P(o.overlap_pct), ""},
       {"comm_kernels", Join(kinds, ", "), ""}}));
}

}  // namespace

namespace {

// A rank without GPU ops: its GPU side was not captured (launches without their kernels, or the
// profiler said so), the input is not a PyTorch profiler trace at all, or a real CPU-only rank.
// Each gets the decision that fits it.
void AppendNoGpuOps(const RankAnalysis& a, std::vector<Evidence> ev, std::vector<Finding>& out) {
  ev.push_back({"gpu_work_calls", std::to_string(a.gpu_work_calls),
                "launch, graph launch, copy and memset runtime calls"});
  const bool kineto = a.format.rfind("kineto", 0) == 0;
  if (a.gpu_work_calls > 0 || !a.gpu_capture_note.empty()) {
    if (!a.gpu_capture_note.empty()) ev.push_back({"profiler_note", a.gpu_capture_note, ""});
    out.push_back(Make(
        "trace.input", a.subject, Severity::kWarn,
        a.gpu_work_calls > 0
            ? fmt::format("GPU side not captured: {} runtime call(s) launch kernels or copies, but "
                          "the trace holds none of their GPU kernels, copies or memsets",
                          a.gpu_work_calls)
            : fmt::format("GPU side not captured: the profiler says \"{}\"", a.gpu_capture_note),
        std::move(ev)));
    out.back().decision =
        kineto ? "Re-capture with the GPU activities on (torch.profiler.profile(activities=["
                 "ProfilerActivity.CPU, ProfilerActivity.CUDA])) and check that CUPTI loads (the "
                 "CUDA toolkit's libcupti on LD_LIBRARY_PATH, a driver CUPTI supports, no other "
                 "profiler attached); the host side alone cannot say what the GPU did."
               : "Re-capture with CUDA tracing on (nsys profile --trace=cuda) and check the "
                 "export's diagnostics (CUPTI failed to attach, an unsupported driver, or another "
                 "profiler holding CUPTI); the host side alone cannot say what the GPU did.";
    return;
  }
  if (kineto && a.profiler_events == 0) {
    out.push_back(Make("trace.input", a.subject, Severity::kWarn,
                       "not a PyTorch profiler trace: none of its events is of a category the "
                       "PyTorch profiler (Kineto) writes (kernel, cuda_runtime, cpu_op, "
                       "user_annotation, …)",
                       std::move(ev)));
    out.back().decision =
        "Give gpuvet trace a PyTorch profiler trace (torch.profiler.profile(...).export_chrome_"
        "trace, or tensorboard_trace_handler) or an Nsight Systems SQLite export (nsys export "
        "--type sqlite).";
    return;
  }
  out.push_back(Make("trace.input", a.subject, Severity::kInfo,
                     "CPU-only rank: the trace holds no GPU kernels, copies or memsets, and no "
                     "runtime call that would launch any",
                     std::move(ev)));
  out.back().decision =
      "Nothing to analyse on the GPU side for this rank; if it should use a GPU, check that the "
      "process saw one (CUDA_VISIBLE_DEVICES, device placement of the model and tensors).";
}

}  // namespace

TraceVerdict RankVerdict(const RankAnalysis& a, const TraceThresholds& th) {
  TraceVerdict v;
  if (!a.has_gpu_ops && a.counters.ranges > 0) return CounterVerdict(a.counters);
  if (!a.has_gpu_ops && !a.unsupported.empty()) {
    return {Bottleneck::kUnsupportedDevice, 0, "high",
            fmt::format("{} device events are not a timeline gpuvet can analyse ({} event(s))",
                        DeviceTitle(a.unsupported.front().device), UnsupportedList(a.unsupported))};
  }
  if (!a.has_gpu_ops) {
    return {Bottleneck::kNoGpuActivity, 0, "high",
            a.gpu_work_calls > 0 || !a.gpu_capture_note.empty()
                ? "the GPU side was not captured: the trace holds no GPU operations"
                : "the trace holds no GPU operations"};
  }
  // A detected start-up or graph capture is the answer even for a window too short for a
  // steady-state label: what the trace shows is the capture.
  if (a.startup.detected) return StartupVerdict(a, th);
  if (TooLittle(a, th)) {
    return {Bottleneck::kInsufficientData, 0, "low",
            fmt::format("{} GPU op(s) over {} in the analysed window: too little to judge",
                        a.temporal.ops_counted, Ms(a.temporal.span_ns))};
  }
  Signals s = Derive(a, th);
  struct Option {
    Bottleneck label;
    double share;
    double threshold;
    std::string reason;
  };
  std::vector<Option> options;
  if (LaunchBound(s, th)) {
    options.push_back(
        {Bottleneck::kLaunchBound, s.idle_pct, th.idle_pct,
         fmt::format("GPU idle {} of the span; {} of kernels run shorter than "
                     "their launch, {} of idle is in gaps under {}",
                     P(s.idle_pct), P(s.short_kernel_pct),
                     P(s.kernel_wait_share + s.short_host_share), Ms(th.launch_gap_max_ns))});
  } else if (HostBound(s, th)) {
    std::string holder = HolderText(a.host);
    options.push_back(
        {Bottleneck::kHostCpuBound, s.idle_pct * s.host_wait_share / 100, th.idle_pct,
         fmt::format("GPU idle {} of the span; {} of idle is host wait{}", P(s.idle_pct),
                     P(s.host_wait_share), holder.empty() ? "" : "; " + holder)});
  } else if (s.starved && s.comm_exposed_pct < th.comm_exposed_pct) {
    options.push_back(
        {Bottleneck::kIdle, s.idle_pct, th.idle_pct,
         fmt::format("GPU idle {} of the span without a dominant cause", P(s.idle_pct))});
  }
  if (s.comm_exposed_pct >= th.comm_exposed_pct) {
    // Unexplained idle next to exposed communication is mostly streams waiting on collectives:
    // comm_bound then stands for it rather than a bare "idle".
    options.push_back({Bottleneck::kCommBound, s.comm_exposed_pct, th.comm_exposed_pct,
                       fmt::format("communication not overlapped by compute takes {} of the span",
                                   P(s.comm_exposed_pct))});
  }
  if (s.transfer_pct >= th.transfer_pct) {
    options.push_back(
        {Bottleneck::kTransferBound, s.transfer_pct, th.transfer_pct,
         fmt::format("host-device copies not overlapped by compute take {} of the span",
                     P(s.transfer_pct))});
  }
  if (options.empty()) {
    options.push_back({Bottleneck::kComputeBound, s.compute_pct, th.compute_pct,
                       fmt::format("compute kernels cover {} of the span", P(s.compute_pct))});
  }
  const Option& best =
      *std::max_element(options.begin(), options.end(),
                        [](const Option& x, const Option& y) { return x.share < y.share; });
  v.label = best.label;
  v.share_pct = best.share;
  v.reason = best.reason;
  v.confidence = Confidence(a, best.share, best.threshold, th);
  if (v.label == Bottleneck::kComputeBound && s.compute_pct < th.compute_pct) {
    v.confidence = "low";
  }
  return v;
}

namespace {
void AppendUnsupported(const RankAnalysis& a, Severity sev, std::vector<Finding>& out);
void AppendStartupFinding(const RankAnalysis& a, const TraceThresholds& th,
                          std::vector<Finding>& out);
void AppendJudgedFindings(const RankAnalysis& a, const TraceThresholds& th,
                          std::vector<Finding>& out);
}  // namespace

void AppendRankFindings(const RankAnalysis& a, const TraceThresholds& th,
                        std::vector<Finding>& out) {
  const std::string& subj = a.subject;
  std::vector<Evidence> input_ev = {{"events_read", std::to_string(a.events_seen), ""},
                                    {"gpu_ops", std::to_string(a.kernels.op_count), ""},
                                    {"warnings", std::to_string(a.warnings.size()), ""}};
  if (!a.warnings.empty()) input_ev.push_back({"first_warning", a.warnings.front(), ""});
  // Every warning is evidence (a skipped-events warning names its count and first byte offset,
  // whichever position it has), up to a bound for pathological inputs.
  constexpr size_t kMaxWarningEvidence = 8;
  for (size_t i = 1; i < a.warnings.size() && i < kMaxWarningEvidence; ++i) {
    input_ev.push_back({fmt::format("warning_{}", i + 1), a.warnings[i], ""});
  }
  // A rank whose read skipped anything always says so, whatever else is reported for it.
  auto warnings_finding = [&] {
    Finding f = Make("trace.input", subj, Severity::kInfo,
                     fmt::format("trace read with {} warning(s)", a.warnings.size()), input_ev);
    f.decision =
        "Read the warnings in the evidence: the events they name were skipped, and the results "
        "cover the rest; re-capture only if the skipped events matter.";
    return f;
  };
  const bool counter_mode = !a.has_gpu_ops && a.counters.ranges > 0;
  if (counter_mode && !a.truncated) {
    if (!a.warnings.empty()) out.push_back(warnings_finding());
    AppendCounterFindings(a, out);
    return;
  }
  if (a.truncated) {
    out.push_back(Make("trace.input", subj, Severity::kWarn,
                       "trace truncated: results cover only the events read before the break",
                       input_ev));
    out.back().decision =
        "Re-copy the file whole, or re-capture it and let the profiler finish writing "
        "(prof.stop() or the end of the `with` block) before the process exits.";
  } else if (!a.has_gpu_ops && !a.unsupported.empty()) {
    if (!a.warnings.empty()) out.push_back(warnings_finding());
    AppendUnsupported(a, Severity::kWarn, out);
    return;
  } else if (!a.has_gpu_ops) {
    AppendNoGpuOps(a, input_ev, out);
    return;
  } else if (!a.warnings.empty()) {
    out.push_back(warnings_finding());
  } else {
    out.push_back(Make("trace.input", subj, Severity::kOk,
                       fmt::format("trace read completely ({} GPU ops)", a.kernels.op_count),
                       input_ev));
  }
  if (counter_mode) AppendCounterFindings(a, out);  // after the truncation warning
  if (!a.has_gpu_ops) return;
  // Device events that were analysed, beside some that could not be (MTIA insight samples).
  if (!a.unsupported.empty()) AppendUnsupported(a, Severity::kInfo, out);
  if (TooLittle(a, th) && !a.startup.detected) {
    // Replaces a plain "read completely"; a truncation or read warning stays beside it.
    if (out.back().id == "trace.input" && out.back().severity == Severity::kOk) out.pop_back();
    out.push_back(Make(
        "trace.input", subj, Severity::kInfo,
        fmt::format(
            "too little GPU activity to judge: {} GPU op(s) over {} in the analysed "
            "window{}",
            a.temporal.ops_counted, Ms(a.temporal.span_ns),
            a.temporal.last_step_excluded ? " (the last ProfilerStep is excluded, as HTA)" : ""),
        {{"gpu_span", Ms(a.temporal.span_ns), fmt::format(">= {}", Ms(th.min_span_for_verdict_ns))},
         {"ops_in_window", std::to_string(a.temporal.ops_counted), ""},
         {"gpu_ops", std::to_string(a.kernels.op_count), ""}}));
    out.back().decision =
        "Profile a few complete steps of the real workload (for example "
        "torch.profiler.schedule(wait=1, warmup=1, active=3)) so the window holds its work.";
    return;
  }
  if (a.startup.detected) {
    AppendStartupFinding(a, th, out);
    // The steady state after start-up is judged on its own, when enough of it was traced.
    if (!a.steady_state.empty() && !TooLittle(a.steady_state.front(), th)) {
      AppendJudgedFindings(a.steady_state.front(), th, out);
    }
    return;
  }
  AppendJudgedFindings(a, th, out);
}

namespace {

void AppendUnsupported(const RankAnalysis& a, Severity sev, std::vector<Finding>& out) {
  std::vector<Evidence> ev;
  uint64_t total = 0;
  for (const UnsupportedDevice& u : a.unsupported) {
    ev.push_back({u.category, fmt::format("{} event(s)", u.events), u.device});
    total += u.events;
  }
  const std::string& device = a.unsupported.front().device;
  out.push_back(Make(
      "trace.unsupported_device", a.subject, sev,
      a.has_gpu_ops
          ? fmt::format("{} {} event(s) ({}) are samples, not a device timeline, and were not "
                        "analysed; the {} device ops were",
                        total, DeviceTitle(device), UnsupportedList(a.unsupported),
                        a.kernels.op_count)
          : fmt::format("{} {} event(s) ({}) and no device timeline gpuvet can analyse: not a "
                        "CPU-only rank, its device work is not in the trace in a form gpuvet reads",
                        total, DeviceTitle(device), UnsupportedList(a.unsupported)),
      std::move(ev)));
}

void AppendStartupFinding(const RankAnalysis& a, const TraceThresholds& th,
                          std::vector<Finding>& out) {
  const StartupStats& st = a.startup;
  std::vector<Evidence> ev = {
      {"startup_share_of_window", P(st.share_pct), fmt::format(">= {}", P(th.startup_pct))},
      {"window", Ms(st.window_ns), "first to last GPU op or runtime call"},
      {"one_time_work", Ms(st.one_time_ns), ""}};
  for (const StartupWork& w : st.work) {
    ev.push_back({w.kind, fmt::format("{} call(s), {}", w.count, Ms(w.time_ns)), ""});
  }
  ev.push_back({"steady_state_verdict",
                fmt::format("{} ({})", BottleneckName(st.steady.label), st.steady.reason), ""});
  out.push_back(Make("trace.startup", a.subject, Severity::kWarn,
                     fmt::format("the window is start-up, not steady state: one-time work ({}) "
                                 "takes {} of it",
                                 WorkList(st), P(st.share_pct)),
                     std::move(ev)));
}

// trace.compute_bound, with the advice the kernel mix calls for: memory-bound elementwise,
// reduction and copy kernels are sped up by fusing them and removing copies (lower precision
// barely helps them); GEMM and attention kernels by lower precision and tensor cores.
void AppendComputeBound(const RankAnalysis& a, const TraceThresholds& th, const Signals& s,
                        std::vector<Finding>& out) {
  int64_t matrix = 0, memory_bound = 0, all = 0;
  for (const KernelCategoryTime& c : a.kernels.categories) {
    if (c.category == "communication") continue;
    all += c.total_ns;
    if (c.category == "gemm" || c.category == "attention") matrix += c.total_ns;
    if (c.category == "elementwise" || c.category == "reduction" || c.category == "memory") {
      memory_bound += c.total_ns;
    }
  }
  // The largest copy kernel (ATen direct_copy_kernel_cuda, copy_kernel) by name, for the advice.
  const KernelStat* copy = nullptr;
  for (const KernelStat& k : a.kernels.top) {
    if (k.name.find("copy_kernel") != std::string::npos && (!copy || k.total_ns > copy->total_ns)) {
      copy = &k;
    }
  }
  const double matrix_pct = Share(matrix, all), memory_pct = Share(memory_bound, all);
  std::vector<Evidence> ev = {
      {"compute_pct", P(s.compute_pct), fmt::format(">= {}", P(th.compute_pct))},
      {"gpu_idle_pct", P(s.idle_pct), fmt::format(">= {}", P(th.idle_pct))},
      {"gemm_attention_share", P(matrix_pct), "of kernel time, communication aside"},
      {"elementwise_reduction_copy_share", P(memory_pct), "of kernel time, communication aside"}};
  if (copy) ev.push_back({"largest_copy_kernel", TruncateName(copy->name), P(copy->pct)});
  std::string mix = memory_pct >= 50 ? fmt::format(
                                           "; elementwise, reduction and copy kernels "
                                           "take {} of kernel time (GEMM/attention {})",
                                           P(memory_pct), P(matrix_pct))
                    : matrix_pct >= 50 ? fmt::format(
                                             "; GEMM/attention kernels take {} of kernel "
                                             "time",
                                             P(matrix_pct))
                                       : "";
  out.push_back(Make("trace.compute_bound", a.subject, Severity::kInfo,
                     fmt::format("compute kernels cover {} of the span{}", P(s.compute_pct), mix),
                     std::move(ev)));
  if (memory_pct >= 50) {
    out.back().decision = fmt::format(
        "The GPU is busy with memory-bound elementwise, reduction and copy kernels ({} of kernel "
        "time{}): fuse them (torch.compile, fused optimizers and norms), remove copies and casts "
        "(.contiguous(), .to(dtype), layout changes), and keep tensors in one dtype and layout; "
        "lower precision and tensor cores speed up only the GEMMs ({}), a GPU with more memory "
        "bandwidth the rest.",
        P(memory_pct),
        copy ? fmt::format(", copies {} in {}", P(copy->pct), TruncateName(copy->name)) : "",
        P(matrix_pct));
  } else if (matrix_pct >= 50) {
    out.back().decision = fmt::format(
        "The GPU is busy with GEMM and attention kernels ({} of kernel time): lower precision "
        "(BF16/FP8, TF32 for FP32 matmuls), tensor-core-friendly shapes (multiples of 8/16), fused "
        "attention (FlashAttention, SDPA) or a faster GPU speed this job up; host-side tuning "
        "will not.",
        P(matrix_pct));
  }
}

void AppendJudgedFindings(const RankAnalysis& a, const TraceThresholds& th,
                          std::vector<Finding>& out) {
  const std::string& subj = a.subject;
  Signals s = Derive(a, th);
  std::string idle_thr = fmt::format(">= {}", P(th.idle_pct));
  Evidence idle_ev{"gpu_idle_pct", P(s.idle_pct), idle_thr};
  Evidence host_ev{"host_wait_share_of_idle", P(s.host_wait_share),
                   fmt::format(">= {}", P(th.host_wait_share_pct))};
  Evidence short_ev{"kernels_shorter_than_launch", P(s.short_kernel_pct),
                    fmt::format(">= {}", P(th.short_kernel_pct))};
  Evidence kw_ev{"kernel_wait_share_of_idle", P(s.kernel_wait_share), ""};
  Evidence span_ev{"gpu_span", Ms(a.temporal.span_ns), ""};
  Evidence launch_gap_ev{"launch_gap_share_of_idle", P(s.kernel_wait_share + s.short_host_share),
                         fmt::format(">= {} (kernel wait + host wait in gaps < {})",
                                     P(th.launch_gap_share_pct), Ms(th.launch_gap_max_ns))};

  // Idle, host and launch.
  bool launch = LaunchBound(s, th), host = HostBound(s, th);
  bool comm_explains = s.comm_exposed_pct >= th.comm_exposed_pct;
  if (!s.starved) {
    out.push_back(Make("trace.idle", subj, Severity::kOk,
                       fmt::format("GPU idle {} of the span", P(s.idle_pct)), {idle_ev, span_ev}));
  } else if (launch || host || comm_explains) {
    out.push_back(Make("trace.idle", subj, Severity::kInfo,
                       fmt::format("GPU idle {} of the span, explained by {}", P(s.idle_pct),
                                   launch ? "trace.launch_bound"
                                   : host ? "trace.host_cpu_bound"
                                          : "trace.comm_bound"),
                       {idle_ev, span_ev}));
    // Per severity: explained idle takes the decision of the finding that explains it.
    out.back().decision = fmt::format("Follow the decision of {}: the idle time is its.",
                                      launch ? "trace.launch_bound"
                                      : host ? "trace.host_cpu_bound"
                                             : "trace.comm_bound");
  } else {
    out.push_back(Make("trace.idle", subj, Severity::kWarn,
                       fmt::format("GPU idle {} of the span; host wait {} and kernel wait {} of "
                                   "idle, the rest waits on events or other streams",
                                   P(s.idle_pct), P(s.host_wait_share), P(s.kernel_wait_share)),
                       {idle_ev, host_ev, kw_ev, span_ev}));
  }
  std::vector<Evidence> host_evidence = {idle_ev, host_ev};
  for (Evidence& e : HolderEvidence(a.host)) host_evidence.push_back(std::move(e));
  const std::string holder = HolderText(a.host);
  out.push_back(Make(
      "trace.host_cpu_bound", subj, host ? Severity::kWarn : Severity::kOk,
      host ? fmt::format("GPU idle {} of the span; {} of idle is host wait{}", P(s.idle_pct),
                         P(s.host_wait_share), holder.empty() ? "" : "; " + holder)
           : fmt::format(
                 "host wait is {} of the span{}{}", P(s.idle_pct * s.host_wait_share / 100),
                 launch ? ", attributed to launch overhead" : "",
                 a.host.steps > 0 && a.host.has_phases
                     ? fmt::format("; DataLoader {} of step time", P(a.host.dataloader_step_pct))
                     : ""),
      std::move(host_evidence)));
  if (host && a.host.idle_ns > 0) out.back().decision = std::string(TopHolder(a.host).decision);
  std::vector<Evidence> launch_ev = {short_ev,
                                     launch_gap_ev,
                                     kw_ev,
                                     idle_ev,
                                     {"launch_median", Ms(a.launch.launch_median_ns), ""},
                                     {"kernel_median", Ms(a.launch.kernel_median_ns), ""},
                                     {"launch_delay_p50", Ms(a.launch.delay_p50_ns), ""}};
  out.push_back(Make(
      "trace.launch_bound", subj, launch ? Severity::kWarn : Severity::kOk,
      launch ? fmt::format("GPU idle {} of the span between short kernels: {} of {} kernels run "
                           "shorter than their launch",
                           P(s.idle_pct), P(s.short_kernel_pct), a.launch.launches)
             : fmt::format("{} of {} kernels run shorter than their launch", P(s.short_kernel_pct),
                           a.launch.launches),
      launch_ev));

  AppendCopySyncCommFindings(a, th, s, out);
  if (a.verdict.label == Bottleneck::kComputeBound) AppendComputeBound(a, th, s, out);
}

}  // namespace

namespace {

std::string RankList(const std::vector<int>& ranks) {
  return ranks.empty() ? "no rank" : "rank(s) " + FormatCpuList(ranks);
}

// Several runs among the inputs: each described, and compared by mean step with the first.
void AppendSeparateRuns(const CrossRank& x, std::vector<Finding>& out) {
  std::vector<Evidence> ev;
  std::vector<std::string> steps;
  const TraceRun& first = x.runs.front();
  for (size_t i = 0; i < x.runs.size(); ++i) {
    const TraceRun& r = x.runs[i];
    std::string step = r.mean_step_ns > 0 ? fmt::format("mean step {} over {} step(s)",
                                                        Ms(r.mean_step_ns), r.steps)
                                          : "no profiler steps";
    std::vector<int> missing;
    for (int k = 0; k < r.world_size; ++k) {
      if (std::find(r.ranks.begin(), r.ranks.end(), k) == r.ranks.end()) missing.push_back(k);
    }
    ev.push_back(
        {fmt::format("run{}", i + 1),
         fmt::format("{} of world size {}{}, {}, {} file(s), {}", RankList(r.ranks), r.world_size,
                     missing.empty() ? "" : " (missing " + FormatCpuList(missing) + ")", r.device,
                     r.sources.size(), step),
         ""});
    if (i > 0 && r.mean_step_ns > 0 && first.mean_step_ns > 0) {
      ev.push_back(
          {fmt::format("run{}_vs_run1", i + 1),
           fmt::format("mean step {:.2f}x run 1's", static_cast<double>(r.mean_step_ns) /
                                                        static_cast<double>(first.mean_step_ns)),
           ""});
    }
    steps.push_back(r.mean_step_ns > 0 ? Ms(r.mean_step_ns) : "-");
  }
  out.push_back(Make("trace.separate_runs", "all ranks", Severity::kWarn,
                     fmt::format("the inputs are {} separate runs (world size, device, time or a "
                                 "repeated rank differ): ranks are compared only within a run, "
                                 "never across; mean step per run {}",
                                 x.runs.size(), Join(steps, " / ")),
                     std::move(ev)));
}

}  // namespace

void AppendCrossRankFindings(const CrossRank& x, const TraceThresholds& th,
                             std::vector<Finding>& out) {
  if (!x.missing_ranks.empty()) {
    // One rank's file on purpose is common; a set of files with holes is a problem.
    Severity sev = x.ranks_present.size() > 1 ? Severity::kWarn : Severity::kInfo;
    out.push_back(
        Make("trace.input", "all ranks", sev,
             fmt::format("world size {}, traces for {} ranks; missing rank(s) {}", x.world_size,
                         x.ranks_present.size(), FormatCpuList(x.missing_ranks)),
             {{"world_size", std::to_string(x.world_size), ""},
              {"ranks_present", std::to_string(x.ranks_present.size()), ""}}));
    out.back().decision =
        "Pass every rank's trace of the run (a directory of per-rank files) to compare ranks; one "
        "rank's file alone is judged on its own.";
  }
  for (const auto& [rank, files] : x.duplicate_ranks) {
    std::vector<Evidence> ev;
    for (size_t i = 0; i < files.size(); ++i) {
      ev.push_back({fmt::format("file{}", i + 1), files[i], ""});
    }
    out.push_back(Make("trace.input", fmt::format("rank {}", rank), Severity::kWarn,
                       fmt::format("{} inputs claim rank {}: they are separate runs, not the "
                                   "ranks of one job; each is analysed on its own and ranks are "
                                   "not compared",
                                   files.size(), rank),
                       std::move(ev)));
    out.back().decision =
        "Give each run to its own `gpuvet trace` (a before/after pair is compared by reading the "
        "two reports); pass a directory only when it holds one run's per-rank files.";
  }
  if (x.runs.size() > 1) AppendSeparateRuns(x, out);
  if (x.lateness.empty()) return;
  std::vector<Evidence> ev = {{"collective", x.collective, ""},
                              {"steps_compared", std::to_string(x.steps_compared),
                               fmt::format(">= {}", th.straggler_min_steps)}};
  for (const RankLateness& l : x.lateness) {
    ev.push_back({fmt::format("rank{}_late", l.rank),
                  fmt::format("{} steps, mean delay {}", l.late_count, Ms(l.mean_delay_ns)),
                  fmt::format(">= {:.0f} % of steps, delay >= {}", th.straggler_late_share * 100,
                              Ms(static_cast<int64_t>(th.straggler_min_delay_share *
                                                      static_cast<double>(x.mean_step_ns))))});
  }
  ev.push_back({"mean_step", Ms(x.mean_step_ns), ""});
  if (x.clocks_disagree) {
    out.push_back(Make("trace.straggler", "all ranks", Severity::kInfo,
                       fmt::format("no straggler named: a rank's mean delay behind the earliest "
                                   "exceeds a whole mean step ({}), so the ranks' clocks do not "
                                   "line up",
                                   Ms(x.mean_step_ns)),
                       ev));
    out.back().decision =
        "Trace all ranks of one job with a common time base (the same profiler session, hosts "
        "synchronised by NTP/PTP) before comparing them.";
    return;
  }
  if (x.stragglers.empty()) {
    out.push_back(Make("trace.straggler", "all ranks", Severity::kOk,
                       fmt::format("no rank starts the collective last consistently, or late by "
                                   "{:.0f} % of a step, over {} step(s)",
                                   th.straggler_min_delay_share * 100, x.steps_compared),
                       ev));
    return;
  }
  for (int r : x.stragglers) {
    const RankLateness* l = nullptr;
    for (const RankLateness& y : x.lateness) {
      if (y.rank == r) l = &y;
    }
    out.push_back(
        Make("trace.straggler", fmt::format("rank {}", r), Severity::kWarn,
             fmt::format("rank {} starts the collective last in {} of {} steps, {} "
                         "behind the earliest rank on average",
                         r, l ? l->late_count : 0, x.steps_compared, Ms(l ? l->mean_delay_ns : 0)),
             ev));
  }
}

// A rank with a verdict of its own: GPU ops, or kernel counters.
static bool Judged(const RankAnalysis& a) { return a.has_gpu_ops || a.counters.ranges > 0; }

TraceVerdict OverallVerdict(const std::vector<RankAnalysis>& ranks) {
  // label -> (ranks, summed share), ordered by the label's name: ties go to the alphabetically
  // first label.
  auto by_name = [](Bottleneck x, Bottleneck y) { return BottleneckName(x) < BottleneckName(y); };
  std::map<Bottleneck, std::pair<int, double>, decltype(by_name)> votes(by_name);
  int gpu_ranks = 0;
  std::string confidence = "high";
  for (const RankAnalysis& a : ranks) {
    if (!Judged(a)) continue;
    ++gpu_ranks;
    auto& v = votes[a.verdict.label];
    ++v.first;
    v.second += a.verdict.share_pct;
  }
  if (gpu_ranks == 0) {
    for (const RankAnalysis& a : ranks) {
      if (a.verdict.label == Bottleneck::kUnsupportedDevice) return a.verdict;
    }
    return {Bottleneck::kNoGpuActivity, 0, "high", "no rank holds GPU operations"};
  }
  // A bottleneck outranks compute_bound, which outranks insufficient_data.
  auto rank_of = [](Bottleneck label) {
    if (label == Bottleneck::kInsufficientData || label == Bottleneck::kCountersOnly ||
        label == Bottleneck::kStartup || label == Bottleneck::kUnsupportedDevice) {
      return 0;
    }
    return label == Bottleneck::kComputeBound ? 1 : 2;
  };
  auto best = votes.begin();
  for (auto it = votes.begin(); it != votes.end(); ++it) {
    int r = rank_of(it->first), best_r = rank_of(best->first);
    if (r != best_r ? r > best_r
                    : (it->second.first > best->second.first ||
                       (it->second.first == best->second.first &&
                        it->second.second > best->second.second))) {
      best = it;
    }
  }
  for (const RankAnalysis& a : ranks) {
    if (Judged(a) && a.verdict.label == best->first && a.verdict.confidence != "high") {
      confidence = a.verdict.confidence == "low" || confidence == "low" ? "low" : "medium";
    }
  }
  if (gpu_ranks == 1) {
    for (const RankAnalysis& a : ranks) {
      if (Judged(a)) return a.verdict;
    }
  }
  TraceVerdict v{best->first, best->second.second / best->second.first, confidence,
                 fmt::format("{} of {} GPU ranks", best->second.first, gpu_ranks)};
  for (const RankAnalysis& a : ranks) {
    if (Judged(a) && a.verdict.label == v.label) v.share_of = a.verdict.share_of;
  }
  return v;
}

}  // namespace gpuvet
