// One-time work by runtime API name, graph-capture ranges and first launches; see startup.h.
#include "analysis/trace/startup.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/trace/intervals.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

// The API name without its cuda/hip/cu prefix and _v2/_ptsz-style suffixes.
std::string_view ApiStem(std::string_view name) {
  for (std::string_view prefix : {"cuda", "hip", "cu"}) {
    if (StartsWith(name, prefix)) {
      name.remove_prefix(prefix.size());
      break;
    }
  }
  size_t underscore = name.find('_');
  return underscore == std::string_view::npos ? name : name.substr(0, underscore);
}

// The kind of one-time work a runtime call is, or "" when it is steady-state work. Names from
// the CUDA runtime/driver API and HIP; PyTorch's caching allocator and NCCL call these once per
// process (or once per new size) and then reuse what they made.
std::string_view OneTimeKind(std::string_view name) {
  if (StartsWith(name, "nccl") && name.find("Init") != std::string_view::npos) {
    return "NCCL communicator set-up";  // ncclCommInitRank, ncclCommInitRankConfig
  }
  std::string_view stem = ApiStem(name);
  if (stem == "StreamCreate" || stem == "StreamCreateWithFlags" ||
      stem == "StreamCreateWithPriority" || stem == "EventCreate" ||
      stem == "EventCreateWithFlags" || stem == "StreamDestroy" || stem == "EventDestroy") {
    return "stream/event creation";
  }
  if (StartsWith(stem, "ModuleLoad") || StartsWith(stem, "LibraryLoad") ||
      stem == "ModuleGetFunction" || stem == "LinkCreate" || stem == "LinkComplete") {
    return "module load";
  }
  if (stem == "Malloc" || stem == "MallocHost" || stem == "HostAlloc" || stem == "MallocManaged" ||
      stem == "MemAlloc" || stem == "Free" || stem == "FreeHost" || stem == "MemFree" ||
      stem == "HostRegister" || stem == "HostUnregister" || stem == "ExtMallocWithFlags") {
    return "allocation";
  }
  if (StartsWith(stem, "GraphInstantiate") || stem == "GraphDestroy" ||
      stem == "GraphExecDestroy" || stem == "GraphUpload") {
    return "CUDA-graph instantiation";
  }
  if (stem == "DeviceReset" || stem == "SetDevice" || stem == "DevicePrimaryCtxRetain" ||
      stem == "CtxCreate" || stem == "Init") {
    return "context set-up";
  }
  return "";
}

// The merged intervals cut to [lo, hi).
std::vector<Interval> Clip(const std::vector<Interval>& merged, int64_t lo, int64_t hi) {
  std::vector<Interval> out;
  for (const Interval& iv : merged) {
    int64_t s = std::max(iv.start, lo), e = std::min(iv.end, hi);
    if (s < e) out.push_back({s, e});
  }
  return out;
}

bool IsBeginCapture(std::string_view name) { return ApiStem(name) == "StreamBeginCapture"; }
bool IsEndCapture(std::string_view name) { return ApiStem(name) == "StreamEndCapture"; }

}  // namespace

StartupStats ComputeStartup(const RankTrace& trace, const TraceThresholds& th) {
  StartupStats st;
  if (trace.gpu_ops.empty() && trace.runtime.empty()) return st;
  // The window runs from the first GPU op (or, without any, the first runtime call) to the last
  // GPU op or runtime call; one-time work before the first GPU op (context creation, module
  // loads) opens it earlier, other host calls before it (a device sync) do not.
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const GpuOp& op : trace.gpu_ops) {
    lo = std::min(lo, op.start_ns);
    hi = std::max(hi, op.start_ns + op.dur_ns);
  }
  for (const RuntimeCall& c : trace.runtime) {
    if (trace.gpu_ops.empty()) lo = std::min(lo, c.start_ns);
    hi = std::max(hi, c.start_ns + c.dur_ns);
  }

  // Kernel name of each launch, to find the first launch of every kernel.
  std::unordered_map<int64_t, uint32_t> kernel_of;
  for (const GpuOp& op : trace.gpu_ops) {
    if (op.kind == GpuOpKind::kKernel && op.correlation != -1) {
      kernel_of.emplace(op.correlation, op.name);
    }
  }
  std::map<std::string, std::vector<Interval>> by_kind;
  std::map<std::string, uint64_t> counts;
  std::unordered_set<uint32_t> launched;
  std::unordered_map<int32_t, int64_t> capture_begin;  // tid -> start of its open capture
  // What each interned API name is, classified once: a trace has a few dozen distinct names and
  // up to millions of calls. 0: steady-state work, 1: begin capture, 2: end capture, 3: one-time.
  std::vector<int8_t> role(trace.names.size(), -1);
  std::vector<std::string_view> kind_of(trace.names.size());
  // The first runtime call of each thread: a long one (>= startup_first_launch_ns) that neither
  // launches, copies nor syncs creates the CUDA context lazily (a 30 s cudaGetDeviceCount).
  std::unordered_set<int32_t> seen_thread;
  for (const RuntimeCall& c : trace.runtime) {
    const bool first_on_thread = seen_thread.insert(c.tid).second;
    if (c.name >= role.size()) continue;
    if (role[c.name] < 0) {
      const std::string& name = trace.Name(c.name);
      kind_of[c.name] = OneTimeKind(name);
      role[c.name] = !kind_of[c.name].empty() ? 3
                     : IsBeginCapture(name)   ? 1
                     : IsEndCapture(name)     ? 2
                                              : 0;
    }
    const int64_t end = c.start_ns + c.dur_ns;
    std::string_view kind = kind_of[c.name];
    if (first_on_thread && role[c.name] == 0 && c.kind == RuntimeKind::kOther &&
        c.dur_ns >= th.startup_first_launch_ns &&
        (trace.gpu_ops.empty() || c.start_ns <= trace.gpu_ops.front().start_ns)) {
      by_kind["context set-up"].push_back({c.start_ns, end});
      ++counts["context set-up"];
      continue;
    }
    if (role[c.name] == 3) {
      by_kind[std::string(kind)].push_back({c.start_ns, end});
      ++counts[std::string(kind)];
    } else if (role[c.name] == 1) {
      capture_begin[c.tid] = c.start_ns;
    } else if (role[c.name] == 2) {
      auto it = capture_begin.find(c.tid);
      if (it != capture_begin.end()) {
        by_kind["CUDA-graph capture"].push_back({it->second, end});
        ++counts["CUDA-graph capture"];
        capture_begin.erase(it);
      }
    } else if (c.kind == RuntimeKind::kLaunch && c.correlation != -1) {
      auto k = kernel_of.find(c.correlation);
      if (k != kernel_of.end() && launched.insert(k->second).second &&
          c.dur_ns >= th.startup_first_launch_ns) {
        by_kind["first launch"].push_back({c.start_ns, end});
        ++counts["first launch"];
      }
    }
  }
  // A capture still open at the end of the trace runs to the end of the window.
  for (const auto& [tid, begin] : capture_begin) {
    by_kind["CUDA-graph capture"].push_back({begin, hi});
    ++counts["CUDA-graph capture"];
  }
  std::vector<Interval> all;
  for (auto& [kind, intervals] : by_kind) {
    std::vector<Interval> merged = MergeIntervals(intervals);
    st.work.push_back({kind, counts[kind], TotalLength(merged)});
    all.insert(all.end(), merged.begin(), merged.end());
  }
  std::sort(st.work.begin(), st.work.end(), [](const StartupWork& a, const StartupWork& b) {
    return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.kind < b.kind;
  });
  std::vector<Interval> merged = MergeIntervals(std::move(all));
  if (!merged.empty()) lo = std::min(lo, merged.front().start);
  merged = Clip(merged, lo, hi);
  st.window_ns = hi - lo;
  if (st.window_ns <= 0) return StartupStats{};
  st.one_time_ns = TotalLength(merged);
  st.end_ns = merged.empty() ? lo : merged.back().end;
  st.share_pct = 100.0 * static_cast<double>(st.one_time_ns) / static_cast<double>(st.window_ns);
  st.detected = st.share_pct >= th.startup_pct;
  return st;
}

RankTrace TraceAfter(const RankTrace& trace, int64_t cut_ns) {
  RankTrace out;
  out.source = trace.source;
  out.format = trace.format;
  out.rank = trace.rank;
  out.world_size = trace.world_size;
  out.part = trace.part;
  out.device_type = trace.device_type;
  out.names = trace.names;
  out.gpu_name = trace.gpu_name;
  out.truncated = trace.truncated;
  auto after = [cut_ns](const auto& v) { return v.start_ns >= cut_ns; };
  std::copy_if(trace.gpu_ops.begin(), trace.gpu_ops.end(), std::back_inserter(out.gpu_ops), after);
  std::copy_if(trace.runtime.begin(), trace.runtime.end(), std::back_inserter(out.runtime), after);
  std::copy_if(trace.steps.begin(), trace.steps.end(), std::back_inserter(out.steps), after);
  std::copy_if(trace.annotations.begin(), trace.annotations.end(),
               std::back_inserter(out.annotations), after);
  std::copy_if(trace.host_phases.begin(), trace.host_phases.end(),
               std::back_inserter(out.host_phases), after);
  return out;
}

}  // namespace gpuvet
