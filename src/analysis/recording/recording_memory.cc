// Memory growth (least-squares slope per process RSS and per GPU memory in use, with time to OOM
// against the headroom left at the end) and the per-GPU throttling summary.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/recording/recording_detectors.h"
#include "core/gpu_state.h"

namespace gpuvet {

namespace {

struct Series {
  std::vector<double> t, y;
};

struct Fit {
  double slope = 0, intercept = 0, r2 = 0;
};

Fit LeastSquares(const std::vector<double>& x, const std::vector<double>& y, size_t begin,
                 size_t end) {
  Fit f;
  double n = static_cast<double>(end - begin);
  if (n < 2) return f;
  double mx = 0, my = 0;
  for (size_t i = begin; i < end; ++i) mx += x[i], my += y[i];
  mx /= n, my /= n;
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = begin; i < end; ++i) {
    double dx = x[i] - mx, dy = y[i] - my;
    sxx += dx * dx, sxy += dx * dy, syy += dy * dy;
  }
  if (sxx <= 0) return f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 0;
  return f;
}

std::string Gib(double b) { return fmt::format("{:.1f} GiB", b / (1024.0 * 1024 * 1024)); }

// A growth entry when the series grows steadily, else nullopt.
std::optional<MemoryGrowth> Judge(const Series& s, const AnalyzeThresholds& th) {
  size_t n = s.t.size();
  if (n < 10 || s.t.back() - s.t.front() < th.leak_min_s) return std::nullopt;
  Fit all = LeastSquares(s.t, s.y, 0, n);
  Fit last = LeastSquares(s.t, s.y, n - n / 3, n);
  double start = all.intercept + all.slope * s.t.front();
  double end = all.intercept + all.slope * s.t.back();
  double growth = end - start;
  if (all.slope <= 0 || all.r2 < th.leak_r2 || growth < th.leak_min_bytes ||
      growth < std::max(start, 1.0) * th.leak_growth_pct / 100.0 || last.slope < 0.5 * all.slope) {
    return std::nullopt;
  }
  MemoryGrowth g;
  g.start_bytes = s.y.front();
  g.end_bytes = s.y.back();
  g.slope_bytes_per_s = all.slope;
  g.r2 = all.r2;
  return g;
}

}  // namespace

std::vector<MemoryGrowth> DetectMemoryGrowth(const Recording& rec, const std::vector<int>& gpus,
                                             const AnalyzeThresholds& th) {
  std::map<int, Series> rss;
  std::map<int, std::string> comm;
  std::map<int, Series> gpu_mem;
  std::optional<double> mem_available;
  for (const Sample& s : rec.samples) {
    for (const ProcessSample& p : s.processes) {
      if (!p.rss_bytes) continue;
      Series& x = rss[p.pid];
      x.t.push_back(s.t);
      x.y.push_back(static_cast<double>(*p.rss_bytes));
      comm[p.pid] = p.comm;
    }
    for (const GpuSample& g : s.gpus) {
      if (!g.memory_used_bytes || !std::count(gpus.begin(), gpus.end(), g.gpu)) continue;
      Series& x = gpu_mem[g.gpu];
      x.t.push_back(s.t);
      x.y.push_back(static_cast<double>(*g.memory_used_bytes));
    }
    if (s.host.mem_available_bytes)
      mem_available = static_cast<double>(*s.host.mem_available_bytes);
  }
  std::vector<MemoryGrowth> out;
  for (const auto& [pid, series] : rss) {
    std::optional<MemoryGrowth> g = Judge(series, th);
    if (!g) continue;
    g->subject = fmt::format("pid {} ({})", pid, comm[pid]);
    g->kind = "host_rss";
    if (mem_available) {
      g->time_to_oom_s = *mem_available / g->slope_bytes_per_s;
      g->headroom_basis = "MemAvailable " + Gib(*mem_available) + " at the end";
    }
    out.push_back(std::move(*g));
  }
  for (const auto& [gpu, series] : gpu_mem) {
    std::optional<MemoryGrowth> g = Judge(series, th);
    if (!g) continue;
    g->subject = fmt::format("gpu{}", gpu);
    g->kind = "gpu_memory";
    for (const RecordedGpu& rg : rec.meta.gpus) {
      if (rg.index != gpu || !rg.memory_total_bytes) continue;
      double total = static_cast<double>(*rg.memory_total_bytes);
      g->time_to_oom_s = std::max(0.0, total - g->end_bytes) / g->slope_bytes_per_s;
      g->headroom_basis =
          fmt::format("gpu{} total {}, {} used at the end", gpu, Gib(total), Gib(g->end_bytes));
    }
    out.push_back(std::move(*g));
  }
  std::sort(out.begin(), out.end(), [](const MemoryGrowth& a, const MemoryGrowth& b) {
    double ta = a.time_to_oom_s.value_or(INFINITY), tb = b.time_to_oom_s.value_or(INFINITY);
    if (ta != tb) return ta < tb;
    return a.slope_bytes_per_s > b.slope_bytes_per_s;
  });
  return out;
}

std::vector<GpuThrottle> SummarizeThrottle(const Recording& rec, const std::vector<int>& gpus,
                                           const AnalyzeThresholds& th) {
  std::map<int, GpuThrottle> by_gpu;
  std::map<int, std::pair<double, int>> clock;  // sum of clock, samples
  std::map<int, double> max_clock;
  for (const RecordedGpu& g : rec.meta.gpus) {
    if (g.sm_clock_max_mhz) max_clock[g.index] = *g.sm_clock_max_mhz;
  }
  for (int g : gpus) by_gpu[g].gpu = g;
  for (const Sample& s : rec.samples) {
    double dt = s.interval_s > 0 ? s.interval_s : rec.meta.interval_s;
    for (const GpuSample& g : s.gpus) {
      auto it = by_gpu.find(g.gpu);
      if (it == by_gpu.end()) continue;
      double act = g.sm_active_pct ? *g.sm_active_pct : g.util_pct.value_or(0);
      if (act <= th.gpu_idle_pct) continue;
      GpuThrottle& t = it->second;
      t.busy_s += dt;
      uint64_t r = g.clock_event_reasons.value_or(0);
      if (r & clock_reason::kSwPowerCap) t.power_cap_pct += dt;
      if (r & (clock_reason::kSwThermalSlowdown | clock_reason::kHwThermalSlowdown)) {
        t.thermal_pct += dt;
      }
      if (r & (clock_reason::kHwSlowdown | clock_reason::kHwPowerBrakeSlowdown)) {
        t.hw_slowdown_pct += dt;
      }
      if (g.sm_clock_mhz) clock[g.gpu].first += *g.sm_clock_mhz, ++clock[g.gpu].second;
    }
  }
  std::vector<GpuThrottle> out;
  for (auto& [gpu, t] : by_gpu) {
    if (t.busy_s > 0) {
      t.power_cap_pct = 100.0 * t.power_cap_pct / t.busy_s;
      t.thermal_pct = 100.0 * t.thermal_pct / t.busy_s;
      t.hw_slowdown_pct = 100.0 * t.hw_slowdown_pct / t.busy_s;
    }
    auto c = clock.find(gpu);
    auto m = max_clock.find(gpu);
    if (c != clock.end() && c->second.second > 0 && m != max_clock.end() && m->second > 0) {
      t.clock_loss_pct = 100.0 * (1.0 - c->second.first / c->second.second / m->second);
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace gpuvet
