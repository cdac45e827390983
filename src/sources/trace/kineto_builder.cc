// Event-to-model rules for Kineto traces; see kineto_builder.h.
#include "sources/trace/kineto_builder.h"

#include <algorithm>
#include <limits>

#include "core/trace/trace_time.h"
#include "util/strings.h"

namespace gpuvet {
namespace {

// Distinct unrecognised categories named in the warning; the rest are only counted.
constexpr size_t kMaxNamedCategories = 5;

int32_t ClampInt32(int64_t v) {
  return static_cast<int32_t>(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int32_t>::max()));
}

bool IsGpuOp(KinetoCategory c) {
  return c == KinetoCategory::kKernel || c == KinetoCategory::kMemcpy ||
         c == KinetoCategory::kMemset;
}

}  // namespace

void KinetoEvent::Reset() {
  ph = 0;
  has_cat = false;
  cat = KinetoCategory::kUnknown;
  cat_text.clear();
  has_name = false;
  name.clear();
  ts_ns.reset();
  dur_ns.reset();
  tid = -1;
  device = stream = correlation = -1;
  bytes = 0;
  size = 0;
  rocm_dispatch = false;
  collective = false;
  metric_count = 0;
}

int32_t FoldThreadId(int64_t tid) {
  if (tid >= 0 && tid <= std::numeric_limits<int32_t>::max()) return static_cast<int32_t>(tid);
  uint64_t u = static_cast<uint64_t>(tid);
  return static_cast<int32_t>((u ^ (u >> 31)) & 0x7fffffff);
}

int32_t HashThreadName(std::string_view name) {
  // FNV-1a, 32 bits (offset basis 2166136261, prime 16777619): fixed, so ids match across runs.
  uint32_t h = 2166136261u;
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  return static_cast<int32_t>(h & 0x7fffffff);
}

KinetoTraceBuilder::KinetoTraceBuilder(RankTrace* trace, std::string origin)
    : trace_(trace), origin_(std::move(origin)) {
  trace_->names.assign(1, std::string());
  name_ids_.emplace(std::string(), 0);
}

uint32_t KinetoTraceBuilder::Intern(std::string_view s) {
  auto it = name_ids_.find(s);
  if (it != name_ids_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(trace_->names.size());
  trace_->names.emplace_back(s);
  name_ids_.emplace(std::string(s), id);
  return id;
}

void KinetoTraceBuilder::AddWarning(const std::string& text) {
  trace_->warnings.push_back(origin_ + ": " + text);
}

void KinetoTraceBuilder::AddNonObject(uint64_t offset) {
  if (non_objects_++ == 0) first_non_object_ = offset;
}

void KinetoTraceBuilder::CountAccelerator(std::vector<UnanalysedEvents>& list,
                                          const std::string& category, std::string_view device) {
  for (UnanalysedEvents& u : list) {
    if (u.category == category) {
      ++u.events;
      return;
    }
  }
  list.push_back({category, std::string(device), 1});
}

void KinetoTraceBuilder::Add(const KinetoEvent& ev, uint64_t offset) {
  if (ev.ph != 'X' || !ev.has_cat) return;
  KinetoCategory cat = ev.cat;
  if ((cat != KinetoCategory::kUnknown && cat != KinetoCategory::kIgnored) ||
      ev.cat_text == "python_function") {
    ++trace_->profiler_events;
  }
  bool step = IsProfilerStepName(ev.name);
  // The GPU-side copy of a step (gpu_user_annotation "ProfilerStep#N") is not a second step.
  if (cat == KinetoCategory::kProfilerRange) {
    // Replayed kernels: their ts/dur are not a timeline, only the counters matter.
    CounterRange range;
    range.name = Intern(ev.name);
    range.first = static_cast<uint32_t>(trace_->counter_values.size());
    range.count = static_cast<uint32_t>(ev.metric_count);
    for (size_t i = 0; i < ev.metric_count; ++i) {
      trace_->counter_values.push_back({Intern(ev.metrics[i].first), ev.metrics[i].second});
    }
    trace_->counter_ranges.push_back(range);
    return;
  }
  // Only these classes can be an accelerator's (CUDA's cat strings fail at the first letter).
  std::string_view accelerator;
  if (cat == KinetoCategory::kKernel || cat == KinetoCategory::kRuntime ||
      cat == KinetoCategory::kAcceleratorOther) {
    accelerator = AcceleratorOfCategory(ev.cat_text);
  }
  if (!accelerator.empty()) {
    if (accelerator_.empty()) accelerator_ = std::string(accelerator);
    if (cat == KinetoCategory::kAcceleratorOther) {
      CountAccelerator(trace_->unanalysed, ev.cat_text, accelerator);
      return;
    }
    if (cat == KinetoCategory::kRuntime) {
      CountAccelerator(accelerator_runtime_, ev.cat_text, accelerator);
    }
  }
  std::optional<HostPhaseKind> phase;
  if (cat == KinetoCategory::kHostOp || cat == KinetoCategory::kUserAnnotation) {
    phase = ClassifyHostPhase(ev.name);
  }
  bool wanted = IsGpuOp(cat) || cat == KinetoCategory::kRuntime ||
                cat == KinetoCategory::kUserAnnotation ||
                (cat == KinetoCategory::kGpuUserAnnotation && !step) ||
                (cat == KinetoCategory::kHostOp && (step || phase));
  if (cat == KinetoCategory::kUnknown) {
    ++unknown_events_;
    if (unknown_categories_.size() < kMaxNamedCategories) unknown_categories_.insert(ev.cat_text);
  }
  if (!wanted) return;
  // Times outside the range analyses can add and subtract (core/trace/trace_time.h) are malformed
  // too.
  if (!ev.ts_ns || !ev.dur_ns || !TraceSpanFits(*ev.ts_ns, *ev.dur_ns)) {
    if (bad_times_++ == 0) first_bad_time_ = offset;
    return;
  }
  if (IsGpuOp(cat)) {
    GpuOp op;
    op.start_ns = *ev.ts_ns;
    op.dur_ns = *ev.dur_ns;
    op.correlation = ev.correlation;
    op.name = Intern(ev.name);
    op.device = ClampInt32(ev.device);
    op.stream = ClampInt32(ev.stream);
    if (cat == KinetoCategory::kKernel) {
      op.kind = GpuOpKind::kKernel;
      op.collective = ev.collective;
    } else {
      op.kind = cat == KinetoCategory::kMemcpy ? GpuOpKind::kMemcpy : GpuOpKind::kMemset;
      op.bytes = ev.bytes > 0 ? static_cast<uint64_t>(ev.bytes) : 0;
    }
    if (cat == KinetoCategory::kMemcpy) {
      CopyInfo info = ParseMemcpyName(ev.name);
      op.copy = info.copy;
      op.src = info.src;
      op.dst = info.dst;
    }
    saw_rocm_ = saw_rocm_ || ev.rocm_dispatch;
    trace_->gpu_ops.push_back(op);
  } else if (cat == KinetoCategory::kRuntime) {
    RuntimeCall call;
    call.start_ns = *ev.ts_ns;
    call.dur_ns = *ev.dur_ns;
    call.correlation = ev.correlation;
    call.name = Intern(ev.name);
    call.tid = ev.tid;
    call.kind = ClassifyRuntimeCall(ev.name);
    saw_rocm_ = saw_rocm_ || IsHipApiName(ev.name);
    if (ev.size > 0 && ev.correlation != -1) {
      call_bytes_[ev.correlation] = static_cast<uint64_t>(ev.size);
    }
    trace_->runtime.push_back(call);
  } else if (cat == KinetoCategory::kHostOp && phase) {
    trace_->host_phases.push_back({*ev.ts_ns, *ev.dur_ns, ev.tid, *phase});
  } else {
    // A user annotation may mark a phase too (record_function("Optimizer.step#...")); it stays
    // an annotation as well.
    if (phase) trace_->host_phases.push_back({*ev.ts_ns, *ev.dur_ns, ev.tid, *phase});
    TraceRange range;
    range.start_ns = *ev.ts_ns;
    range.dur_ns = *ev.dur_ns;
    range.name = Intern(ev.name);
    range.tid = ev.tid;
    (step ? trace_->steps : trace_->annotations).push_back(range);
  }
}

void KinetoTraceBuilder::Finish() {
  std::unordered_set<int64_t> graph_launches;
  for (const RuntimeCall& call : trace_->runtime) {
    if (call.kind == RuntimeKind::kGraphLaunch && call.correlation >= 0) {
      graph_launches.insert(call.correlation);
    }
  }
  if (!graph_launches.empty()) {
    for (GpuOp& op : trace_->gpu_ops) op.graph_launched = graph_launches.count(op.correlation) > 0;
  }
  // ROCm traces give a copy's size on its hipMemcpy* call (args.size), not on the copy.
  if (!call_bytes_.empty()) {
    for (GpuOp& op : trace_->gpu_ops) {
      if (op.kind == GpuOpKind::kKernel || op.bytes != 0 || op.correlation == -1) continue;
      auto it = call_bytes_.find(op.correlation);
      if (it != call_bytes_.end()) op.bytes = it->second;
    }
  }
  if (saw_rocm_) {
    trace_->device_type = "rocm";
  } else if (!accelerator_.empty()) {
    trace_->device_type = accelerator_;
  } else if (!trace_->gpu_ops.empty()) {
    trace_->device_type = "cuda";
  }
  // Host-side accelerator events with no device activity at all (an HPU trace: hpu_op only):
  // the device's work is not in the trace, which is not a CPU-only rank either.
  if (trace_->gpu_ops.empty()) {
    for (UnanalysedEvents& u : accelerator_runtime_) trace_->unanalysed.push_back(std::move(u));
  }
  auto by_start = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
  std::stable_sort(trace_->gpu_ops.begin(), trace_->gpu_ops.end(), by_start);
  std::stable_sort(trace_->runtime.begin(), trace_->runtime.end(), by_start);
  std::stable_sort(trace_->steps.begin(), trace_->steps.end(), by_start);
  std::stable_sort(trace_->annotations.begin(), trace_->annotations.end(), by_start);
  std::stable_sort(trace_->host_phases.begin(), trace_->host_phases.end(), by_start);
  if (bad_times_ > 0) {
    AddWarning("skipped " + std::to_string(bad_times_) +
               " events with a missing or malformed ts/dur (first at byte " +
               std::to_string(first_bad_time_) + ")");
  }
  if (non_objects_ > 0) {
    AddWarning("skipped " + std::to_string(non_objects_) +
               " traceEvents elements that are not objects (first at byte " +
               std::to_string(first_non_object_) + ")");
  }
  if (unknown_events_ > 0) {
    std::vector<std::string> names(unknown_categories_.begin(), unknown_categories_.end());
    std::sort(names.begin(), names.end());
    AddWarning("ignored " + std::to_string(unknown_events_) +
               " events of unrecognised categories (" + Join(names, ", ") + ")");
  }
}

}  // namespace gpuvet
