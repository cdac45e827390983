// KinetoTraceBuilder: turns the fields of Kineto events, one at a time, into the RankTrace model
// (interned names, GPU ops, runtime calls, steps, annotations), then finishes it: graph-launch
// marks, device type, sorting, aggregated warnings. The JSON walking lives in kineto_reader.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/trace/trace.h"
#include "sources/trace/kineto_schema.h"

namespace gpuvet {

// The fields of one event that the model can use, as the reader found them.
struct KinetoEvent {
  char ph = 0;  // 0 when absent; '?' when not a one-letter string
  bool has_cat = false;
  KinetoCategory cat = KinetoCategory::kUnknown;
  std::string cat_text;
  bool has_name = false;
  std::string name;
  std::optional<int64_t> ts_ns;  // absent when missing or not a number
  std::optional<int64_t> dur_ns;
  int32_t tid = -1;
  int64_t device = -1;  // args.device, args.stream, args.correlation, args.bytes
  int64_t stream = -1;
  int64_t correlation = -1;
  int64_t bytes = 0;
  int64_t size = 0;  // args.size of a runtime call: ROCm puts a copy's bytes on hipMemcpy*
  bool rocm_dispatch = false;  // args.kind == "Dispatch Kernel" (roctracer kernels)
  // args names a collective ("Collective name", "Process Group Name", "Process Group Ranks").
  bool collective = false;
  // Numeric args of a cuda_profiler_range event: metric name and value.
  std::vector<std::pair<std::string, double>> metrics;
  size_t metric_count = 0;  // used entries of `metrics` (kept allocated across events)

  // Back to the empty state, keeping the strings' capacity.
  void Reset();
};

// Not thread-safe. `trace` must outlive the builder; its names are reset to {""}.
class KinetoTraceBuilder {
 public:
  // `origin` (the file) prefixes the warnings Finish() adds.
  KinetoTraceBuilder(RankTrace* trace, std::string origin);

  // Adds the event to the model if it is a complete ("X") event of a kept kind; counts it for the
  // warnings when its times are unusable or its category unknown. `offset` is its byte offset.
  void Add(const KinetoEvent& event, uint64_t offset);

  // Counts a traceEvents element that is not an object, at byte `offset`.
  void AddNonObject(uint64_t offset);
  // traceEvents elements that were not objects, so far.
  uint64_t non_objects() const { return non_objects_; }

  // Marks graph-launched GPU ops (correlation of a cudaGraphLaunch call; the runtime names are
  // only all known at the end), sets device_type, sorts every list by start (stable) and appends
  // the aggregated warnings. Call once, after the last Add.
  void Finish();

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  uint32_t Intern(std::string_view s);
  void AddWarning(const std::string& text);

  RankTrace* trace_;
  std::string origin_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> name_ids_;
  bool saw_rocm_ = false;
  uint64_t bad_times_ = 0;
  uint64_t first_bad_time_ = 0;
  uint64_t non_objects_ = 0;
  uint64_t first_non_object_ = 0;
  uint64_t unknown_events_ = 0;
  // Counts one event of an accelerator category into `list` (first-seen order).
  static void CountAccelerator(std::vector<UnanalysedEvents>& list, const std::string& category,
                               std::string_view device);

  std::string accelerator_;  // device of the first accelerator category seen ("mtia", …)
  // Runtime events of accelerator categories: reported as unanalysed when no device op came.
  std::vector<UnanalysedEvents> accelerator_runtime_;
  std::unordered_map<int64_t, uint64_t> call_bytes_;  // correlation -> args.size of the call
  std::unordered_set<std::string> unknown_categories_;
};

// Folds a 64-bit thread id into the model's int32: kept when it fits, else mixed
// deterministically (pthread ids such as 4093687616 in 2020 traces do not fit).
int32_t FoldThreadId(int64_t tid);

// A deterministic non-negative id for a thread named by a string ("main thread").
int32_t HashThreadName(std::string_view name);

}  // namespace gpuvet
