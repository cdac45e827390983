// Memory growth (least-squares slope per process RSS and per GPU memory in use, with time to OOM
// against the headroom left at the end) and the per-GPU throttling summary.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/recording/recording_detectors.h"
#include "core/gpu_state.h"
#include "util/units.h"

namespace gpuvet {

namespace {

// Least squares over a series seen twice: means from the first pass, centred sums in the second
// (the same arithmetic, in the same order, as over vectors held at once).
struct Fit {
  double slope = 0, intercept = 0, r2 = 0;
};

// Welford's running means and co-moments: the fit of the last third, whose start is known only
// from the first pass's count.
struct Running {
  double n = 0, mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;
  void Add(double x, double y) {
    n += 1;
    double dx = x - mx;
    mx += dx / n;
    double dy = y - my;
    my += dy / n;
    sxx += dx * (x - mx);
    sxy += dx * (y - my);
    syy += dy * (y - my);
  }
  Fit Get() const {
    Fit f;
    if (n < 2 || sxx <= 0) return f;
    f.slope = sxy / sxx;
    f.intercept = my - f.slope * mx;
    f.r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 0;
    return f;
  }
};

}  // namespace

struct MemoryGrowthDetector::Series {
  // First pass.
  size_t n = 0;
  double sum_t = 0, sum_y = 0;
  // Second pass.
  size_t seen = 0;
  double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;
  double t_front = 0, t_back = 0, y_front = 0, y_back = 0;
  Running last;

  void Count(double t, double y) { ++n, sum_t += t, sum_y += y; }
  void Start() {
    mx = n ? sum_t / static_cast<double>(n) : 0;
    my = n ? sum_y / static_cast<double>(n) : 0;
  }
  void Add(double t, double y) {
    if (seen >= n) return;  // more than the first pass saw (never for one snapshot)
    if (seen == 0) t_front = t, y_front = y;
    t_back = t, y_back = y;
    double dx = t - mx, dy = y - my;
    sxx += dx * dx, sxy += dx * dy, syy += dy * dy;
    if (seen >= n - n / 3) last.Add(t, y);
    ++seen;
  }
  Fit All() const {
    Fit f;
    if (seen < 2 || sxx <= 0) return f;
    f.slope = sxy / sxx;
    f.intercept = my - f.slope * mx;
    f.r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 0;
    return f;
  }
};

namespace {

// A growth entry when the series grows steadily, else nullopt.
template <typename S>
std::optional<MemoryGrowth> Judge(const S& s, const AnalyzeThresholds& th) {
  size_t n = s.seen;
  if (n < 10 || s.t_back - s.t_front < th.leak_min_s) return std::nullopt;
  Fit all = s.All();
  Fit last = s.last.Get();
  double start = all.intercept + all.slope * s.t_front;
  double end = all.intercept + all.slope * s.t_back;
  double growth = end - start;
  if (all.slope <= 0 || all.r2 < th.leak_r2 || growth < th.leak_min_bytes ||
      growth < std::max(start, 1.0) * th.leak_growth_pct / 100.0 || last.slope < 0.5 * all.slope) {
    return std::nullopt;
  }
  MemoryGrowth g;
  g.start_bytes = s.y_front;
  g.end_bytes = s.y_back;
  g.slope_bytes_per_s = all.slope;
  g.r2 = all.r2;
  return g;
}

}  // namespace

MemoryGrowthDetector::MemoryGrowthDetector(const RecordingMeta& meta, const AnalyzeThresholds& th)
    : meta_(meta), th_(th) {}

MemoryGrowthDetector::~MemoryGrowthDetector() = default;

template <typename V>
V* MemoryGrowthDetector::At(std::map<int, V>& map, std::vector<Remembered<V>>& at, size_t i,
                            int key, bool create) {
  // A remembered miss is not an answer when the caller creates: look again (and remember).
  if (i < at.size() && at[i].set && at[i].key == key && (at[i].value != nullptr || !create)) {
    return at[i].value;
  }
  V* v = nullptr;
  if (create) {
    v = &map[key];
  } else if (auto it = map.find(key); it != map.end()) {
    v = &it->second;
  }
  if (i >= at.size()) at.resize(i + 1);
  at[i] = {key, v, true};
  return v;
}

void MemoryGrowthDetector::Survey(const Sample& s) {
  for (size_t i = 0; i < s.processes.size(); ++i) {
    const ProcessSample& p = s.processes[i];
    if (p.rss_bytes) {
      At(rss_, rss_at_, i, p.pid, true)->Count(s.t, static_cast<double>(*p.rss_bytes));
    }
  }
  for (size_t i = 0; i < s.gpus.size(); ++i) {
    const GpuSample& g = s.gpus[i];
    if (g.memory_used_bytes) {
      At(gpu_mem_, gpu_at_, i, g.gpu, true)->Count(s.t, static_cast<double>(*g.memory_used_bytes));
    }
  }
}

void MemoryGrowthDetector::StartFits(const std::vector<int>& gpus) {
  rss_at_.clear();  // entries are erased below: no remembered pointer may outlive them
  gpu_at_.clear();
  gpus_ = gpus;
  for (auto& [pid, series] : rss_) series.Start();
  for (auto it = gpu_mem_.begin(); it != gpu_mem_.end();) {
    if (!std::count(gpus_.begin(), gpus_.end(), it->first)) {
      it = gpu_mem_.erase(it);
    } else {
      it->second.Start();
      ++it;
    }
  }
}

void MemoryGrowthDetector::Add(const Sample& s) {
  for (size_t i = 0; i < s.processes.size(); ++i) {
    const ProcessSample& p = s.processes[i];
    if (!p.rss_bytes) continue;
    Series* series = At(rss_, rss_at_, i, p.pid, false);
    if (series == nullptr) continue;
    series->Add(s.t, static_cast<double>(*p.rss_bytes));
    if (series->n >= 10) {  // shorter series are never judged
      std::string* comm = At(comm_, comm_at_, i, p.pid, true);
      if (*comm != p.comm) *comm = p.comm;
    }
  }
  for (size_t i = 0; i < s.gpus.size(); ++i) {
    const GpuSample& g = s.gpus[i];
    if (!g.memory_used_bytes) continue;
    Series* series = At(gpu_mem_, gpu_at_, i, g.gpu, false);
    if (series != nullptr) series->Add(s.t, static_cast<double>(*g.memory_used_bytes));
  }
  if (s.host.mem_available_bytes) {
    mem_available_ = static_cast<double>(*s.host.mem_available_bytes);
  }
}

std::vector<MemoryGrowth> MemoryGrowthDetector::Result() const {
  const AnalyzeThresholds& th = th_;
  const std::optional<double>& mem_available = mem_available_;
  std::vector<MemoryGrowth> out;
  for (const auto& [pid, series] : rss_) {
    std::optional<MemoryGrowth> g = Judge(series, th);
    if (!g) continue;
    auto c = comm_.find(pid);
    g->subject = fmt::format("pid {} ({})", pid, c != comm_.end() ? c->second : "");
    g->kind = "host_rss";
    if (mem_available) {
      g->time_to_oom_s = *mem_available / g->slope_bytes_per_s;
      g->headroom_basis = "MemAvailable " + FormatBytes(*mem_available) + " at the end";
    }
    out.push_back(std::move(*g));
  }
  for (const auto& [gpu, series] : gpu_mem_) {
    std::optional<MemoryGrowth> g = Judge(series, th);
    if (!g) continue;
    g->subject = fmt::format("gpu{}", gpu);
    g->kind = "gpu_memory";
    for (const RecordedGpu& rg : meta_.gpus) {
      if (rg.index != gpu || !rg.memory_total_bytes) continue;
      double total = static_cast<double>(*rg.memory_total_bytes);
      g->time_to_oom_s = std::max(0.0, total - g->end_bytes) / g->slope_bytes_per_s;
      g->headroom_basis = fmt::format("gpu{} total {}, {} used at the end", gpu, FormatBytes(total),
                                      FormatBytes(g->end_bytes));
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

std::vector<MemoryGrowth> DetectMemoryGrowth(const Recording& rec, const std::vector<int>& gpus,
                                             const AnalyzeThresholds& th) {
  MemoryGrowthDetector d(rec.meta, th);
  for (const Sample& s : rec.samples) d.Survey(s);
  d.StartFits(gpus);
  for (const Sample& s : rec.samples) d.Add(s);
  return d.Result();
}

ThrottleSummary::ThrottleSummary(const RecordingMeta& meta, const std::vector<int>& gpus,
                                 const AnalyzeThresholds& th)
    : meta_(meta), th_(th) {
  for (int g : gpus) by_gpu_[g].gpu = g;
}

void ThrottleSummary::Add(const Sample& s) {
  double dt = s.interval_s > 0 ? s.interval_s : meta_.interval_s;
  for (const GpuSample& g : s.gpus) {
    auto it = by_gpu_.find(g.gpu);
    if (it == by_gpu_.end()) continue;
    double act = g.sm_active_pct ? *g.sm_active_pct : g.util_pct.value_or(0);
    if (act <= th_.gpu_idle_pct) continue;
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
    if (g.sm_clock_mhz) clock_[g.gpu].first += *g.sm_clock_mhz, ++clock_[g.gpu].second;
  }
}

std::vector<GpuThrottle> ThrottleSummary::Result() const {
  std::map<int, double> max_clock;
  for (const RecordedGpu& g : meta_.gpus) {
    if (g.sm_clock_max_mhz) max_clock[g.index] = *g.sm_clock_max_mhz;
  }
  std::vector<GpuThrottle> out;
  for (auto [gpu, t] : by_gpu_) {
    if (t.busy_s > 0) {
      t.power_cap_pct = 100.0 * t.power_cap_pct / t.busy_s;
      t.thermal_pct = 100.0 * t.thermal_pct / t.busy_s;
      t.hw_slowdown_pct = 100.0 * t.hw_slowdown_pct / t.busy_s;
    }
    auto c = clock_.find(gpu);
    auto m = max_clock.find(gpu);
    if (c != clock_.end() && c->second.second > 0 && m != max_clock.end() && m->second > 0) {
      t.clock_loss_pct = 100.0 * (1.0 - c->second.first / c->second.second / m->second);
    }
    out.push_back(t);
  }
  return out;
}

std::vector<GpuThrottle> SummarizeThrottle(const Recording& rec, const std::vector<int>& gpus,
                                           const AnalyzeThresholds& th) {
  ThrottleSummary t(rec.meta, gpus, th);
  for (const Sample& s : rec.samples) t.Add(s);
  return t.Result();
}

}  // namespace gpuvet
