// Forecast arithmetic. Each term keeps its basis ("BF16 dense 312 → 989 TFLOPS") so the reader
// can redo the sum by hand.
#include "analysis/recording/recording_forecast.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "core/bottleneck.h"
#include "core/hw/gpu_specs.h"
#include "core/hw/pcie.h"

namespace gpuvet {

namespace {

// The part of the wall time a label's seconds count in, by how it scales on another GPU.
std::string PartOf(Bottleneck label) {
  switch (label) {
    case Bottleneck::kComputeBound:
    case Bottleneck::kThrottled:
      return "compute";
    case Bottleneck::kMemoryBound:
      return "memory";
    case Bottleneck::kTransferBound:
      return "transfer";
    case Bottleneck::kLaunchBound:
      return "launch";
    case Bottleneck::kNone:
      return "not_limited";
    default:
      return "host_side";  // host_cpu_bound, host_io_bound, cpu_fallback, idle, periodic stalls
  }
}

}  // namespace

std::optional<UpgradeForecast> ForecastUpgrade(const std::vector<AnalyzePhase>& phases,
                                               const std::optional<PeriodicStall>& periodic,
                                               const RecordedGpu* current,
                                               const std::string& target) {
  const GpuSpec* to = FindGpuSpec(target);
  if (!to) return std::nullopt;
  UpgradeForecast f;
  f.target = std::string(to->key);
  const GpuSpec* from = current ? FindGpuSpec(current->name) : nullptr;
  f.current_known = from != nullptr;
  f.current = from ? std::string(from->key) : current ? current->name : "unknown GPU";

  // Seconds per part; periodic stall time counts as host-side, taken from the GPU-side parts
  // pro rata (the stalls sit inside busy phases).
  std::map<std::string, double> secs;
  // Per label, keyed by its name (ties between labels go to the alphabetically first).
  struct LabelTime {
    Bottleneck label = Bottleneck::kNone;
    double seconds = 0;
    Subcase detail = Subcase::kNone;  // the detail of the label's longest phase
    double longest = 0;
  };
  std::map<std::string_view, LabelTime> label_secs;
  double total = 0;
  for (const AnalyzePhase& p : phases) {
    double s = p.end_s - p.start_s;
    if (s <= 0) continue;
    total += s;
    secs[PartOf(p.label.label)] += s;
    LabelTime& lt = label_secs[BottleneckName(p.label.label)];
    lt.label = p.label.label;
    lt.seconds += s;
    if (s > lt.longest) lt.longest = s, lt.detail = p.label.detail;
  }
  if (total <= 0) return f;
  if (periodic) {
    double stall = periodic->share_pct / 100.0 * total;
    double gpu_side = secs["compute"] + secs["memory"] + secs["transfer"];
    if (gpu_side > 0) {
      double take = std::min(stall, gpu_side);
      for (const char* part : {"compute", "memory", "transfer"}) {
        secs[part] -= take * secs[part] / gpu_side;
      }
      secs["host_side"] += take;
      LabelTime& lt = label_secs[BottleneckName(Bottleneck::kPeriodicStall)];
      lt.label = Bottleneck::kPeriodicStall;
      lt.seconds += take;
    }
  }

  double link_from = 0;
  if (current && current->pcie_gen_max && current->pcie_width_max) {
    link_from = PcieLinkGbps(*current->pcie_gen_max, *current->pcie_width_max);
  } else if (from) {
    link_from = PcieLinkGbps(from->pcie_gen, from->pcie_width);
  }
  double link_to = PcieLinkGbps(to->pcie_gen, to->pcie_width);
  double estimate = 0;
  for (const char* part : {"host_side", "launch", "not_limited", "compute", "memory", "transfer"}) {
    double s = secs[part];
    if (s <= 0) continue;
    ForecastTerm t;
    t.part = part;
    t.share_pct = 100.0 * s / total;
    std::string p = part;
    if (p == "compute") {
      if (from) {
        t.scale = from->fp16_tflops / to->fp16_tflops;
        t.basis = fmt::format("dense FP16/BF16 tensor {:.0f} -> {:.0f} TFLOPS", from->fp16_tflops,
                              to->fp16_tflops);
      } else {
        t.basis = "current GPU not in the spec table: assumed unchanged";
      }
    } else if (p == "memory") {
      if (from) {
        t.scale = from->memory_gbps / to->memory_gbps;
        t.basis = fmt::format("memory bandwidth {:.0f} -> {:.0f} GB/s", from->memory_gbps,
                              to->memory_gbps);
      } else {
        t.basis = "current GPU not in the spec table: assumed unchanged";
      }
    } else if (p == "transfer") {
      if (link_from > 0 && link_to > 0) {
        t.scale = link_from / link_to;
        t.basis = fmt::format("PCIe {:.1f} -> {:.1f} GB/s per direction", link_from, link_to);
      } else {
        t.basis = "current link unknown: assumed unchanged";
      }
    } else if (p == "launch") {
      t.basis = "launch overhead is host-side: does not shrink";
    } else if (p == "not_limited") {
      t.basis = "the GPU is not the limit here: does not shrink";
    } else {
      t.basis = "host-side waiting does not shrink on a bigger GPU";
    }
    estimate += s * t.scale;
    f.terms.push_back(t);
  }
  f.speedup = estimate > 0 ? total / estimate : 1;
  double fixed = secs["host_side"] + secs["launch"] + secs["not_limited"];
  f.max_speedup = fixed > 0 ? total / fixed : 0;  // 0: unbounded (all GPU-side)
  for (const GpuSpec* s : {from, to}) {
    if (s && std::find(f.sources.begin(), f.sources.end(), s->source) == f.sources.end()) {
      f.sources.emplace_back(s->source);
    }
  }
  f.summary = fmt::format("a move from {} to {} would speed this job up by about {:.2f}x",
                          f.current, f.target, f.speedup);
  if (f.max_speedup > 0) {
    f.summary += fmt::format("; any faster GPU by at most {:.2f}x", f.max_speedup);
  }
  // What must change first: the largest label that does not shrink.
  const LabelTime* worst = nullptr;
  double worst_s = 0;
  for (const auto& [name, lt] : label_secs) {
    std::string part = PartOf(lt.label);
    if ((part == "host_side" || part == "launch") && lt.seconds > worst_s) {
      worst = &lt, worst_s = lt.seconds;
    }
  }
  // A twentieth of the run is worth naming.
  if (worst && worst_s / total >= 0.05) {
    f.first_change = fmt::format(
        "{} takes {:.1f} % of wall time and does not shrink on a bigger "
        "GPU: fix it first. {}",
        BottleneckName(worst->label), 100.0 * worst_s / total,
        DecisionFor(worst->label, worst->detail));
  } else if (f.speedup > 1.05) {
    f.first_change = "nothing host-side stands in the way: the upgrade pays roughly as forecast";
  } else {
    f.first_change = "the target is not faster for what this job is bound by";
  }
  return f;
}

}  // namespace gpuvet
