// Straggler detection by late collective starts.
#include "analysis/trace/straggler.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include "analysis/trace/kernel_class.h"
#include "analysis/trace/run_groups.h"

namespace gpuvet {

namespace {

struct Candidate {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
};

// step name -> kernel name -> last significant comm kernel, for one rank.
using RankCandidates = std::map<std::string, std::map<std::string, Candidate>>;

RankCandidates Collect(const RankTrace& t, int64_t min_dur_ns) {
  std::unordered_map<int64_t, int64_t> call_start;
  for (const RuntimeCall& c : t.runtime) {
    if (c.correlation != -1) call_start.emplace(c.correlation, c.start_ns);
  }
  RankCandidates out;
  // Every communication kernel gpuvet recognises (NCCL/RCCL, DeepEP, NVSHMEM, symmetric memory…),
  // not only the ones HTA names.
  KernelTypeCache types(t);
  for (const GpuOp& op : t.gpu_ops) {
    if (op.dur_ns < min_dur_ns || types.Of(op) != HtaKernelType::kCommunication) continue;
    const std::string& name = t.Name(op.name);
    auto it = op.correlation == -1 ? call_start.end() : call_start.find(op.correlation);
    int64_t when = it != call_start.end() ? it->second : op.start_ns;
    std::string step;
    if (!t.steps.empty()) {
      for (const TraceRange& s : t.steps) {
        if (when >= s.start_ns && when < s.start_ns + s.dur_ns) step = t.Name(s.name);
      }
      if (step.empty()) continue;
    }
    auto [c, fresh] = out[step].try_emplace(name, Candidate{op.start_ns, op.dur_ns});
    if (!fresh && op.start_ns >= c->second.start_ns) c->second = {op.start_ns, op.dur_ns};
  }
  return out;
}

double StdDev(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  return std::sqrt(var / static_cast<double>(v.size() - 1));
}

}  // namespace

CrossRank ComputeCrossRank(const std::vector<RankTrace>& ranks, const TraceThresholds& thresholds) {
  CrossRank x;
  std::map<int, std::vector<std::string>> sources;
  std::vector<const RankTrace*> compared;
  for (const RankTrace& r : ranks) {
    x.world_size = std::max(x.world_size, r.world_size);
    if (r.rank < 0) continue;
    sources[r.rank].push_back(r.source);
    if (!r.gpu_ops.empty()) compared.push_back(&r);
  }
  for (const auto& [rank, files] : sources) {
    x.ranks_present.push_back(rank);
    if (files.size() > 1) x.duplicate_ranks.emplace_back(rank, files);
  }
  x.runs = GroupRuns(ranks);
  // Missing ranks only make sense for one run; several runs list theirs in their own rows.
  for (int r = 0; r < x.world_size && x.runs.size() <= 1; ++r) {
    if (!sources.count(r)) x.missing_ranks.push_back(r);
  }
  // Traces of different runs (another world size, device or time; two files of one rank) are
  // not ranks of one job: comparing their collective start times would be meaningless.
  if (compared.size() < 2 || !x.duplicate_ranks.empty() || x.runs.size() > 1) return x;
  std::sort(compared.begin(), compared.end(),
            [](const RankTrace* a, const RankTrace* b) { return a->rank < b->rank; });

  // Mean step time over all ranks; the whole GPU span when there are no steps.
  int64_t total = 0, count = 0;
  for (const RankTrace* r : compared) {
    for (const TraceRange& s : r->steps) total += s.dur_ns, ++count;
    if (r->steps.empty()) {
      const GpuOp& last = r->gpu_ops.back();
      total += last.start_ns + last.dur_ns - r->gpu_ops.front().start_ns, ++count;
    }
  }
  x.mean_step_ns = count ? total / count : 0;
  auto min_dur = static_cast<int64_t>(thresholds.straggler_min_normalized_duration *
                                      static_cast<double>(count ? total / count : 0));
  std::vector<RankCandidates> cands;
  for (const RankTrace* r : compared) cands.push_back(Collect(*r, min_dur));

  // name -> (steps present on every rank, summed duration spread)
  std::map<std::string, std::pair<uint64_t, double>> score;
  for (const auto& [step, names] : cands[0]) {
    for (const auto& [name, c0] : names) {
      std::vector<double> durs;
      for (const RankCandidates& rc : cands) {
        auto s = rc.find(step);
        if (s == rc.end() || !s->second.count(name)) break;
        durs.push_back(static_cast<double>(s->second.at(name).dur_ns));
      }
      if (durs.size() != cands.size()) continue;
      auto& sc = score[name];
      ++sc.first;
      sc.second += StdDev(durs);
    }
  }
  const std::pair<uint64_t, double>* best = nullptr;
  for (const auto& [name, sc] : score) {
    if (!best || sc.first > best->first ||
        (sc.first == best->first && sc.second / sc.first > best->second / best->first)) {
      best = &sc;
      x.collective = name;
    }
  }
  if (!best) return x;

  std::vector<RankLateness> late(compared.size());
  std::vector<int64_t> delay_sum(compared.size(), 0);
  for (const auto& [step, names] : cands[0]) {
    if (!names.count(x.collective)) continue;
    std::vector<int64_t> starts;
    for (const RankCandidates& rc : cands) {
      auto s = rc.find(step);
      if (s == rc.end() || !s->second.count(x.collective)) break;
      starts.push_back(s->second.at(x.collective).start_ns);
    }
    if (starts.size() != cands.size()) continue;
    ++x.steps_compared;
    int64_t earliest = *std::min_element(starts.begin(), starts.end());
    size_t latest = std::max_element(starts.begin(), starts.end()) - starts.begin();
    ++late[latest].late_count;
    for (size_t i = 0; i < starts.size(); ++i) delay_sum[i] += starts[i] - earliest;
  }
  for (size_t i = 0; i < compared.size(); ++i) {
    late[i].rank = compared[i]->rank;
    if (x.steps_compared)
      late[i].mean_delay_ns = delay_sum[i] / static_cast<int64_t>(x.steps_compared);
    // Someone is always last: a straggler is last most of the time AND late by enough to cost
    // the others a visible part of each step.
    const double min_delay =
        thresholds.straggler_min_delay_share * static_cast<double>(x.mean_step_ns);
    if (x.steps_compared >= thresholds.straggler_min_steps &&
        static_cast<double>(late[i].late_count) >=
            thresholds.straggler_late_share * static_cast<double>(x.steps_compared) &&
        static_cast<double>(late[i].mean_delay_ns) >= min_delay) {
      x.stragglers.push_back(late[i].rank);
    }
    // A rank "late" by more than a whole step is not waited for at each collective: the traces'
    // clocks do not line up (different hosts without a common time base).
    if (late[i].mean_delay_ns > x.mean_step_ns && x.mean_step_ns > 0) x.clocks_disagree = true;
  }
  if (x.clocks_disagree) x.stragglers.clear();
  x.lateness = std::move(late);
  return x;
}

}  // namespace gpuvet
