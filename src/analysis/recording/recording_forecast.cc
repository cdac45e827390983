// Forecast arithmetic. Each term keeps its basis ("BF16 dense 312 → 989 TFLOPS") so the reader
// can redo the sum by hand.
#include "analysis/recording/recording_forecast.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/recording/recording_labels.h"
#include "core/hw/gpu_specs.h"
#include "core/hw/pcie.h"

namespace gpuvet {

namespace {

std::string PartOf(const std::string& label) {
  if (label == "compute_bound" || label == "throttled") return "compute";
  if (label == "memory_bound") return "memory";
  if (label == "transfer_bound") return "transfer";
  if (label == "launch_bound") return "launch";
  if (label == "none") return "not_limited";
  return "host_side";  // host_cpu_bound, host_io_bound, cpu_fallback, idle, periodic stalls
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
  std::map<std::string, double> label_secs;
  std::map<std::string, std::string> detail;  // the detail of the label's longest phase
  std::map<std::string, double> longest;
  double total = 0;
  for (const AnalyzePhase& p : phases) {
    double s = p.end_s - p.start_s;
    if (s <= 0) continue;
    total += s;
    secs[PartOf(p.label.label)] += s;
    label_secs[p.label.label] += s;
    if (s > longest[p.label.label])
      longest[p.label.label] = s, detail[p.label.label] = p.label.detail;
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
      label_secs["periodic_stall"] += take;
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
  std::string worst;
  double worst_s = 0;
  for (const auto& [label, s] : label_secs) {
    std::string part = label == "periodic_stall" ? "host_side" : PartOf(label);
    if ((part == "host_side" || part == "launch") && s > worst_s) worst = label, worst_s = s;
  }
  // A twentieth of the run is worth naming.
  if (!worst.empty() && worst_s / total >= 0.05) {
    f.first_change = fmt::format(
        "{} takes {:.1f} % of wall time and does not shrink on a bigger "
        "GPU: fix it first. {}",
        worst, 100.0 * worst_s / total, DecisionFor(worst, detail[worst]));
  } else if (f.speedup > 1.05) {
    f.first_change = "nothing host-side stands in the way: the upgrade pays roughly as forecast";
  } else {
    f.first_change = "the target is not faster for what this job is bound by";
  }
  return f;
}

}  // namespace gpuvet
