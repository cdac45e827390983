// Trace report to JSON. nlohmann::json objects are std::maps, so keys come out sorted.
#include "output/json/trace_json.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/bottleneck.h"
#include "output/forecast_render.h"
#include "output/json/json_renderer.h"

namespace gpuvet {

namespace {

using nlohmann::json;

double Us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }
double R2(double v) { return std::round(v * 100.0) / 100.0; }

json VerdictJson(const TraceVerdict& v) {
  return {{"label", BottleneckName(v.label)},
          {"share_pct", R2(v.share_pct)},
          {"share_of", v.share_of},
          {"confidence", v.confidence},
          {"reason", v.reason}};
}

json InputJson(const RankAnalysis& a) {
  // subject tells apart the parts of one split Nsight export, which share their source.
  return {{"source", a.source},           {"subject", a.subject},
          {"format", a.format},           {"rank", a.rank},
          {"world_size", a.world_size},   {"device_type", a.device_type},
          {"events_seen", a.events_seen}, {"input_bytes", a.input_bytes},
          {"truncated", a.truncated},     {"warnings", a.warnings}};
}

json TemporalJson(const TemporalBreakdown& t) {
  return {{"span_us", Us(t.span_ns)},
          {"idle_us", Us(t.idle_ns)},
          {"compute_us", Us(t.compute_ns)},
          {"non_compute_us", Us(t.non_compute_ns)},
          {"idle_pct", R2(t.idle_pct)},
          {"compute_pct", R2(t.compute_pct)},
          {"non_compute_pct", R2(t.non_compute_pct)},
          {"ops_counted", t.ops_counted},
          {"last_step_excluded", t.last_step_excluded}};
}

json StreamIdleJson(const StreamIdle& s) {
  return {{"device", s.device},
          {"stream", s.stream},
          {"ops", s.ops},
          {"idle_us", Us(s.idle_ns())},
          {"host_wait_us", Us(s.host_wait_ns)},
          {"kernel_wait_us", Us(s.kernel_wait_ns)},
          {"other_us", Us(s.other_ns)},
          {"host_wait_ratio", R2(s.host_wait_ratio)},
          {"kernel_wait_ratio", R2(s.kernel_wait_ratio)},
          {"other_ratio", R2(s.other_ratio)}};
}

json IdleJson(const std::vector<StreamIdle>& idle) {
  json out = json::array();
  for (const StreamIdle& s : idle) out.push_back(StreamIdleJson(s));
  return out;
}

json KernelsJson(const KernelBreakdown& k) {
  json cats = json::array(), top = json::array();
  for (const KernelCategoryTime& c : k.categories) {
    cats.push_back({{"category", c.category},
                    {"count", c.count},
                    {"time_us", Us(c.total_ns)},
                    {"pct", R2(c.pct)}});
  }
  json types = json::array();
  for (const KernelTypeTime& t : k.types) {
    types.push_back({{"type", t.type}, {"time_us", Us(t.time_ns)}, {"pct", R2(t.pct)}});
  }
  for (const KernelStat& s : k.top) {
    top.push_back({{"name", s.name},
                   {"category", s.category},
                   {"type", s.type},
                   {"count", s.count},
                   {"total_us", Us(s.total_ns)},
                   {"min_us", Us(s.min_ns)},
                   {"max_us", Us(s.max_ns)},
                   {"mean_us", Us(s.mean_ns)},
                   {"pct", R2(s.pct)}});
  }
  return {{"op_count", k.op_count},
          {"kernel_count", k.kernel_count},
          {"graph_launched_count", k.graph_launched_count},
          {"total_us", Us(k.total_ns)},
          {"categories", cats},
          {"kernel_types", types},
          {"top", top}};
}

json LaunchJson(const LaunchStats& l) {
  json queues = json::array();
  for (const StreamQueue& q : l.queues) {
    queues.push_back({{"device", q.device},
                      {"stream", q.stream},
                      {"max", q.max_queue},
                      {"mean", R2(q.mean_queue)}});
  }
  return {{"launches", l.launches},
          {"shorter_than_launch", l.shorter_than_launch},
          {"shorter_pct", R2(l.shorter_pct)},
          {"launch_mean_us", Us(l.launch_mean_ns)},
          {"launch_median_us", Us(l.launch_median_ns)},
          {"kernel_mean_us", Us(l.kernel_mean_ns)},
          {"kernel_median_us", Us(l.kernel_median_ns)},
          {"delay_p50_us", Us(l.delay_p50_ns)},
          {"delay_p95_us", Us(l.delay_p95_ns)},
          {"queues", queues}};
}

json CopiesJson(const CopyStats& c) {
  json dirs = json::array(), syncs = json::array();
  for (const CopyDirection& d : c.directions) {
    dirs.push_back({{"direction", d.direction},
                    {"count", d.count},
                    {"bytes", d.bytes},
                    {"time_us", Us(d.time_ns)},
                    {"gb_per_s", R2(d.gb_per_s)}});
  }
  for (const SyncKindStat& s : c.syncs) {
    syncs.push_back({{"kind", s.kind}, {"count", s.count}, {"time_us", Us(s.time_ns)}});
  }
  return {
      {"directions", dirs},
      {"pageable",
       {{"count", c.pageable_count}, {"bytes", c.pageable_bytes}, {"time_us", Us(c.pageable_ns)}}},
      {"copy_busy_us", Us(c.copy_busy_ns)},
      {"copy_busy_in_span_us", Us(c.copy_busy_in_span_ns)},
      {"host_copy_in_span_us", Us(c.host_copy_in_span_ns)},
      {"host_copy_exposed_in_span_us", Us(c.host_copy_exposed_in_span_ns)},
      {"blocking",
       {{"count", c.blocking_copies},
        {"host_us", Us(c.blocking_copy_ns)},
        {"host_in_span_us", Us(c.blocking_copy_in_span_ns)},
        {"longest_us", Us(c.blocking_copy_max_ns)},
        {"host_while_gpu_idle_in_span_us", Us(c.blocking_copy_idle_in_span_ns)},
        {"longest_while_gpu_idle_us", Us(c.blocking_copy_idle_max_ns)}}},
      {"dtoh_gpu_wait",
       {{"count", c.dtoh_gpu_waits},
        {"host_us", Us(c.dtoh_gpu_wait_ns)},
        {"longest_us", Us(c.dtoh_gpu_wait_max_ns)},
        {"longest_bytes", c.dtoh_gpu_wait_max_bytes},
        {"longest_call", c.dtoh_gpu_wait_call},
        {"longest_behind", c.dtoh_gpu_wait_behind}}},
      {"syncs", syncs},
      {"sync_us", Us(c.sync_ns)},
      {"sync_in_span_us", Us(c.sync_in_span_ns)},
      {"sync_while_gpu_idle_in_span_us", Us(c.sync_idle_in_span_ns)},
      {"scalar_reads", {{"count", c.scalar_reads}, {"sync_us", Us(c.scalar_read_ns)}}}};
}

// null for a normal trace; the roofline placement of a counter-mode trace's kernels.
json CountersJson(const CounterStats& c) {
  if (c.ranges == 0) return nullptr;
  auto opt = [](const std::optional<double>& v) { return v ? json(R2(*v)) : json(nullptr); };
  json kernels = json::array();
  for (const KernelCounterStat& k : c.top) {
    kernels.push_back({{"name", k.name},
                       {"ranges", k.ranges},
                       {"flops", k.flops},
                       {"flop_share_pct", R2(k.flop_share_pct)},
                       {"dram_bytes", k.dram_bytes ? json(*k.dram_bytes) : json(nullptr)},
                       {"flop_per_byte", opt(k.intensity)},
                       {"bound", k.bound ? json(BottleneckName(*k.bound)) : json(nullptr)}});
  }
  return {
      {"ranges", c.ranges},
      {"kernels", c.kernels},
      {"metrics", c.metrics},
      {"flops", c.has_flops
                    ? json({{"fp64", c.flops_fp64}, {"fp32", c.flops_fp32}, {"fp16", c.flops_fp16}})
                    : json(nullptr)},
      {"dram_bytes", c.has_dram ? json(c.dram_bytes) : json(nullptr)},
      {"gpu_name", c.gpu_name},
      {"gpu_spec", c.gpu_spec.empty() ? json(nullptr) : json(c.gpu_spec)},
      {"ridge_flop_per_byte",
       c.ridge_flop_per_byte > 0 ? json(R2(c.ridge_flop_per_byte)) : json(nullptr)},
      {"memory_bound_kernels", c.memory_bound_kernels},
      {"compute_bound_kernels", c.compute_bound_kernels},
      {"memory_bound_time_pct", opt(c.memory_bound_time_pct)},
      {"top_kernels", kernels}};
}

json StartupJson(const StartupStats& st) {
  json work = json::array();
  for (const StartupWork& w : st.work) {
    work.push_back({{"kind", w.kind}, {"count", w.count}, {"time_us", Us(w.time_ns)}});
  }
  return {{"detected", st.detected},
          {"window_us", Us(st.window_ns)},
          {"one_time_us", Us(st.one_time_ns)},
          {"share_pct", R2(st.share_pct)},
          {"work", work},
          {"steady_state", st.detected ? VerdictJson(st.steady) : json(nullptr)}};
}

json HostJson(const HostAttribution& h) {
  return {{"has_phases", h.has_phases},
          {"steps", h.steps},
          {"dataloader_step_pct", R2(h.dataloader_step_pct)},
          {"dataloader_max_step_pct", R2(h.dataloader_max_step_pct)},
          {"optimizer_step_pct", R2(h.optimizer_step_pct)},
          {"idle_us", Us(h.idle_ns)},
          {"idle_in_syncs_us", Us(h.sync_idle_ns)},
          {"idle_in_dataloader_us", Us(h.dataloader_idle_ns)},
          {"idle_in_optimizer_us", Us(h.optimizer_idle_ns)},
          {"idle_other_host_us", Us(h.other_idle_ns)}};
}

json CommKindsJson(const std::vector<CommKindTime>& kinds) {
  json out = json::array();
  for (const CommKindTime& k : kinds) {
    out.push_back({{"kind", k.kind}, {"count", k.count}, {"time_us", Us(k.time_ns)}});
  }
  return out;
}

json RankJson(const RankAnalysis& a) {
  json steps = json::array();
  for (const StepStat& s : a.steps) {
    steps.push_back({{"name", s.name},
                     {"start_us", Us(s.start_ns)},
                     {"duration_us", Us(s.dur_ns)},
                     {"gpu_busy_us", Us(s.gpu_busy_ns)},
                     {"busy_pct", R2(s.busy_pct)},
                     {"idle_pct", R2(s.idle_pct)}});
  }
  return {{"subject", a.subject},
          {"rank", a.rank},
          {"source", a.source},
          {"has_gpu_ops", a.has_gpu_ops},
          {"temporal_breakdown", TemporalJson(a.temporal)},
          {"idle_time_breakdown", IdleJson(a.idle)},
          {"gpu_idle_breakdown", StreamIdleJson(a.gpu_idle)},
          {"kernel_breakdown", KernelsJson(a.kernels)},
          {"launch", LaunchJson(a.launch)},
          {"copies", CopiesJson(a.copies)},
          {"comm_comp_overlap",
           {{"comm_us", Us(a.overlap.comm_ns)},
            {"overlapped_us", Us(a.overlap.overlapped_ns)},
            {"exposed_us", Us(a.overlap.exposed_ns)},
            {"overlap_pct", R2(a.overlap.overlap_pct)},
            {"kinds", CommKindsJson(a.overlap.kinds)}}},
          {"steps", steps},
          {"kernel_counters", CountersJson(a.counters)},
          {"startup", StartupJson(a.startup)},
          {"host_attribution", HostJson(a.host)},
          {"verdict", VerdictJson(a.verdict)}};
}

json CrossJson(const CrossRank& x) {
  json late = json::array();
  for (const RankLateness& l : x.lateness) {
    late.push_back(
        {{"rank", l.rank}, {"late_count", l.late_count}, {"mean_delay_us", Us(l.mean_delay_ns)}});
  }
  json dup = json::array();
  for (const auto& [rank, files] : x.duplicate_ranks) {
    dup.push_back({{"rank", rank}, {"files", files}});
  }
  json runs = json::array();
  for (const TraceRun& r : x.runs) {
    runs.push_back({{"world_size", r.world_size},
                    {"device", r.device},
                    {"ranks", r.ranks},
                    {"files", r.sources.size()},
                    {"steps", r.steps},
                    {"mean_step_us", Us(r.mean_step_ns)}});
  }
  return {{"world_size", x.world_size},
          {"ranks_present", x.ranks_present},
          {"duplicate_ranks", dup},
          {"missing_ranks", x.missing_ranks},
          {"collective", x.collective},
          {"steps_compared", x.steps_compared},
          {"lateness", late},
          {"stragglers", x.stragglers},
          {"runs", runs},
          {"clocks_disagree", x.clocks_disagree}};
}

}  // namespace

std::string RenderTraceJson(const TraceReport& report) {
  json j;
  j["schema"] = kTraceSchema;
  json inputs = json::array(), ranks = json::array(), findings = json::array();
  for (const RankAnalysis& a : report.ranks) {
    inputs.push_back(InputJson(a));
    ranks.push_back(RankJson(a));
  }
  std::map<std::string, int> counts = {
      {"ok", 0}, {"info", 0}, {"warn", 0}, {"unknown", 0}, {"fail", 0}};
  for (const Finding& f : report.findings) {
    findings.push_back(FindingToJson(f));
    ++counts[std::string(SeverityName(f.severity))];
  }
  j["inputs"] = inputs;
  j["ranks"] = ranks;
  j["cross_rank"] = CrossJson(report.cross);
  j["findings"] = findings;
  json verdict = VerdictJson(report.verdict);
  verdict["severity"] = std::string(SeverityName(report.worst));
  verdict["counts"] = counts;
  j["verdict"] = verdict;
  if (!report.forecasts.empty()) {
    json forecasts = json::array();
    for (const UpgradeForecast& f : report.forecasts) forecasts.push_back(ForecastToJson(f));
    j["forecasts"] = forecasts;
  }
  // Kernel names come from the trace: replace invalid UTF-8 instead of throwing.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace gpuvet
