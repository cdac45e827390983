// Trace comparison to JSON.
#include "output/json/trace_compare_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/bottleneck.h"

namespace gpuvet {

namespace {

using nlohmann::json;

double Us(double ns) { return std::round(ns) / 1000.0; }
double R2(double v) { return std::round(v * 100.0) / 100.0; }

json RunJson(const CompareRun& r) {
  return {{"sources", r.sources},
          {"problems", r.problems},
          {"ranks", r.ranks},
          {"world_size", r.world_size},
          {"device_type", r.device_type},
          {"gpu_name", r.gpu_name},
          {"steps", R2(r.steps)},
          {"has_steps", r.has_steps},
          {"host_step_us", Us(r.host_step_ns)},
          {"step_us", Us(r.step_ns)},
          {"gpu_behind", r.gpu_behind},
          {"ops_per_step", R2(r.kernels_per_step)},
          {"verdict", BottleneckName(r.verdict)},
          {"startup_pct", R2(r.startup_pct)}};
}

json RowJson(const CompareRow& r, bool with_bytes = false) {
  json j = {{"name", r.name},
            {"a_us", Us(r.a_ns)},
            {"b_us", Us(r.b_ns)},
            {"delta_us", Us(r.delta_ns)},
            {"share_pct", R2(r.share_pct)}};
  if (with_bytes) {
    j["a_bytes"] = std::round(r.a_bytes);
    j["b_bytes"] = std::round(r.b_bytes);
    j["a_count"] = R2(r.a_count);
    j["b_count"] = R2(r.b_count);
  }
  return j;
}

json Rows(const std::vector<CompareRow>& rows, bool with_bytes = false) {
  json out = json::array();
  for (const CompareRow& r : rows) out.push_back(RowJson(r, with_bytes));
  return out;
}

json KernelJson(const CompareKernel& k) {
  return {{"key", k.key},
          {"name_a", k.name_a},
          {"name_b", k.name_b},
          {"category", k.category},
          {"match", k.match},
          {"a_us", Us(k.a_ns)},
          {"b_us", Us(k.b_ns)},
          {"delta_us", Us(k.delta_ns)},
          {"share_pct", R2(k.share_pct)},
          {"a_count", R2(k.a_count)},
          {"b_count", R2(k.b_count)}};
}

json Kernels(const std::vector<CompareKernel>& ks) {
  json out = json::array();
  for (const CompareKernel& k : ks) out.push_back(KernelJson(k));
  return out;
}

}  // namespace

std::string RenderTraceCompareJson(const TraceComparison& c) {
  json j;
  j["schema"] = kTraceCompareSchema;
  j["unit"] = c.unit;
  j["a"] = RunJson(c.a);
  j["b"] = RunJson(c.b);
  j["delta_us"] = Us(c.delta_ns);
  j["change_pct"] = R2(c.change_pct);
  j["comparable"] = c.comparable;
  j["reason"] = c.reason;
  j["temporal"] = Rows(c.temporal);
  j["idle"] = Rows(c.idle);
  j["host_idle"] = Rows(c.host);
  j["categories"] = Rows(c.categories, true);
  j["copies"] = Rows(c.copies, true);
  j["syncs"] = Rows(c.syncs, true);
  j["communication"] = {{"all", RowJson(c.comm)}, {"exposed", RowJson(c.comm_exposed)}};
  j["kernels"] = {{"changed", Kernels(c.changed)}, {"added", Kernels(c.added)},
                  {"removed", Kernels(c.removed)}, {"matched", c.kernels_matched},
                  {"a_only", c.kernels_a_only},    {"b_only", c.kernels_b_only}};
  j["causes"] = c.causes;
  j["answer"] = c.answer;
  // Kernel names and paths come from the input: replace invalid UTF-8 instead of throwing.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace gpuvet
