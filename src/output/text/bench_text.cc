// Bench text renderer: fixed-width tables (stable for goldens and `grep`), then the shared
// findings layout. Figures that were not measured say why instead of showing 0.
#include "output/text/bench_text.h"

#include <fmt/format.h>

#include <map>

#include "core/report.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

std::string Num(double v) {
  return v >= 1000 ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v);
}

const BenchExpectation* FindExpectation(const BenchReport& r, const BenchMeasurement& m) {
  for (const BenchExpectation& e : r.expectations) {
    if (e.id == m.id && e.gpu == m.gpu && e.peer == m.peer && e.numa_node == m.numa_node) {
      return &e;
    }
  }
  return nullptr;
}

std::string Row(const BenchReport& r, const BenchMeasurement& m, const std::string& label) {
  if (m.outcome == BenchOutcome::kAbandoned &&
      m.skipped.find("stopped working") != std::string::npos) {
    return fmt::format("    {:<28}  not run: the GPU had stopped working (see gpu{} above)\n",
                       label, m.gpu);
  }
  if (!m.measured()) {
    const char* what = m.outcome == BenchOutcome::kFailed       ? "FAILED"
                       : m.outcome == BenchOutcome::kIncomplete ? "not measured (local)"
                                                                : "not measured";
    return fmt::format("    {:<28}  {}: {}\n", label, what, m.skipped);
  }
  std::string measured = Num(m.median) + " " + m.unit;
  std::string expected = "-", ratio = "-";
  if (const BenchExpectation* e = FindExpectation(r, m); e && e->expected > 0) {
    expected = Num(e->expected) + " " + m.unit;
    ratio = fmt::format("{:.2f}", e->ratio);
  }
  std::string spread =
      m.samples.size() > 1 ? fmt::format("  [{} .. {}]", Num(m.min), Num(m.max)) : "";
  return fmt::format("    {:<28}  {:>20}  {:>18}  {:>5}{}\n", label, measured, expected, ratio,
                     spread);
}

std::string TableHead() {
  return fmt::format("    {:<28}  {:>20}  {:>18}  {:>5}\n", "figure", "measured", "expected",
                     "ratio");
}

template <typename T>
std::string Or(const Reading<T>& r, const std::string& prefix) {
  return r.has() ? prefix + std::to_string(*r) : prefix + "?";
}

std::string GpuLine(const BenchGpu& g) {
  std::string pcie = Or(g.pcie_gen_loaded, "Gen") + " " + Or(g.pcie_width, "x");
  pcie += " loaded (max " + Or(g.pcie_gen_max, "Gen") + " " + Or(g.pcie_width_max, "x");
  if (g.pcie_gen_idle.has()) pcie += ", " + Or(g.pcie_gen_idle, "Gen") + " idle";
  pcie += ")";
  std::string line =
      fmt::format("gpu{}  {}  {}  cc {}.{}  {} SMs  PCIe {}  NUMA {}\n", g.index, g.name,
                  g.pci_bus_id.empty() ? "-" : g.pci_bus_id, g.cc_major, g.cc_minor, g.sm_count,
                  pcie, g.numa_node.has() ? std::to_string(*g.numa_node) : "-");
  if (!g.failed.empty()) line += "  FAILED " + g.failed + "\n";
  return line;
}

std::string Header(const BenchReport& r) {
  const BenchRun& run = r.run;
  std::string out = fmt::format("gpuvet bench{}\n", run.mode.empty() ? "" : " (" + run.mode + ")");
  if (run.state == BenchState::kOk || (run.state == BenchState::kTimedOut && !run.gpus.empty())) {
    std::map<std::string, int> models;
    for (const BenchGpu& g : run.gpus) ++models[g.name.empty() ? "unnamed GPU" : g.name];
    std::vector<std::string> parts;
    for (const auto& [name, n] : models) parts.push_back(fmt::format("{} × {}", n, name));
    out += fmt::format("  GPUs:     {}\n", parts.empty() ? "none" : Join(parts, ", "));
    out += fmt::format("  driver:   CUDA {}.{} ({})\n", run.driver_version / 1000,
                       (run.driver_version % 1000) / 10, run.library);
    if (run.state == BenchState::kTimedOut) out += fmt::format("  stopped:  {}\n", run.detail);
  } else {
    out += fmt::format("  GPUs:     not benchmarked ({})\n", run.detail);
  }
  out += fmt::format("  policy:   {}\n", r.policy_source);
  if (!r.baseline_source.empty()) out += fmt::format("  baseline: {}\n", r.baseline_source);
  return out;
}

}  // namespace

std::string BenchVerdictLine(const BenchReport& report) {
  if (NothingMeasured(report.run)) {
    return fmt::format("verdict: NOTHING MEASURED ({})",
                       report.run.detail.empty() ? "no benchmark could run on this node"
                                                 : "no benchmark ran: " + report.run.detail);
  }
  CheckReport shim;
  shim.findings = report.findings;
  shim.verdict = report.verdict;
  return VerdictLine(shim);
}

std::string RenderBenchText(const BenchReport& r, const TextOptions& options) {
  std::string out = Header(r);
  for (const BenchGpu& g : r.run.gpus) {
    out += "\n" + GpuLine(g) + TableHead();
    for (const BenchMeasurement& m : r.run.measurements) {
      if (m.gpu != g.index || m.peer >= 0) continue;
      std::string label = m.id;
      // Only the remote-node copies need their node named; the rest ran on the GPU's own.
      if (m.numa_node >= 0 && m.id.ends_with("_remote")) {
        label += fmt::format(" (node {})", m.numa_node);
      }
      out += Row(r, m, label);
    }
  }
  std::string multi;
  for (const BenchMeasurement& m : r.run.measurements) {
    if (m.peer >= 0) {
      multi += Row(r, m, fmt::format("{} gpu{}->gpu{}", m.id, m.gpu, m.peer));
    } else if (m.gpu < 0) {
      multi += Row(r, m, m.id);
    }
  }
  if (!multi.empty()) out += "\nmulti-GPU\n" + TableHead() + multi;
  if (!r.run.notes.empty()) {
    out += "\nnotes\n";
    for (const std::string& n : r.run.notes) out += "  " + n + "\n";
  }
  out += "\n" + RenderFindings(r.findings, options);
  std::string verdict = BenchVerdictLine(r);
  if (options.color) {
    const char* colour = r.verdict == Severity::kFail || NothingMeasured(r.run) ? "\033[1;31m"
                         : r.verdict == Severity::kOk                           ? "\033[32m"
                                                                                : "\033[33m";
    verdict = colour + verdict + "\033[0m";
  }
  return out + "\n" + verdict + "\n";
}

}  // namespace gpuvet
