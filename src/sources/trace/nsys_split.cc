// Splitting one nsys export's events into per-(process, device) traces.
#include "sources/trace/nsys_split.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

#include "util/strings.h"

namespace gpuvet {

namespace {

// More process/device pairs than any real capture holds: ids read from a damaged file. Each
// part copies the names table, so the split is refused rather than multiplying memory.
constexpr size_t kMaxTimelines = 1024;

constexpr char kDroppedNote[] =
    " host events of processes without CUDA activity (or of unknown processes) not analysed";

// Drops the elements of `v` owned by a known process other than `pid`; returns how many.
template <typename T>
uint64_t KeepProcess(std::vector<T>& v, const std::vector<int64_t>& owners, int64_t pid);

struct UnitKey {
  int64_t pid = -1;
  int32_t device = -1;
  bool operator<(const UnitKey& o) const { return pid != o.pid ? pid < o.pid : device < o.device; }
};

void SortByStart(RankTrace& t) {
  auto by_start = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
  std::stable_sort(t.gpu_ops.begin(), t.gpu_ops.end(), by_start);
  std::stable_sort(t.runtime.begin(), t.runtime.end(), by_start);
  std::stable_sort(t.steps.begin(), t.steps.end(), by_start);
  std::stable_sort(t.annotations.begin(), t.annotations.end(), by_start);
  t.device_type = t.gpu_ops.empty() ? "" : "cuda";
}

int64_t OwnerAt(const std::vector<int64_t>& owners, size_t i) {
  return i < owners.size() ? owners[i] : -1;
}

template <typename T>
uint64_t KeepProcess(std::vector<T>& v, const std::vector<int64_t>& owners, int64_t pid) {
  size_t kept = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t owner = OwnerAt(owners, i);
    if (owner >= 0 && owner != pid) continue;
    if (kept != i) v[kept] = std::move(v[i]);
    ++kept;
  }
  uint64_t dropped = v.size() - kept;
  v.resize(kept);
  return dropped;
}

// The single rank MPI_RANKS gives `pid` (or, for pid < 0, the whole export), else -1.
int RankOf(const NsysOwners& owners, int64_t pid) {
  std::set<int> ranks;
  for (const auto& [p, r] : owners.ranks) {
    if (pid < 0 || p == pid) ranks.insert(r.begin(), r.end());
  }
  return ranks.size() == 1 ? *ranks.begin() : -1;
}

}  // namespace

std::vector<RankTrace> SplitNsysTrace(RankTrace whole, const NsysOwners& owners) {
  // Processes with CUDA activity, and the devices each one's ops ran on.
  std::map<int64_t, std::set<int32_t>> devices;
  for (size_t i = 0; i < whole.gpu_ops.size(); ++i) {
    devices[OwnerAt(owners.op_pid, i)].insert(whole.gpu_ops[i].device);
  }
  for (size_t i = 0; i < whole.runtime.size(); ++i) devices[OwnerAt(owners.call_pid, i)];
  // Unknown owners belong to the only known process when there is exactly one.
  int64_t only = -1;
  size_t known =
      std::count_if(devices.begin(), devices.end(), [](const auto& d) { return d.first >= 0; });
  if (known == 1) {
    only = std::find_if(devices.begin(), devices.end(), [](const auto& d) {
             return d.first >= 0;
           })->first;
    auto unknown = devices.find(-1);
    if (unknown != devices.end()) {
      devices[only].insert(unknown->second.begin(), unknown->second.end());
      devices.erase(unknown);
    }
  }
  auto resolve = [&](int64_t pid) { return pid < 0 && only >= 0 ? only : pid; };
  // Ops of unknown device (a graph starting on the host) run on their process's only device.
  std::map<int64_t, int32_t> fold;
  std::set<int64_t> cpu_only;
  for (auto& [pid, devs] : devices) {
    if (devs.size() == 2 && devs.count(-1) > 0) {
      devs.erase(-1);
      fold[pid] = *devs.begin();
    }
    if (devs.empty()) {  // runtime calls only: a CPU-only process
      devs.insert(-1);
      cpu_only.insert(pid);
    }
  }
  for (size_t i = 0; i < whole.gpu_ops.size() && !fold.empty(); ++i) {
    GpuOp& op = whole.gpu_ops[i];
    auto it = op.device < 0 ? fold.find(resolve(OwnerAt(owners.op_pid, i))) : fold.end();
    if (it != fold.end()) op.device = it->second;
  }
  size_t units = 0;
  for (const auto& d : devices) units += d.second.size();
  if (units > kMaxTimelines) {
    whole.warnings.push_back(whole.source + ": " + std::to_string(units) +
                             " process/device pairs, more than " + std::to_string(kMaxTimelines) +
                             " (corrupt ids?); analysed as one timeline");
    units = 1;
  }
  if (units <= 1) {
    // The rank of the one process with CUDA activity, else the export's only rank.
    int64_t pid = devices.size() == 1 ? devices.begin()->first : -1;
    whole.rank = RankOf(owners, pid >= 0 && owners.ranks.count(pid) > 0 ? pid : -1);
    std::set<int> all;
    for (const auto& r : owners.ranks) all.insert(r.second.begin(), r.second.end());
    if (whole.rank < 0 && all.size() > 1) {
      whole.warnings.push_back(whole.source +
                               ": MPI_RANKS lists several ranks in one export; rank left unknown");
    }
    if (pid >= 0) {  // NVTX ranges of other processes (a launcher) are not this rank's
      uint64_t dropped = KeepProcess(whole.steps, owners.step_pid, pid) +
                         KeepProcess(whole.annotations, owners.annotation_pid, pid);
      if (dropped > 0) {
        whole.events_seen -= std::min<uint64_t>(whole.events_seen, dropped);
        whole.warnings.push_back(whole.source + ": " + std::to_string(dropped) + kDroppedNote);
      }
    }
    SortByStart(whole);
    return {std::move(whole)};
  }

  std::map<UnitKey, size_t> index;
  std::vector<RankTrace> out;
  for (const auto& [pid, devs] : devices) {
    int rank = pid >= 0 ? RankOf(owners, pid) : -1;
    if (devs.size() > 1) rank = -1;
    for (int32_t dev : devs) {
      RankTrace t;
      t.source = whole.source;
      t.format = whole.format;
      t.input_bytes = whole.input_bytes;
      t.truncated = whole.truncated;
      t.names = whole.names;
      t.warnings = whole.warnings;
      t.gpu_capture_note = whole.gpu_capture_note;
      t.rank = pid >= 0 && devs.size() == 1 ? rank : -1;
      int proc_rank = pid >= 0 ? RankOf(owners, pid) : -1;
      std::vector<std::string> parts;
      if (t.rank < 0 && proc_rank >= 0) parts.push_back("rank " + std::to_string(proc_rank));
      if (t.rank < 0) parts.push_back(pid >= 0 ? "pid " + std::to_string(pid) : "pid unknown");
      if (t.rank < 0 || devs.size() > 1) {
        parts.push_back(dev >= 0                  ? "device " + std::to_string(dev)
                        : cpu_only.count(pid) > 0 ? "no GPU activity"
                                                  : "device unknown");
      }
      t.part = Join(parts, ", ");
      index.emplace(UnitKey{pid, dev}, out.size());
      out.push_back(std::move(t));
    }
  }

  // (pid, correlation) -> device, so a launch goes with the kernel it enqueued.
  struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const {
      return std::hash<uint64_t>{}(static_cast<uint64_t>(p.first) * 1000003u ^
                                   static_cast<uint64_t>(p.second));
    }
  };
  std::unordered_map<std::pair<int64_t, int64_t>, int32_t, PairHash> corr_device;
  for (size_t i = 0; i < whole.gpu_ops.size(); ++i) {
    const GpuOp& op = whole.gpu_ops[i];
    int64_t pid = resolve(OwnerAt(owners.op_pid, i));
    if (op.correlation >= 0) corr_device.emplace(std::make_pair(pid, op.correlation), op.device);
    out[index.at(UnitKey{pid, op.device})].gpu_ops.push_back(op);
  }
  std::vector<GpuOp>().swap(whole.gpu_ops);  // the parts hold them now: free, not keep twice
  uint64_t dropped = 0;
  // Every unit of `pid`; none when the process has no CUDA activity.
  auto units_of = [&](int64_t pid) {
    std::vector<size_t> u;
    auto it = devices.find(pid);
    if (it != devices.end()) {
      for (int32_t dev : it->second) u.push_back(index.at(UnitKey{pid, dev}));
    }
    return u;
  };
  for (size_t i = 0; i < whole.runtime.size(); ++i) {
    const RuntimeCall& c = whole.runtime[i];
    int64_t pid = resolve(OwnerAt(owners.call_pid, i));
    auto dev = corr_device.find(std::make_pair(pid, c.correlation));
    if (c.correlation >= 0 && dev != corr_device.end()) {
      out[index.at(UnitKey{pid, dev->second})].runtime.push_back(c);
      continue;
    }
    std::vector<size_t> u = units_of(pid);
    if (u.empty()) ++dropped;
    for (size_t k : u) out[k].runtime.push_back(c);
  }
  std::vector<RuntimeCall>().swap(whole.runtime);
  auto spread = [&](const std::vector<TraceRange>& from, const std::vector<int64_t>& pids,
                    std::vector<TraceRange> RankTrace::*to) {
    for (size_t i = 0; i < from.size(); ++i) {
      std::vector<size_t> u = units_of(resolve(OwnerAt(pids, i)));
      if (u.empty()) ++dropped;
      for (size_t k : u) (out[k].*to).push_back(from[i]);
    }
  };
  spread(whole.steps, owners.step_pid, &RankTrace::steps);
  spread(whole.annotations, owners.annotation_pid, &RankTrace::annotations);

  std::string note = whole.source + ": " + std::to_string(devices.size()) + " processes, " +
                     std::to_string(out.size()) +
                     " process/device timelines in one export; each is analysed on its own";
  for (RankTrace& t : out) {
    t.events_seen = t.gpu_ops.size() + t.runtime.size() + t.steps.size() + t.annotations.size();
    t.warnings.push_back(note);
    if (dropped > 0) {
      t.warnings.push_back(whole.source + ": " + std::to_string(dropped) + kDroppedNote);
    }
    SortByStart(t);
  }
  std::stable_sort(out.begin(), out.end(), [](const RankTrace& a, const RankTrace& b) {
    return (a.rank < 0) != (b.rank < 0) ? a.rank >= 0 : a.rank < b.rank;
  });
  return out;
}

}  // namespace gpuvet
