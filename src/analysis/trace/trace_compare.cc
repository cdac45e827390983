// Two runs side by side: per-rank aggregation over each trace's HTA window, the per-step means,
// kernel matching by normalised name then by family, the attribution and the answer.
#include "analysis/trace/trace_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

#include "analysis/trace/analyze.h"
#include "analysis/trace/copy_analysis.h"
#include "analysis/trace/kernel_class.h"
#include "analysis/trace/op_window.h"

namespace gpuvet {

namespace {

// Below this change in step time the runs are called equal (profiler noise between two runs of
// the same code is a few percent at most at steady state).
constexpr double kEqualPct = 2.0;
// A kernel is named in the answer when it explains at least this share of the difference.
constexpr double kNameSharePct = 10.0;
constexpr size_t kChangedRows = 15;
constexpr size_t kOneSidedRows = 10;

bool IsArchToken(std::string_view tok) {
  static constexpr std::string_view kNames[] = {"maxwell", "pascal", "volta",  "turing",
                                                "ampere",  "ada",    "hopper", "blackwell"};
  for (std::string_view n : kNames) {
    if (tok == n) return true;
  }
  // sm80, sm_90, sm90a, sm100, sm120f
  std::string_view rest = tok;
  if (rest.substr(0, 2) != "sm") return false;
  rest.remove_prefix(2);
  if (!rest.empty() && rest.front() == '_') rest.remove_prefix(1);
  size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits < 2 || digits > 3) return false;
  rest.remove_prefix(digits);
  return rest.empty() || rest == "a" || rest == "f";
}

std::string Dur(double ns) {
  double a = std::fabs(ns);
  if (a >= 1e9) return fmt::format("{:.2f} s", ns / 1e9);
  if (a >= 1e6) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.1f} µs", ns / 1e3);
}

std::string Signed(double ns) { return (ns >= 0 ? "+" : "−") + Dur(std::fabs(ns)); }

double Share(double part, double whole) { return whole != 0 ? part / whole * 100.0 : 0.0; }

struct KernelAgg {
  std::string category;
  std::map<std::string, double> names;  // raw name → time, to show the heaviest one
  double ns = 0;                        // per step, summed over ranks
  double count = 0;
};

struct CopyAgg {
  double ns = 0, bytes = 0, count = 0;
};

// One run's sums over its ranks; divided by the rank count at the end.
struct Side {
  CompareRun run;
  std::map<std::string, KernelAgg> kernels;
  std::map<std::string, CopyAgg> copies;
  std::map<std::string, CopyAgg> syncs;
  std::map<std::string, CopyAgg> categories;
  double compute = 0, non_compute = 0, idle = 0;
  double host_wait = 0, kernel_wait = 0, other_wait = 0, outside = 0;
  double comm = 0, comm_exposed = 0;
  double h_sync = 0, h_loader = 0, h_opt = 0, h_other = 0;
  bool has_phases = false;
  double host_step = 0, step = 0, launches = 0, steps = 0;
};

// The steps inside HTA's window: all of them, less the last when there are several step names
// (SelectHtaOps's rule), without building the window.
size_t StepsInWindow(const RankTrace& t) {
  size_t n = t.steps.size();
  for (const TraceRange& r : t.steps) {
    if (r.name != t.steps.front().name) return n - 1;
  }
  return n;
}

// Kernel time, counts and copies over the rank's window, divided by `n` (its steps, or 1).
void AddRankOps(const RankTrace& t, const OpWindow& w, double n, Side& s) {
  struct PerName {
    double ns = 0, count = 0;
    uint32_t op = UINT32_MAX;  // an op of this name, for its category
  };
  std::vector<PerName> by_name(t.names.size());
  for (uint32_t i : w.ops) {
    const GpuOp& op = t.gpu_ops[i];
    if (op.name >= by_name.size()) continue;
    PerName& p = by_name[op.name];
    p.ns += static_cast<double>(op.dur_ns);
    p.count += 1;
    p.op = i;
    if (op.kind == GpuOpKind::kMemcpy) {
      CopyAgg& c = s.copies[DirectionName(op.copy)];
      c.ns += static_cast<double>(op.dur_ns) / n;
      c.bytes += static_cast<double>(op.bytes) / n;
      c.count += 1 / n;
    }
  }
  s.launches += static_cast<double>(w.ops.size()) / n;
  for (uint32_t name = 0; name < by_name.size(); ++name) {
    const PerName& p = by_name[name];
    if (p.op == UINT32_MAX) continue;
    const std::string& raw = t.Name(name);
    KernelAgg& k = s.kernels[NormaliseKernelName(raw)];
    if (k.category.empty()) k.category = std::string(KernelCategory(t.gpu_ops[p.op], raw));
    k.names[raw] += p.ns / n;
    k.ns += p.ns / n;
    k.count += p.count / n;
  }
}

// The step of one rank, split so its parts sum to it: GPU busy (computation, non-computation),
// and idle = step − busy, itself split into HTA's in-span idle causes and the rest (time between
// the GPU span's edges and the step's, or the host's own share of the step).
void AddRankAnalysis(const RankAnalysis& a, double n_window, double n_all, double host_step,
                     Side& s) {
  double compute = static_cast<double>(a.temporal.compute_ns) / n_window;
  double non_compute = static_cast<double>(a.temporal.non_compute_ns) / n_window;
  double busy = compute + non_compute;
  // With steps, the step is the host's ProfilerStep (what a user times); without, the GPU span.
  double step = host_step > 0 ? host_step : static_cast<double>(a.temporal.span_ns);
  if (step < busy) {
    // The host's steps are shorter than the GPU work they enqueue: the GPU runs behind (a queue
    // that grows over the window); the GPU's time is the step.
    s.run.gpu_behind = true;
    step = busy;
  }
  double idle = step - busy;
  double host_wait = static_cast<double>(a.gpu_idle.host_wait_ns) / n_window;
  double kernel_wait = static_cast<double>(a.gpu_idle.kernel_wait_ns) / n_window;
  double other = static_cast<double>(a.gpu_idle.other_ns) / n_window;
  if (host_step <= 0) {
    // Without steps the span's idle is the whole idle: no rest, by HTA's definition.
    other = std::max(0.0, idle - host_wait - kernel_wait);
  }
  // The window's idle causes are per window step; when they exceed this step's idle (the GPU span
  // outlasts the host's steps) they are scaled to it, so no part is negative and the parts add up
  // to the step.
  if (const double inside = host_wait + kernel_wait + other; inside > idle && inside > 0) {
    const double f = idle / inside;
    host_wait *= f;
    kernel_wait *= f;
    other *= f;
  }
  s.compute += compute;
  s.non_compute += non_compute;
  s.idle += idle;
  s.step += step;
  s.host_wait += host_wait;
  s.kernel_wait += kernel_wait;
  s.other_wait += other;
  s.outside += idle - host_wait - kernel_wait - other;
  s.host_step += host_step;
  s.h_sync += static_cast<double>(a.host.sync_idle_ns) / n_window;
  s.h_loader += static_cast<double>(a.host.dataloader_idle_ns) / n_window;
  s.h_opt += static_cast<double>(a.host.optimizer_idle_ns) / n_window;
  s.h_other += static_cast<double>(a.host.other_idle_ns) / n_window;
  s.has_phases |= a.host.has_phases;
  s.comm += static_cast<double>(a.overlap.comm_ns) / n_window;
  s.comm_exposed += static_cast<double>(a.overlap.exposed_ns) / n_window;
  for (const KernelCategoryTime& c : a.kernels.categories) {
    CopyAgg& g = s.categories[c.category];
    g.ns += static_cast<double>(c.total_ns) / n_window;
    g.count += static_cast<double>(c.count) / n_window;
  }
  for (const SyncKindStat& k : a.copies.syncs) {
    CopyAgg& g = s.syncs[k.kind];
    g.ns += static_cast<double>(k.time_ns) / n_all;
    g.count += static_cast<double>(k.count) / n_all;
  }
  if (a.startup.detected) s.run.startup_pct = std::max(s.run.startup_pct, a.startup.share_pct);
}

// The mean ProfilerStep duration over the steps inside the window (the last one left out when
// the window leaves it out); 0 without steps.
double HostStepMean(const RankTrace& t) {
  size_t n = StepsInWindow(t);
  if (n == 0) return 0;
  std::vector<int64_t> durs;
  std::vector<const TraceRange*> sorted;
  for (const TraceRange& r : t.steps) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(), [](const TraceRange* x, const TraceRange* y) {
    return x->start_ns < y->start_ns;
  });
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += static_cast<double>(sorted[i]->dur_ns);
  return sum / static_cast<double>(n);
}

bool AllRanksMarkSteps(const std::vector<RankTrace>& ranks) {
  bool any = false;
  for (const RankTrace& t : ranks) {
    if (t.gpu_ops.empty()) continue;
    any = true;
    if (StepsInWindow(t) == 0) return false;
  }
  return any;
}

Side Aggregate(std::vector<RankTrace> ranks, bool per_step, const TraceOptions& options) {
  Side s;
  struct Norm {
    double window = 1, all = 1, host_step = 0;
  };
  std::vector<Norm> norms(ranks.size());
  std::string gpu;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankTrace& t = ranks[i];
    s.run.sources.push_back(t.source);
    if (t.gpu_ops.empty()) continue;
    OpWindow w = SelectHtaOps(t);
    if (per_step) {
      norms[i].window = static_cast<double>(std::max<size_t>(1, StepsInWindow(t)));
      norms[i].all = static_cast<double>(std::max<size_t>(1, t.steps.size()));
      norms[i].host_step = HostStepMean(t);
    }
    s.steps += static_cast<double>(StepsInWindow(t));
    AddRankOps(t, w, norms[i].window, s);
    ++s.run.ranks;
    if (s.run.world_size < 0) s.run.world_size = t.world_size;
    if (s.run.device_type.empty()) s.run.device_type = t.device_type;
    if (!t.gpu_name.empty()) {
      if (gpu.empty()) {
        gpu = t.gpu_name;
      } else if (gpu != t.gpu_name) {
        gpu = "mixed";
      }
    }
  }
  s.run.gpu_name = gpu;
  std::vector<bool> has_gpu(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) has_gpu[i] = !ranks[i].gpu_ops.empty();
  TraceReport report = AnalyzeTraces(std::move(ranks), options);
  s.run.verdict = report.verdict.label;
  for (size_t i = 0; i < report.ranks.size() && i < has_gpu.size(); ++i) {
    if (has_gpu[i]) {
      AddRankAnalysis(report.ranks[i], norms[i].window, norms[i].all, norms[i].host_step, s);
    }
  }
  return s;
}

// Divides every sum by the rank count: the per-step mean of one rank.
void Average(Side& s) {
  if (s.run.ranks == 0) return;
  double r = s.run.ranks;
  for (auto& [k, v] : s.kernels) {
    v.ns /= r;
    v.count /= r;
    for (auto& [n, t] : v.names) t /= r;
  }
  for (auto* m : {&s.copies, &s.syncs, &s.categories}) {
    for (auto& [k, v] : *m) {
      v.ns /= r;
      v.bytes /= r;
      v.count /= r;
    }
  }
  for (double* v : {&s.compute, &s.non_compute, &s.idle, &s.host_wait, &s.kernel_wait,
                    &s.other_wait, &s.outside, &s.h_sync, &s.h_loader, &s.h_opt, &s.h_other,
                    &s.comm, &s.comm_exposed, &s.host_step, &s.step, &s.launches, &s.steps}) {
    *v /= r;
  }
  s.run.steps = s.steps;
  s.run.host_step_ns = s.host_step;
  s.run.step_ns = s.step;
  s.run.kernels_per_step = s.launches;
}

CompareRow Row(std::string name, double a, double b, double total_delta) {
  CompareRow r;
  r.name = std::move(name);
  r.a_ns = a;
  r.b_ns = b;
  r.delta_ns = b - a;
  r.share_pct = Share(r.delta_ns, total_delta);
  return r;
}

std::vector<CompareRow> MapRows(const std::map<std::string, CopyAgg>& a,
                                const std::map<std::string, CopyAgg>& b,
                                const std::vector<std::string>& order, double total_delta) {
  std::vector<std::string> names = order;
  for (const auto* m : {&a, &b}) {
    for (const auto& [k, v] : *m) {
      if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
    }
  }
  std::vector<CompareRow> rows;
  for (const std::string& n : names) {
    auto ia = a.find(n);
    auto ib = b.find(n);
    if (ia == a.end() && ib == b.end()) continue;
    CopyAgg va = ia == a.end() ? CopyAgg{} : ia->second;
    CopyAgg vb = ib == b.end() ? CopyAgg{} : ib->second;
    CompareRow r = Row(n, va.ns, vb.ns, total_delta);
    r.a_bytes = va.bytes;
    r.b_bytes = vb.bytes;
    r.a_count = va.count;
    r.b_count = vb.count;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string Heaviest(const KernelAgg& k) {
  std::string best;
  double t = -1;
  for (const auto& [n, v] : k.names) {
    if (v > t) best = n, t = v;
  }
  return best;
}

void Merge(KernelAgg& into, const KernelAgg& from) {
  if (into.category.empty()) into.category = from.category;
  for (const auto& [n, v] : from.names) into.names[n] += v;
  into.ns += from.ns;
  into.count += from.count;
}

// Matches the two runs' kernels: by normalised name, then the leftovers by family.
void MatchKernels(const Side& a, const Side& b, TraceComparison& c) {
  std::vector<CompareKernel> all;
  std::map<std::string, KernelAgg> fam_a, fam_b;
  for (const auto& [key, ka] : a.kernels) {
    auto it = b.kernels.find(key);
    if (it == b.kernels.end()) {
      Merge(fam_a[KernelFamily(key)], ka);
      continue;
    }
    CompareKernel k;
    k.key = key;
    k.match = "same";
    k.name_a = Heaviest(ka);
    k.name_b = Heaviest(it->second);
    k.category = ka.category;
    k.a_ns = ka.ns;
    k.b_ns = it->second.ns;
    k.a_count = ka.count;
    k.b_count = it->second.count;
    all.push_back(std::move(k));
  }
  for (const auto& [key, kb] : b.kernels) {
    if (!a.kernels.count(key)) Merge(fam_b[KernelFamily(key)], kb);
  }
  for (auto* side : {&fam_a, &fam_b}) {
    bool is_a = side == &fam_a;
    for (const auto& [fam, k] : *side) {
      const auto& other = is_a ? fam_b : fam_a;
      auto it = other.find(fam);
      if (it != other.end() && !is_a) continue;  // already emitted from A's side
      CompareKernel out;
      out.key = fam;
      out.category = k.category;
      if (it != other.end()) {
        out.match = "family";
        out.name_a = Heaviest(k);
        out.name_b = Heaviest(it->second);
        out.a_ns = k.ns;
        out.b_ns = it->second.ns;
        out.a_count = k.count;
        out.b_count = it->second.count;
      } else if (is_a) {
        out.match = "a_only";
        out.name_a = Heaviest(k);
        out.a_ns = k.ns;
        out.a_count = k.count;
      } else {
        out.match = "b_only";
        out.name_b = Heaviest(k);
        out.b_ns = k.ns;
        out.b_count = k.count;
      }
      all.push_back(std::move(out));
    }
  }
  for (CompareKernel& k : all) {
    k.delta_ns = k.b_ns - k.a_ns;
    k.share_pct = Share(k.delta_ns, c.delta_ns);
    if (k.match == "same" || k.match == "family") {
      // A shared "Memcpy DtoD" or "Memset" says nothing about the two runs being one workload.
      if (k.category != "memory") ++c.kernels_matched;
    } else if (k.match == "a_only") {
      ++c.kernels_a_only;
    } else {
      ++c.kernels_b_only;
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const CompareKernel& x, const CompareKernel& y) {
    double dx = std::fabs(x.delta_ns), dy = std::fabs(y.delta_ns);
    return dx != dy ? dx > dy : x.key < y.key;
  });
  for (CompareKernel& k : all) {
    if (k.match == "a_only") {
      if (c.removed.size() < kOneSidedRows) c.removed.push_back(k);
    } else if (k.match == "b_only") {
      if (c.added.size() < kOneSidedRows) c.added.push_back(k);
    } else if (c.changed.size() < kChangedRows) {
      c.changed.push_back(k);
    }
  }
}

void FindCauses(TraceComparison& c) {
  const CompareRun &ra = c.a, &rb = c.b;
  if (!ra.gpu_name.empty() && !rb.gpu_name.empty() && ra.gpu_name != rb.gpu_name) {
    c.causes.push_back(
        fmt::format("the GPU differs: A ran on {}, B on {}", ra.gpu_name, rb.gpu_name));
  }
  if (ra.world_size > 0 && rb.world_size > 0 && ra.world_size != rb.world_size) {
    c.causes.push_back(fmt::format(
        "the world size differs: A ran on {} ranks, B on {} (communication and per-rank batch "
        "change with it)",
        ra.world_size, rb.world_size));
  }
  if (!ra.device_type.empty() && !rb.device_type.empty() && ra.device_type != rb.device_type) {
    c.causes.push_back(
        fmt::format("the device type differs: A is {}, B is {}", ra.device_type, rb.device_type));
  }
  for (const CompareKernel& k : c.changed) {
    if (k.match != "family") continue;
    c.causes.push_back(
        fmt::format("kernels were built for another architecture: `{}` in A runs as `{}` in B",
                    k.name_a, k.name_b));
    break;
  }
  for (const CompareRun* r : {&ra, &rb}) {
    if (r->startup_pct > 0) {
      c.causes.push_back(fmt::format(
          "{}'s window is {:.0f} % one-time start-up work (graph capture, first launches, "
          "allocations): compare steady-state steps",
          r == &ra ? "A" : "B", r->startup_pct));
    }
  }
  if (ra.kernels_per_step > 0 && rb.kernels_per_step > 0) {
    double pct = Share(rb.kernels_per_step - ra.kernels_per_step, ra.kernels_per_step);
    if (std::fabs(pct) >= 10) {
      c.causes.push_back(fmt::format(
          "B launches {:.0f} GPU ops per {}, A {:.0f} ({:+.0f} %): the code, the batch size or the "
          "fusion differs",
          rb.kernels_per_step, c.unit, ra.kernels_per_step, pct));
    }
  }
  for (const CompareRun* r : {&ra, &rb}) {
    if (!r->gpu_behind) continue;
    c.causes.push_back(fmt::format(
        "{}'s host steps are shorter than the GPU work they enqueue (the GPU runs behind the host "
        "and its queue grows): its step is taken as the GPU's busy time",
        r == &ra ? "A" : "B"));
  }
  if (c.unit == "window") {
    c.causes.push_back(
        "the traces mark no ProfilerStep, so each trace's analysed window is compared whole: the "
        "comparison holds only if both windows hold the same work");
  }
}

std::string KernelPhrase(const CompareKernel& k, const std::string& unit) {
  std::string name = NormaliseKernelName(!k.name_a.empty() ? k.name_a : k.name_b);
  std::string out =
      fmt::format("{:.0f} % of it is `{}` ({}/{})", k.share_pct, name, Signed(k.delta_ns), unit);
  if (k.match == "family") {
    out += fmt::format(", which ran as `{}` in B", NormaliseKernelName(k.name_b));
  } else if (k.match == "b_only") {
    out += ", new in B";
  } else if (k.match == "a_only") {
    out += ", gone from B";
  }
  return out;
}

void Answer(TraceComparison& c) {
  const std::string& u = c.unit;
  if (!c.comparable) {
    c.answer = fmt::format("A and B cannot be compared kernel for kernel: {}.", c.reason);
    if (c.a.step_ns > 0 && c.b.step_ns > 0) {
      c.answer += fmt::format(" Side by side, A takes {} of GPU time per {} and B {}.",
                              Dur(c.a.step_ns), u, Dur(c.b.step_ns));
    }
    return;
  }
  if (std::fabs(c.change_pct) < kEqualPct) {
    c.answer = fmt::format(
        "B takes as long per {} as A ({} vs {}, {:+.1f} %): there is no difference to explain.", u,
        Dur(c.a.step_ns), Dur(c.b.step_ns), c.change_pct);
    return;
  }
  bool slower = c.delta_ns > 0;
  std::string out = fmt::format("B is {:.0f} % {} per {} ({} → {}, {}).", std::fabs(c.change_pct),
                                slower ? "slower" : "faster", u, Dur(c.a.step_ns), Dur(c.b.step_ns),
                                Signed(c.delta_ns));
  // The part of the step that moved most in the direction of the difference.
  const CompareRow* top = nullptr;
  for (const CompareRow& r : c.temporal) {
    if (r.share_pct > 0 && (!top || r.share_pct > top->share_pct)) top = &r;
  }
  if (top) {
    std::string what = top->name == "computation"       ? "computation"
                       : top->name == "non-computation" ? "communication and copies no "
                                                          "computation hides"
                                                        : "GPU idle time";
    out += fmt::format(" Most of the difference is {} ({}, {:.0f} %)", what, Signed(top->delta_ns),
                       top->share_pct);
    if (top->name == "idle") {
      const CompareRow* part = nullptr;
      for (const CompareRow& r : c.idle) {
        if (r.share_pct > 0 && (!part || r.share_pct > part->share_pct)) part = &r;
      }
      const char* more = slower ? "longer" : "less";
      if (part && part->name == "host wait") {
        out += fmt::format(": the GPU waits {} for the host to launch work", more);
        // Who holds the host, where the trace marks it.
        const CompareRow* who = nullptr;
        for (const CompareRow& r : c.host) {
          if (r.share_pct > 0 && (!who || r.share_pct > who->share_pct)) who = &r;
        }
        if (who && who->share_pct >= kNameSharePct) {
          out += fmt::format(", mostly in {} ({}/{})",
                             who->name == "host syncs"   ? "host syncs"
                             : who->name == "DataLoader" ? "the DataLoader"
                             : who->name == "optimizer"  ? "the optimizer"
                                                         : "Python and framework code",
                             Signed(who->delta_ns), u);
        }
      } else if (part && part->name == "outside the GPU span") {
        out += std::string(": the host spends ") + more +
               " time in each step before its first or after its last kernel "
               "(data loading, the optimizer, Python, a sync at the step's end)";
      } else if (part && part->name == "kernel wait") {
        out += slower ? ": more short gaps between back-to-back kernels"
                      : ": fewer short gaps between back-to-back kernels";
      } else if (part) {
        out += ": gaps with no launch waiting (syncs, copies on the host, other streams)";
      }
    }
    out += ".";
  }
  std::vector<std::string> named;
  std::vector<const CompareKernel*> pool;
  for (const auto* list : {&c.changed, &c.added, &c.removed}) {
    for (const CompareKernel& k : *list) pool.push_back(&k);
  }
  std::stable_sort(pool.begin(), pool.end(), [](const CompareKernel* x, const CompareKernel* y) {
    return x->share_pct > y->share_pct;
  });
  // A kernel is named only when its part of the step (computation, or the non-computation its
  // communication and copies fall in) moved with the difference: when the step changed through
  // idle time, kernels trading time among themselves (cuDNN picking other algorithms) explain
  // nothing.
  auto part_share = [&c](const CompareKernel& k) {
    bool compute = k.category != "communication" && k.category != "memory";
    for (const CompareRow& r : c.temporal) {
      if (r.name == (compute ? "computation" : "non-computation")) return r.share_pct;
    }
    return 0.0;
  };
  for (const CompareKernel* k : pool) {
    if (k->share_pct < kNameSharePct || named.size() == 3) break;
    if (part_share(*k) < kNameSharePct) continue;
    named.push_back(KernelPhrase(*k, u));
  }
  if (!named.empty()) {
    out += " ";
    for (size_t i = 0; i < named.size(); ++i) {
      if (i > 0) out += i + 1 == named.size() ? "; and " : "; ";
      out += named[i];
    }
    out += ".";
  } else if (top && top->name == "computation") {
    out += " No single kernel explains 10 % of it: the time is spread over many kernels.";
  }
  for (const CompareRow& r : c.temporal) {
    if (r.name != "computation" || std::fabs(r.share_pct) >= kNameSharePct) continue;
    double moved = 0;
    for (const CompareKernel& k : c.changed) moved += std::fabs(k.delta_ns);
    if (moved >= std::fabs(c.delta_ns) * kNameSharePct / 100 && c.kernels_matched > 0) {
      out += fmt::format(
          " The kernels' total barely changed ({}/{}) although individual kernels moved (up to "
          "{}): "
          "the libraries chose other algorithms, which is not the cause.",
          Signed(r.delta_ns), u, Dur(std::fabs(c.changed.front().delta_ns)));
    }
  }
  if (!c.causes.empty()) {
    std::string causes = c.causes.front();
    causes[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(causes[0])));
    out += " " + causes + ".";
  }
  c.answer = std::move(out);
}

}  // namespace

std::string NormaliseKernelName(std::string_view name) {
  std::string_view s = name;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.substr(0, 5) == "void ") s.remove_prefix(5);
  // The trailing parameter list: walk back from the final ')' to its matching '('.
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') {
        ++depth;
      } else if (s[i] == '(' && --depth == 0) {
        if (i > 0) s = s.substr(0, i);
        break;
      }
    }
  }
  std::string out;
  out.reserve(s.size());
  bool space = false;
  for (char ch : s) {
    if (std::isspace(static_cast<unsigned char>(ch))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += ch;
  }
  return out;
}

std::string KernelFamily(std::string_view normalised) {
  std::string out;
  out.reserve(normalised.size());
  size_t i = 0;
  while (i <= normalised.size()) {
    size_t j = i;
    while (j < normalised.size() && std::isalnum(static_cast<unsigned char>(normalised[j]))) ++j;
    std::string_view tok = normalised.substr(i, j - i);
    // A token counts only between word boundaries that are '_' or the name's ends.
    bool left = i == 0 || normalised[i - 1] == '_';
    bool right = j == normalised.size() || normalised[j] == '_';
    std::string lower(tok);
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    out += left && right && IsArchToken(lower) ? std::string("*") : std::string(tok);
    if (j < normalised.size()) out += normalised[j];
    i = j + 1;
  }
  return out;
}

TraceComparison CompareTraces(std::vector<RankTrace> a, std::vector<RankTrace> b,
                              const TraceOptions& options) {
  TraceComparison c;
  bool per_step = AllRanksMarkSteps(a) && AllRanksMarkSteps(b);
  c.unit = per_step ? "step" : "window";
  Side sa = Aggregate(std::move(a), per_step, options);
  Side sb = Aggregate(std::move(b), per_step, options);
  Average(sa);
  Average(sb);
  sa.run.has_steps = sb.run.has_steps = per_step;
  c.a = sa.run;
  c.b = sb.run;
  c.delta_ns = c.b.step_ns - c.a.step_ns;
  c.change_pct = Share(c.delta_ns, c.a.step_ns);
  c.temporal = {Row("computation", sa.compute, sb.compute, c.delta_ns),
                Row("non-computation", sa.non_compute, sb.non_compute, c.delta_ns),
                Row("idle", sa.idle, sb.idle, c.delta_ns)};
  c.idle = {Row("host wait", sa.host_wait, sb.host_wait, c.delta_ns),
            Row("kernel wait", sa.kernel_wait, sb.kernel_wait, c.delta_ns),
            Row("other", sa.other_wait, sb.other_wait, c.delta_ns)};
  if (per_step) {
    c.idle.push_back(Row("outside the GPU span", sa.outside, sb.outside, c.delta_ns));
  }
  c.host = {Row("host syncs", sa.h_sync, sb.h_sync, c.delta_ns)};
  if (sa.has_phases || sb.has_phases) {
    c.host.push_back(Row("DataLoader", sa.h_loader, sb.h_loader, c.delta_ns));
    c.host.push_back(Row("optimizer", sa.h_opt, sb.h_opt, c.delta_ns));
  }
  c.host.push_back(Row("Python and framework", sa.h_other, sb.h_other, c.delta_ns));
  std::vector<std::string> cat_order(std::begin(kKernelCategories), std::end(kKernelCategories));
  cat_order.erase(std::remove_if(cat_order.begin(), cat_order.end(),
                                 [&](const std::string& n) {
                                   return !sa.categories.count(n) && !sb.categories.count(n);
                                 }),
                  cat_order.end());
  c.categories = MapRows(sa.categories, sb.categories, cat_order, c.delta_ns);
  c.copies =
      MapRows(sa.copies, sb.copies, {"HtoD", "DtoH", "DtoD", "PtoP", "HtoH", "other"}, c.delta_ns);
  c.syncs = MapRows(sa.syncs, sb.syncs, {"device", "stream", "event", "memcpy"}, c.delta_ns);
  c.comm = Row("communication", sa.comm, sb.comm, c.delta_ns);
  c.comm_exposed = Row("exposed communication", sa.comm_exposed, sb.comm_exposed, c.delta_ns);
  MatchKernels(sa, sb, c);
  if (c.a.ranks == 0 || c.b.ranks == 0) {
    c.comparable = false;
    c.reason = c.a.ranks == 0 && c.b.ranks == 0 ? "neither run has GPU work in its traces"
               : c.a.ranks == 0                 ? "run A has no GPU work in its traces"
                                                : "run B has no GPU work in its traces";
  } else if (c.kernels_matched == 0) {
    c.comparable = false;
    c.reason = fmt::format(
        "the two runs share no kernel ({} kernels in A, {} in B): they run different models, "
        "frameworks or code, so a kernel-by-kernel difference would mean nothing",
        c.kernels_a_only, c.kernels_b_only);
  } else if (c.a.step_ns <= 0 || c.b.step_ns <= 0) {
    c.comparable = false;
    c.reason = "one run's analysed window holds no GPU span";
  }
  FindCauses(c);
  Answer(c);
  return c;
}

}  // namespace gpuvet
