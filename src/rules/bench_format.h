// How bench findings word GPUs and figures, shared by the bench rules (bench_rules.cc) and the
// baseline comparison (bench_regression.cc): "gpu0 (0000:1b:00.0)", "53.0 GB/s", "17 %".
#pragma once

#include <fmt/format.h>

#include <string>

#include "core/bench.h"
#include "rules/rule_util.h"

namespace gpuvet {

// "gpu0 (0000:1b:00.0)", or "gpu0" when `g` is null or has no bus id.
inline std::string BenchSubject(const BenchGpu* g, int index) {
  if (!g || g->pci_bus_id.empty()) return fmt::format("gpu{}", index);
  return fmt::format("gpu{} ({})", index, g->pci_bus_id);
}

// The GPU of `run` with CUDA ordinal `index`, or null.
inline const BenchGpu* FindBenchGpu(const BenchRun& run, int index) {
  for (const BenchGpu& g : run.gpus) {
    if (g.index == index) return &g;
  }
  return nullptr;
}

// "53.0 GB/s"; no decimals from 1000 up ("3000 GB/s").
inline std::string BenchFigure(double v, const std::string& unit) {
  return fmt::format("{} {}", FormatNumber(v, v >= 1000 ? 0 : 1), unit);
}

// 0.17 -> "17 %".
inline std::string BenchPct(double ratio) { return fmt::format("{:.0f} %", ratio * 100); }

}  // namespace gpuvet
