// Forecast of a recording. The busy time is split by the best evidence at hand (trace > GPM >
// nothing); each part's basis names the figures used so the reader can redo the sum by hand.
#include "analysis/recording/recording_forecast.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>

#include "core/bottleneck.h"
#include "core/hw/gpu_specs.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

enum class Part { kHostSide, kLaunch, kNotLimited, kTransfer, kBusy };

Part PartOf(Bottleneck label) {
  switch (label) {
    case Bottleneck::kComputeBound:
    case Bottleneck::kThrottled:
    case Bottleneck::kMemoryBound:
      return Part::kBusy;
    case Bottleneck::kTransferBound:
      return Part::kTransfer;
    case Bottleneck::kLaunchBound:
      return Part::kLaunch;
    case Bottleneck::kNone:
      return Part::kNotLimited;
    default:
      return Part::kHostSide;  // host_cpu_bound, host_io_bound, cpu_fallback, idle, periodic
  }
}

// Means over one phase's samples of the judged GPUs.
struct PhaseCounters {
  double tensor = 0, dram = 0;  // GPM means, percent
  int gpm_n = 0, n = 0;
  double power = 0;
  int power_n = 0;
};

PhaseCounters CountersOf(const ForecastInputs& in, double start, double end) {
  PhaseCounters c;
  if (!in.signals) return c;
  for (const SampleSignals& x : in.signals->samples) {
    if (x.t < start || x.t >= end) continue;
    ++c.n;
    if (std::isfinite(x.tensor_active) && std::isfinite(x.dram_bw)) {
      c.tensor += x.tensor_active, c.dram += x.dram_bw, ++c.gpm_n;
    }
    if (std::isfinite(x.power_w)) c.power += x.power_w, ++c.power_n;
  }
  if (c.gpm_n) c.tensor /= c.gpm_n, c.dram /= c.gpm_n;
  if (c.power_n) c.power /= c.power_n;
  return c;
}

// Below this sum of tensor activity and DRAM utilisation (percent) neither governs the busy time.
constexpr double kGpmSplitMinPct = 10;

}  // namespace

std::optional<UpgradeForecast> ForecastUpgrade(const std::vector<AnalyzePhase>& phases,
                                               const std::optional<PeriodicStall>& periodic,
                                               const RecordedGpu* current,
                                               const std::string& target,
                                               const ForecastInputs& in) {
  const GpuSpec* to = FindGpuSpec(target);
  if (!to) return std::nullopt;
  const GpuSpec* from_row = current ? FindGpuSpec(current->name) : nullptr;
  // The recorded link counts (a downtrained x8 is what the job has), not the datasheet's.
  std::optional<GpuSpec> from;
  if (from_row) {
    from = *from_row;
    if (current->pcie_gen_max && current->pcie_width_max && from->c2c_gbps <= 0) {
      from->pcie_gen = *current->pcie_gen_max;
      from->pcie_width = *current->pcie_width_max;
    }
  }
  // A trace counts only when it ran on the recorded model (or does not say).
  std::vector<std::string> notes;
  const TimeBudget* trace = in.trace;
  if (trace && !in.trace_gpu.empty()) {
    const GpuSpec* tg = FindGpuSpec(in.trace_gpu);
    if (!from_row || tg != from_row) {
      notes.push_back(fmt::format("the trace ran on {}, the recording on {}: trace not used",
                                  in.trace_gpu, current ? current->name : "an unknown GPU"));
      trace = nullptr;
    }
  } else if (trace) {
    notes.push_back("the trace does not name its GPU: taken to be the recorded one");
  }
  double trace_busy = 0;
  if (trace) {
    for (const BudgetPart& p : trace->parts) {
      if (p.governor != ForecastGovernor::kUnchanged) trace_busy += p.seconds;
    }
    if (trace_busy <= 0) {
      notes.push_back("the trace holds no GPU work: trace not used");
      trace = nullptr;
    }
  }

  double total = 0, host = 0, launch = 0, not_limited = 0, transfer = 0;
  double busy_tensor = 0, busy_memory = 0, busy_unsplit = 0, busy_neither = 0, busy_all = 0;
  double power_sum = 0, power_s = 0, gpm_tensor_s = 0, gpm_dram_s = 0, gpm_s = 0;
  struct LabelTime {
    Bottleneck label = Bottleneck::kNone;
    double seconds = 0;
    Subcase detail = Subcase::kNone;  // the detail of the label's longest phase
    double longest = 0;
  };
  std::map<std::string_view, LabelTime> label_secs;  // by name: ties go alphabetically
  double stalled = 0;
  for (const AnalyzePhase& p : phases) {
    double s = p.end_s - p.start_s;
    if (s <= 0) continue;
    // A stalled phase does not progress on any GPU: it is left out of the budget, never scaled.
    if (p.label.label == Bottleneck::kStalled) {
      stalled += s;
      continue;
    }
    total += s;
    LabelTime& lt = label_secs[BottleneckName(p.label.label)];
    lt.label = p.label.label;
    lt.seconds += s;
    if (s > lt.longest) lt.longest = s, lt.detail = p.label.detail;
    switch (PartOf(p.label.label)) {
      case Part::kHostSide:
        host += s;
        break;
      case Part::kLaunch:
        launch += s;
        break;
      case Part::kNotLimited:
        not_limited += s;
        break;
      case Part::kTransfer:
        transfer += s;
        break;
      case Part::kBusy: {
        busy_all += s;
        PhaseCounters c = CountersOf(in, p.start_s, p.end_s);
        if (c.power_n) power_sum += c.power * s, power_s += s;
        bool gpm = c.n > 0 && c.gpm_n * 2 >= c.n;
        if (gpm) gpm_tensor_s += c.tensor * s, gpm_dram_s += c.dram * s, gpm_s += s;
        if (trace) break;  // split below by the trace's mix
        if (gpm && c.tensor + c.dram >= kGpmSplitMinPct) {
          busy_tensor += s * c.tensor / (c.tensor + c.dram);
          busy_memory += s * c.dram / (c.tensor + c.dram);
        } else if (gpm) {
          busy_neither += s;
        } else {
          busy_unsplit += s;
        }
        break;
      }
    }
  }
  // Periodic stalls sit inside busy phases: their time moves to host-side, pro rata.
  if (periodic && total > 0) {
    double stall = periodic->share_pct / 100.0 * total;
    double gpu_side = busy_all + transfer;
    if (gpu_side > 0) {
      double take = std::min(stall, gpu_side), keep = 1 - take / gpu_side;
      busy_all *= keep, transfer *= keep, busy_tensor *= keep, busy_memory *= keep;
      busy_unsplit *= keep, busy_neither *= keep;
      host += take;
      LabelTime& lt = label_secs[BottleneckName(Bottleneck::kPeriodicStall)];
      lt.label = Bottleneck::kPeriodicStall;
      lt.seconds += take;
    }
  }

  if (stalled > 0) {
    notes.push_back(fmt::format(
        "{:.0f} s of stalled time (a kernel or collective not progressing) left out: no GPU "
        "speeds up a job that does not progress",
        stalled));
  }
  if (total <= 0 && stalled > 0) {
    UpgradeForecast f;
    f.target = std::string(to->key);
    f.current = current ? current->name : "unknown GPU";
    f.summary = fmt::format(
        "no forecast: the recording is stalled throughout (a kernel or collective not "
        "progressing); a move to {} would not make it progress",
        to->key);
    f.first_change = std::string(DecisionFor(Bottleneck::kStalled));
    f.notes = notes;
    return f;
  }

  std::vector<BudgetPart> budget;
  auto add = [&budget](std::string id, ForecastGovernor g, double s, std::string note,
                       MathPrecision prec = MathPrecision::kUnknown) {
    BudgetPart b;
    b.part = std::move(id), b.governor = g, b.seconds = s, b.note = std::move(note);
    b.precision = prec;
    budget.push_back(std::move(b));
  };
  add("host_side", ForecastGovernor::kUnchanged, host,
      "host-side waiting does not shrink on a bigger GPU");
  add("launch", ForecastGovernor::kUnchanged, launch,
      "launch overhead is host-side: does not shrink");
  add("not_limited", ForecastGovernor::kUnchanged, not_limited,
      "the GPU is not the limit here: does not shrink");
  add("transfer", ForecastGovernor::kHostLink, transfer, "");
  if (trace) {
    for (const BudgetPart& p : trace->parts) {
      if (p.governor == ForecastGovernor::kUnchanged) continue;
      BudgetPart b = p;
      b.part = "busy:" + p.part;
      b.seconds = busy_all * p.seconds / trace_busy;
      budget.push_back(std::move(b));
    }
  } else {
    add("busy_tensor", ForecastGovernor::kTensor, busy_tensor, "", MathPrecision::kBf16);
    add("busy_memory", ForecastGovernor::kMemory, busy_memory, "");
    add("busy", ForecastGovernor::kBusyUnsplit, busy_unsplit + busy_neither, "");
  }
  std::erase_if(budget, [](const BudgetPart& b) { return b.seconds <= 0; });

  UpgradeForecast f = ForecastFromBudget(budget, from ? &*from : nullptr, *to);
  f.current_from = from ? "recording" : "";
  if (!from) {
    f.current = current ? current->name : "unknown GPU";
    f.summary = fmt::format("{} is not in the spec table: no move to {} can be forecast", f.current,
                            f.target);
  }
  f.notes = notes;
  if (stalled > 0) {
    f.summary = fmt::format("healthy phases only ({:.0f} s; the {:.0f} s stalled are left out): {}",
                            total, stalled, f.summary);
  }
  if (!f.computed) return f;

  // Evidence: what the counters said about the busy time.
  if (gpm_s > 0) {
    f.evidence.push_back(fmt::format(
        "GPM over the busy phases: tensor pipes active {:.0f} %, DRAM bandwidth {:.0f} % of peak",
        gpm_tensor_s / gpm_s, gpm_dram_s / gpm_s));
  }
  if (power_s > 0 && current && current->power_limit_w && *current->power_limit_w > 0) {
    double w = power_sum / power_s, pct = 100.0 * w / *current->power_limit_w;
    std::string reading =
        pct < 50 ? "a tensor-saturated GPU draws near its limit: this looks more like memory- or "
                   "latency-bound work"
        : pct >= 80 ? "consistent with heavy tensor work (or a power cap)"
                    : "neither near the limit nor far below it: no lean either way";
    f.evidence.push_back(
        fmt::format("busy but drawing {:.0f} % of its {:.0f} W power limit (mean "
                    "{:.0f} W): {}",
                    pct, *current->power_limit_w, w, reading));
  }
  if (trace) {
    std::vector<std::string> mix;
    for (const BudgetPart& p : trace->parts) {
      if (p.governor != ForecastGovernor::kUnchanged) {
        mix.push_back(fmt::format("{} {:.0f} %", p.part, 100.0 * p.seconds / trace_busy));
      }
    }
    f.evidence.push_back(fmt::format("busy time split as in the trace{}: {}",
                                     in.trace_label.empty() ? "" : " " + in.trace_label,
                                     Join(mix, ", ")));
  }
  if (f.range) {
    std::vector<std::string> why;
    if (busy_unsplit > 0) {
      why.push_back(fmt::format(
          "{:.1f} % of the time is GPU-busy by GPU-Util, which counts the time a kernel ran, not "
          "what limited it; without GPM metrics (tensor activity, DRAM bandwidth) that time could "
          "scale with tensor throughput or with memory bandwidth",
          100.0 * busy_unsplit / total));
      f.narrow_by =
          "GPM metrics (gpuvet record samples tensor activity and DRAM bandwidth utilisation on "
          "Hopper and newer), or a trace of the job: gpuvet analyze REC --trace FILE";
    }
    if (busy_neither > 0) {
      why.push_back(fmt::format(
          "{:.1f} % of the time is busy with neither tensor pipes nor DRAM loaded (latency- or "
          "occupancy-bound kernels)",
          100.0 * busy_neither / total));
      if (f.narrow_by.empty()) f.narrow_by = "a trace of the job: gpuvet analyze REC --trace FILE";
    }
    if (trace) why.push_back("the trace's own kernels of uncertain class or precision");
    f.range_reason = Join(why, "; ");
  }
  if (busy_tensor > 0) {
    f.notes.push_back(
        "tensor-active time is scaled at dense BF16/FP16: GPM does not give the "
        "precision");
  }

  // What must change first: the largest label that does not shrink.
  const LabelTime* worst = nullptr;
  for (const auto& [name, lt] : label_secs) {
    Part part = PartOf(lt.label);
    if ((part == Part::kHostSide || part == Part::kLaunch) &&
        (!worst || lt.seconds > worst->seconds)) {
      worst = &lt;
    }
  }
  if (worst && worst->seconds / total >= 0.05) {  // a twentieth of the run is worth naming
    f.first_change = fmt::format(
        "{} takes {:.1f} % of wall time and does not shrink on a bigger GPU: fix it first. {}",
        BottleneckName(worst->label), 100.0 * worst->seconds / total,
        DecisionFor(worst->label, worst->detail));
  } else if (f.speedup_low > 1.05) {
    f.first_change = "nothing host-side stands in the way: the upgrade pays roughly as forecast";
  } else {
    f.first_change = "the target is not faster for what this job is bound by";
  }
  return f;
}

}  // namespace gpuvet
