// Kernel breakdown by category, by kernel type and by name.
#include "analysis/trace/breakdown/kernel_breakdown.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

#include "analysis/trace/intervals.h"
#include "analysis/trace/kernel_class.h"

namespace gpuvet {

namespace {

constexpr HtaKernelType kTypeOrder[] = {HtaKernelType::kComputation, HtaKernelType::kCommunication,
                                        HtaKernelType::kMemory};

double Pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// "computation overlapping memory" for bits 1 | 4, as HTA names its rows.
std::string MaskName(unsigned mask) {
  std::string out;
  for (int i = 0; i < 3; ++i) {
    if (!(mask & (1u << i))) continue;
    if (!out.empty()) out += " overlapping ";
    out += KernelTypeName(kTypeOrder[i]);
  }
  return out;
}

// Exclusive time per combination of types over the per-type unions.
std::vector<KernelTypeTime> TypeTimes(std::vector<Interval> (&by_type)[3]) {
  std::vector<std::pair<int64_t, int>> events;  // (time, +-(bit + 1))
  for (int i = 0; i < 3; ++i) {
    for (const Interval& iv : MergeIntervals(std::move(by_type[i]))) {
      events.emplace_back(iv.start, i + 1);
      events.emplace_back(iv.end, -(i + 1));
    }
  }
  std::sort(events.begin(), events.end());
  int64_t time[8] = {};
  int running[3] = {};
  int64_t prev = events.empty() ? 0 : events.front().first;
  for (const auto& [t, e] : events) {
    unsigned mask = 0;
    for (int i = 0; i < 3; ++i) mask |= running[i] > 0 ? 1u << i : 0u;
    time[mask] += t - prev;
    prev = t;
    running[std::abs(e) - 1] += e > 0 ? 1 : -1;
  }
  int64_t busy = 0;
  for (unsigned m = 1; m < 8; ++m) busy += time[m];
  std::vector<KernelTypeTime> out;
  for (unsigned m = 1; m < 8; ++m) {
    if (time[m] > 0) out.push_back({MaskName(m), time[m], Pct(time[m], busy)});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& x, const auto& y) { return x.time_ns > y.time_ns; });
  return out;
}

// pandas Series.quantile (linear interpolation) of an ascending series.
double Quantile(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = q * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return static_cast<double>(sorted[lo]) +
         (static_cast<double>(sorted[hi]) - static_cast<double>(sorted[lo])) * frac;
}

// HTA _aggr_gpu_kernel_time on one type's names, sorted by descending total.
void AppendTop(std::vector<KernelStat> names, const TraceOptions& options, std::string_view type,
               std::vector<KernelStat>& out) {
  const size_t limit = static_cast<size_t>(std::max(options.top_kernel_count, 0));
  if (names.size() <= limit) {
    for (KernelStat& k : names) out.push_back(std::move(k));
    return;
  }
  std::vector<int64_t> cumsum;
  int64_t running = 0;
  for (const KernelStat& k : names) cumsum.push_back(running += k.total_ns);
  const double cut = Quantile(cumsum, options.top_kernel_share);
  KernelStat others;
  others.name = "others";
  others.type = std::string(type);
  for (size_t i = 0; i < names.size(); ++i) {
    KernelStat& k = names[i];
    if (i < limit && static_cast<double>(cumsum[i]) <= cut) {
      out.push_back(std::move(k));
      continue;
    }
    others.min_ns = others.count == 0 ? k.min_ns : std::min(others.min_ns, k.min_ns);
    others.max_ns = std::max(others.max_ns, k.max_ns);
    others.count += k.count;
    others.total_ns += k.total_ns;
    others.pct += k.pct;
  }
  others.mean_ns = others.count ? others.total_ns / static_cast<int64_t>(others.count) : 0;
  out.push_back(std::move(others));
}

}  // namespace

KernelBreakdown ComputeKernelBreakdown(const RankTrace& trace, const OpWindow& window,
                                       const TraceOptions& options) {
  KernelBreakdown b;
  std::unordered_map<uint32_t, KernelStat> by_name;
  std::vector<KernelCategoryTime> cats;
  for (std::string_view c : kKernelCategories) cats.push_back({std::string(c), 0, 0, 0});
  // A trace repeats a few hundred names millions of times: classify each (name, kind) once.
  std::unordered_map<uint64_t, std::string_view> category_of;
  KernelTypeCache types(trace);
  std::vector<Interval> by_type[3];
  for (uint32_t i : window.ops) {
    const GpuOp& op = trace.gpu_ops[i];
    const std::string& name = trace.Name(op.name);
    const uint64_t key = (static_cast<uint64_t>(op.name) << 9) |
                         (static_cast<uint64_t>(op.collective) << 8) |
                         static_cast<uint64_t>(op.kind);
    auto [cached, miss] = category_of.try_emplace(key);
    if (miss) cached->second = KernelCategory(op, name);
    std::string_view cat = cached->second;
    const HtaKernelType type = types.Of(op);
    by_type[static_cast<int>(type)].push_back({op.start_ns, op.start_ns + op.dur_ns});
    ++b.op_count;
    b.total_ns += op.dur_ns;
    if (op.kind == GpuOpKind::kKernel) ++b.kernel_count;
    if (op.graph_launched) ++b.graph_launched_count;
    for (KernelCategoryTime& c : cats) {
      if (c.category == cat) {
        ++c.count;
        c.total_ns += op.dur_ns;
      }
    }
    // One name can be a collective on one launch and not on another (args differ): the first
    // launch names its type, as HTA's name-based type does.
    auto [it, fresh] = by_name.try_emplace(op.name);
    KernelStat& k = it->second;
    if (fresh) {
      k.name = name;
      k.category = std::string(cat);
      k.type = std::string(KernelTypeName(type));
      k.min_ns = op.dur_ns;
      k.max_ns = op.dur_ns;
    }
    ++k.count;
    k.total_ns += op.dur_ns;
    k.min_ns = std::min(k.min_ns, op.dur_ns);
    k.max_ns = std::max(k.max_ns, op.dur_ns);
  }
  for (KernelCategoryTime& c : cats) {
    c.pct = Pct(c.total_ns, b.total_ns);
    if (c.count > 0) b.categories.push_back(c);
  }
  std::stable_sort(b.categories.begin(), b.categories.end(),
                   [](const auto& x, const auto& y) { return x.total_ns > y.total_ns; });
  b.types = TypeTimes(by_type);

  std::vector<KernelStat> per_type[3];
  for (auto& [id, k] : by_name) {
    k.mean_ns = k.count ? k.total_ns / static_cast<int64_t>(k.count) : 0;
    k.pct = Pct(k.total_ns, b.total_ns);
    for (int t = 0; t < 3; ++t) {
      if (k.type == KernelTypeName(kTypeOrder[t])) per_type[t].push_back(std::move(k));
    }
  }
  for (int t = 0; t < 3; ++t) {
    std::sort(per_type[t].begin(), per_type[t].end(), [](const KernelStat& x, const KernelStat& y) {
      return x.total_ns != y.total_ns ? x.total_ns > y.total_ns : x.name < y.name;
    });
    AppendTop(std::move(per_type[t]), options, KernelTypeName(kTypeOrder[t]), b.top);
  }
  return b;
}

}  // namespace gpuvet
