// bench.regression (bench_regression.h).
#include "rules/bench_regression.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

#include "rules/bench_format.h"
#include "rules/bench_rules.h"
#include "rules/rule_util.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

bool LowerIsBetter(const std::string& id) { return id == "launch_latency" || id == "p2p_latency"; }

// "0000:1B:00.0", "1b:00.0" -> "0000:1b:00.0": bus ids compared across runs and drivers.
std::string NormalBusId(std::string id) {
  id = ToLower(id);
  if (std::count(id.begin(), id.end(), ':') == 1) id = "0000:" + id;
  return id;
}

// Matches figures of the baseline to this run: by the PCI bus id of each ordinal when both runs
// recorded it (ordinals change when GPUs are added, removed or reordered), else by ordinal.
class GpuMatcher {
 public:
  GpuMatcher(const BenchRun& run, const BenchBaseline& base) {
    for (const BenchGpu& g : run.gpus) {
      if (!g.pci_bus_id.empty()) now_[g.index] = NormalBusId(g.pci_bus_id);
    }
    for (const auto& [index, bus] : base.bus_ids) then_[index] = NormalBusId(bus);
  }
  // The current ordinal of the baseline's `ordinal` (-1 stays -1: all-GPU figures); -2 when the
  // baseline's GPU is not in this run.
  int Current(int ordinal) const {
    if (ordinal < 0) return ordinal;
    auto then = then_.find(ordinal);
    if (then == then_.end() || now_.empty()) return ordinal;
    for (const auto& [index, bus] : now_) {
      if (bus == then->second) return index;
    }
    return -2;
  }
  bool by_bus_id() const { return !then_.empty() && !now_.empty(); }

 private:
  std::map<int, std::string> now_, then_;
};

std::string RegressionSubject(const BenchRun& run, int gpu, int peer) {
  if (peer >= 0) return fmt::format("gpu{} -> gpu{}", gpu, peer);
  if (gpu >= 0) return BenchSubject(FindBenchGpu(run, gpu), gpu);
  return "all GPUs";
}

}  // namespace

std::vector<Finding> JudgeBenchRegression(const BenchRun& run, const BenchBaseline& baseline,
                                          double max_drop) {
  std::vector<Finding> out;
  const GpuMatcher match(run, baseline);
  std::vector<Evidence> improved;
  // Figures the baseline measured that this run did not, grouped by subject.
  std::map<std::string, std::vector<std::string>> lost;
  int compared = 0;
  for (const BenchMeasurement& b : baseline.measurements) {
    if (!b.measured() || b.median <= 0) continue;
    const int gpu = match.Current(b.gpu), peer = match.Current(b.peer);
    const BenchMeasurement* m = nullptr;
    if (gpu != -2 && peer != -2) {
      for (const BenchMeasurement& x : run.measurements) {
        if (x.id == b.id && x.gpu == gpu && x.peer == peer) m = &x;
      }
    }
    if (m == nullptr || !m->measured() || m->median <= 0) {
      const std::string subject =
          gpu == -2 || peer == -2 ? fmt::format("baseline gpu{}{}", b.gpu,
                                                b.peer >= 0 ? fmt::format(" -> gpu{}", b.peer) : "")
                                  : RegressionSubject(run, gpu, peer);
      std::string why = m == nullptr
                            ? (gpu == -2 || peer == -2 ? "GPU not in this run" : "not in this run")
                            : m->skipped;
      lost[subject].push_back(fmt::format("{} ({}): {}", b.id, BenchFigure(b.median, b.unit), why));
      continue;
    }
    ++compared;
    std::string subject = RegressionSubject(run, gpu, peer);
    std::vector<Evidence> ev = {{"measured", BenchFigure(m->median, m->unit), ""},
                                {"baseline", BenchFigure(b.median, b.unit), ""}};
    if (gpu != b.gpu) ev.push_back({"baseline_gpu", fmt::format("gpu{}", b.gpu), "same bus id"});
    if (LowerIsBetter(m->id)) {
      // Latencies: "11.2× slower" — a percentage of the new value would understate it.
      const double factor = m->median / b.median;
      if (factor - 1 > max_drop) {
        ev.push_back(
            {"factor", fmt::format("{:.1f}×", factor), fmt::format("<= {:.2f}×", 1 + max_drop)});
        out.push_back(MakeFinding(
            "bench.regression", subject, Severity::kWarn,
            fmt::format("{} {} is {:.1f}× slower than the baseline's {}", BenchLabel(m->id),
                        BenchFigure(m->median, m->unit), factor, BenchFigure(b.median, b.unit)),
            ev));
      } else if (1 / factor - 1 > max_drop) {
        improved.push_back({m->id + (m->gpu >= 0 ? fmt::format("@gpu{}", m->gpu) : ""),
                            fmt::format("{:.1f}× faster", 1 / factor), ""});
      }
      continue;
    }
    const double change = m->median / b.median - 1;  // share of the baseline
    if (change < -max_drop) {
      ev.push_back(
          {"change", BenchPct(change), fmt::format(">= -{} of the baseline", BenchPct(max_drop))});
      out.push_back(MakeFinding("bench.regression", subject, Severity::kWarn,
                                fmt::format("{} {} is {} below the baseline's {}",
                                            BenchLabel(m->id), BenchFigure(m->median, m->unit),
                                            BenchPct(-change), BenchFigure(b.median, b.unit)),
                                ev));
    } else if (change > max_drop) {
      improved.push_back({m->id + (m->gpu >= 0 ? fmt::format("@gpu{}", m->gpu) : ""),
                          fmt::format("+{}", BenchPct(change)), ""});
    }
  }
  for (const auto& [subject, figures] : lost) {
    std::vector<Evidence> ev;
    for (const std::string& f : figures) ev.push_back({"missing", f, ""});
    Finding f =
        MakeFinding("bench.regression", subject, Severity::kWarn,
                    fmt::format("{} figure(s) the baseline measured were not measured now: {}",
                                figures.size(), figures.front()),
                    ev);
    f.meaning =
        "Figures the baseline measured are missing from this run: a GPU gone from the node, or a "
        "benchmark that failed or could not run. A lost GPU must not read as no regression.";
    f.decision =
        "If a GPU is gone, run `gpuvet check` (GPU count, Xid 79 \"fallen off the bus\", PCIe) "
        "and drain the node; otherwise see the finding of the figure that failed.";
    out.push_back(std::move(f));
  }
  if (!baseline.mode.empty() && !run.mode.empty() && baseline.mode != run.mode) {
    const bool flag = baseline.mode == "quick" || baseline.mode == "full";
    Finding f = MakeFinding(
        "bench.regression", "baseline", Severity::kWarn,
        fmt::format("the baseline ran in {} mode, this run in {} mode: buffer sizes and sample "
                    "counts differ, so the comparison is approximate{}",
                    baseline.mode, run.mode,
                    flag ? fmt::format(" (rerun with --{})", baseline.mode) : ""),
        {{"baseline_mode", baseline.mode, ""}, {"mode", run.mode, ""}});
    f.meaning =
        "The two runs used different sizes and sample counts; figures may differ for that "
        "reason alone.";
    f.decision = "Compare runs of the same mode.";
    out.push_back(std::move(f));
  }
  improved.insert(improved.begin(), {"compared", std::to_string(compared), ""});
  improved.insert(improved.begin() + 1,
                  {"matched_by", match.by_bus_id() ? "PCI bus id" : "CUDA ordinal", ""});
  out.push_back(MakeFinding("bench.regression", "baseline", Severity::kOk,
                            fmt::format("{} figures compared with the baseline (drop limit {})",
                                        compared, BenchPct(max_drop)),
                            improved));
  return out;
}

}  // namespace gpuvet
