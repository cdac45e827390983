// Kernel breakdown by category and by name.
#include "analysis/trace/kernel_breakdown.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/trace/kernel_class.h"

namespace gpuvet {

namespace {

double Pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
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
  for (uint32_t i : window.ops) {
    const GpuOp& op = trace.gpu_ops[i];
    const std::string& name = trace.Name(op.name);
    const uint64_t key = (static_cast<uint64_t>(op.name) << 8) | static_cast<uint64_t>(op.kind);
    auto [cached, miss] = category_of.try_emplace(key);
    if (miss) cached->second = KernelCategory(op, name);
    std::string_view cat = cached->second;
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
    auto [it, fresh] = by_name.try_emplace(op.name);
    KernelStat& k = it->second;
    if (fresh) {
      k.name = name;
      k.category = std::string(cat);
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

  std::vector<KernelStat> names;
  names.reserve(by_name.size());
  for (auto& [id, k] : by_name) {
    k.mean_ns = k.count ? k.total_ns / static_cast<int64_t>(k.count) : 0;
    k.pct = Pct(k.total_ns, b.total_ns);
    names.push_back(std::move(k));
  }
  std::sort(names.begin(), names.end(), [](const KernelStat& x, const KernelStat& y) {
    return x.total_ns != y.total_ns ? x.total_ns > y.total_ns : x.name < y.name;
  });
  int64_t covered = 0;
  for (KernelStat& k : names) {
    if (static_cast<int>(b.top.size()) >= options.top_kernel_count) break;
    if (b.total_ns > 0 && static_cast<double>(covered) >=
                              options.top_kernel_share * static_cast<double>(b.total_ns)) {
      break;
    }
    covered += k.total_ns;
    b.top.push_back(std::move(k));
  }
  return b;
}

}  // namespace gpuvet
