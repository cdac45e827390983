// The trace comparison's HTML section (output/html/html_trace_compare.h).
#include "output/html/html_trace_compare.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gpuvet::html {
namespace {

CompareRunView ReadRun(DocReader& r, const Node& n) {
  CompareRunView v;
  v.sources = r.StrArr(n, "sources");
  v.problems = r.StrArr(n, "problems");
  v.ranks = r.Int(n, "ranks");
  v.world_size = r.Int(n, "world_size");
  v.device_type = r.Str(n, "device_type");
  v.gpu_name = r.Str(n, "gpu_name");
  v.verdict = r.Str(n, "verdict");
  v.steps = r.Num(n, "steps");
  v.has_steps = r.Bool(n, "has_steps");
  v.host_step_us = r.Num(n, "host_step_us");
  v.step_us = r.Num(n, "step_us");
  v.gpu_behind = r.Bool(n, "gpu_behind");
  v.ops_per_step = r.Num(n, "ops_per_step");
  v.startup_pct = r.Num(n, "startup_pct");
  return v;
}

CompareRowView ReadRow(DocReader& r, const Node& n, bool counts) {
  CompareRowView v;
  v.name = r.Str(n, "name");
  v.a_us = r.Num(n, "a_us");
  v.b_us = r.Num(n, "b_us");
  v.delta_us = r.Num(n, "delta_us");
  v.share_pct = r.Num(n, "share_pct");
  if (counts) {
    v.has_counts = true;
    v.a_bytes = r.Num(n, "a_bytes");
    v.b_bytes = r.Num(n, "b_bytes");
    v.a_count = r.Num(n, "a_count");
    v.b_count = r.Num(n, "b_count");
  }
  return v;
}

std::vector<CompareRowView> ReadRows(DocReader& r, const Node& n, const char* key, bool counts) {
  std::vector<CompareRowView> out;
  for (const Node& row : r.Arr(n, key)) {
    out.push_back(ReadRow(r, row, counts));
    if (!r.ok()) break;
  }
  return out;
}

std::vector<CompareKernelView> ReadKernels(DocReader& r, const Node& n, const char* key) {
  std::vector<CompareKernelView> out;
  for (const Node& k : r.Arr(n, key)) {
    CompareKernelView v;
    v.name_a = r.Str(k, "name_a");
    v.name_b = r.Str(k, "name_b");
    v.category = r.Str(k, "category");
    v.match = r.Str(k, "match");
    v.a_us = r.Num(k, "a_us");
    v.b_us = r.Num(k, "b_us");
    v.delta_us = r.Num(k, "delta_us");
    v.share_pct = r.Num(k, "share_pct");
    v.a_count = r.Num(k, "a_count");
    v.b_count = r.Num(k, "b_count");
    out.push_back(std::move(v));
    if (!r.ok()) break;
  }
  return out;
}

// B − A with its sign ("+3000", "-40", "0").
std::string Delta(double us) {
  if (std::round(us * 100) == 0) return "0";
  return (us > 0 ? "+" : "-") + Num(std::fabs(us));
}

// B − A as a duration with its unit ("+3.00 ms", "-40 µs").
std::string DeltaTime(double us) {
  if (std::fabs(us) < 1000) return Delta(us) + " µs";
  return (us > 0 ? "+" : "-") + Fixed(std::fabs(us) / 1000, 2) + " ms";
}

std::string Where(const CompareRunView& r) {
  if (r.sources.size() == 1) return r.sources.front();
  return std::to_string(r.sources.size()) + " files";
}

std::vector<std::string> RowCells(const CompareRowView& r, const std::string& prefix = "") {
  return {prefix + r.name, Num(r.a_us), Num(r.b_us), Delta(r.delta_us), Num(r.share_pct)};
}

const std::vector<std::string>& RowHeader(const std::string& unit) {
  static const std::vector<std::string> step = {"per step", "A µs", "B µs", "B − A µs",
                                                "share of the change %"};
  static const std::vector<std::string> window = {"per window", "A µs", "B µs", "B − A µs",
                                                  "share of the change %"};
  return unit == "window" ? window : step;
}

// A run's step drawn as computation, non-computation and idle (in and outside the GPU span).
StackedRow StepRow(const char* label, const TraceCompareView& v, bool b) {
  StackedRow row{label, {}};
  for (const CompareRowView& t : v.temporal) {
    if (t.name == "idle") continue;
    row.values.push_back(std::max(0.0, b ? t.b_us : t.a_us));
  }
  for (const CompareRowView& i : v.idle) row.values.push_back(std::max(0.0, b ? i.b_us : i.a_us));
  return row;
}

std::string KernelName(const CompareKernelView& k) {
  return k.name_a.empty() ? k.name_b : k.name_a;
}

}  // namespace

Result<TraceCompareView> ReadTraceCompareView(const nlohmann::json& doc, const std::string& what) {
  DocReader r(what);
  Node root{&doc, ""};
  TraceCompareView v;
  v.unit = r.Str(root, "unit");
  if (r.ok() && v.unit != "step" && v.unit != "window") {
    r.Fail(Node{&doc.at("unit"), "unit"}, "must be \"step\" or \"window\", not \"" + v.unit + "\"");
  }
  v.a = ReadRun(r, r.Obj(root, "a"));
  v.b = ReadRun(r, r.Obj(root, "b"));
  v.delta_us = r.Num(root, "delta_us");
  v.change_pct = r.Num(root, "change_pct");
  v.comparable = r.Bool(root, "comparable");
  v.reason = r.Str(root, "reason");
  v.answer = r.Str(root, "answer");
  v.temporal = ReadRows(r, root, "temporal", false);
  v.idle = ReadRows(r, root, "idle", false);
  v.host_idle = ReadRows(r, root, "host_idle", false);
  v.categories = ReadRows(r, root, "categories", true);
  v.copies = ReadRows(r, root, "copies", true);
  v.syncs = ReadRows(r, root, "syncs", true);
  Node comm = r.Obj(root, "communication");
  v.comm = ReadRow(r, r.Obj(comm, "all"), false);
  v.comm_exposed = ReadRow(r, r.Obj(comm, "exposed"), false);
  Node kernels = r.Obj(root, "kernels");
  v.changed = ReadKernels(r, kernels, "changed");
  v.added = ReadKernels(r, kernels, "added");
  v.removed = ReadKernels(r, kernels, "removed");
  v.matched = r.Int(kernels, "matched");
  v.a_only = r.Int(kernels, "a_only");
  v.b_only = r.Int(kernels, "b_only");
  v.causes = r.StrArr(root, "causes");
  if (!r.ok()) return r.status();
  return v;
}

Section TraceCompareSection(const TraceCompareView& v, const std::string& id) {
  Section s;
  s.id = id;
  s.kind = "trace-compare";
  s.title = "Trace comparison: A against B";
  s.source = Where(v.a) + " against " + Where(v.b);
  Verdict& vd = s.verdict;
  vd.severity = v.comparable ? "info" : "unknown";
  const std::string per = v.unit == "window" ? "per window" : "per step";
  if (!v.comparable) {
    vd.headline = "trace compare: not comparable (" + v.reason + ")";
  } else if (std::fabs(v.change_pct) < 2) {
    vd.headline =
        "trace compare: A and B take the same time " + per + " (" + Delta(v.change_pct) + " %)";
  } else {
    vd.headline = "trace compare: B is " + Num(std::round(std::fabs(v.change_pct))) + " % " +
                  (v.delta_us > 0 ? "slower " : "faster ") + per + " (" + DeltaTime(v.delta_us) +
                  ")";
  }
  vd.job_sentence = v.answer;
  vd.job_action =
      v.comparable
          ? "Fix the part of the step that moved most, then compare again on the same node."
          : "Profile both runs with GPU work (CUDA activities on) over the same steps.";
  const bool other_gpu =
      v.a.gpu_name != v.b.gpu_name && !v.a.gpu_name.empty() && !v.b.gpu_name.empty();
  vd.node_sentence = other_gpu
                         ? "The runs used different GPUs (" + v.a.gpu_name + " against " +
                               v.b.gpu_name + "): part of the difference is the hardware."
                         : "A comparison of two runs says nothing of a node's health on its own.";
  vd.node_action =
      "If B ran on another node and its kernels are slower with the same code, run `gpuvet "
      "check` and `gpuvet bench` there.";

  std::string& b = s.body;
  std::vector<std::vector<std::string>> runs;
  for (const auto& [label, r] : {std::pair{"A", &v.a}, std::pair{"B", &v.b}}) {
    runs.push_back({label, Where(*r), std::to_string(r->ranks),
                    r->gpu_name.empty() ? "not named" : r->gpu_name,
                    r->has_steps ? Num(r->steps) : "no ProfilerSteps", Num(r->step_us),
                    Num(r->ops_per_step), Num(r->startup_pct), r->verdict});
  }
  b += Table(id + "-runs",
             {"run", "traces", "ranks", "GPU", "steps per rank", per + " µs", "GPU ops " + per,
              "start-up %", "verdict"},
             runs);
  if (!v.comparable) {
    b += "<p><strong>Not comparable:</strong> " + Esc(v.reason) +
         ". The side-by-side figures below are not attributed.</p>\n";
  }
  if (v.unit == "window") {
    b += "<p class=\"meta\">Without ProfilerSteps in both runs each trace's window is compared "
         "whole: this holds only if both windows hold the same work.</p>\n";
  }

  // The step: what it is made of in A and in B, and the parts of the difference.
  StackedBarSpec step{
      id + "-step", std::string("The ") + (v.unit == "window" ? "window" : "step") + " of A and B",
      "µs",         {},
      {},           {},
      false};
  const size_t colors[] = {0, 1, 5, 6, 7, 3};
  for (const CompareRowView& t : v.temporal) {
    if (t.name != "idle") step.categories.push_back(t.name);
  }
  for (const CompareRowView& i : v.idle) step.categories.push_back("idle: " + i.name);
  for (size_t i = 0; i < step.categories.size(); ++i) step.colors.push_back(colors[i % 6]);
  step.rows = {StepRow("A", v, false), StepRow("B", v, true)};
  b += "<h3>Where the difference is</h3>\n" + StackedBars(step);
  std::vector<std::vector<std::string>> parts;
  parts.push_back({v.unit == "window" ? "GPU span" : "step", Num(v.a.step_us), Num(v.b.step_us),
                   Delta(v.delta_us), v.delta_us != 0 ? "100" : "0"});
  for (const CompareRowView& t : v.temporal) {
    parts.push_back(RowCells(t));
    if (t.name != "idle") continue;
    for (const CompareRowView& i : v.idle) parts.push_back(RowCells(i, "idle: "));
  }
  if (v.a.gpu_behind || v.b.gpu_behind) {
    parts.push_back({"host step (ProfilerStep)", Num(v.a.host_step_us), Num(v.b.host_step_us),
                     Delta(v.b.host_step_us - v.a.host_step_us), ""});
  }
  b += Table(id + "-parts", RowHeader(v.unit), parts);
  if (!v.host_idle.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const CompareRowView& r : v.host_idle) rows.push_back(RowCells(r));
    b += "<h3>GPU idle in the span, by who held the host</h3>\n" +
         Table(id + "-host-idle", RowHeader(v.unit), rows);
  }
  auto counted = [&](const std::vector<CompareRowView>& rows, const std::string& table_id,
                     const std::string& title, bool bytes) {
    if (rows.empty()) return;
    std::vector<std::vector<std::string>> cells;
    for (const CompareRowView& r : rows) {
      std::vector<std::string> c = RowCells(r);
      if (bytes) {
        c.push_back(Bytes(r.a_bytes));
        c.push_back(Bytes(r.b_bytes));
      }
      c.push_back(Num(r.a_count));
      c.push_back(Num(r.b_count));
      cells.push_back(std::move(c));
    }
    std::vector<std::string> header = RowHeader(v.unit);
    if (bytes) {
      header.push_back("A bytes");
      header.push_back("B bytes");
    }
    header.push_back("A count");
    header.push_back("B count");
    b += "<h3>" + Esc(title) + "</h3>\n" + Table(table_id, header, cells);
  };
  counted(v.categories, id + "-categories", "Kernel time by class (summed over streams)", false);
  counted(v.copies, id + "-copies", "Copies", true);
  counted(v.syncs, id + "-syncs", "Host synchronisation (host time, not GPU time)", false);
  if (v.comm.a_us > 0 || v.comm.b_us > 0) {
    b += "<h3>Communication</h3>\n" + Table(id + "-communication", RowHeader(v.unit),
                                            {RowCells(v.comm), RowCells(v.comm_exposed)});
  }

  b += "<h3>Kernels</h3>\n<p class=\"meta\">" + std::to_string(v.matched) + " matched by name, " +
       std::to_string(v.a_only) + " in A only, " + std::to_string(v.b_only) + " in B only</p>\n";
  if (!v.changed.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const CompareKernelView& k : v.changed) {
      std::string name = KernelName(k);
      if (k.match == "family") name += " (in B: " + k.name_b + ")";
      rows.push_back({name, k.category, Num(k.a_us), Num(k.a_count), Num(k.b_us), Num(k.b_count),
                      Delta(k.delta_us), Num(k.share_pct)});
    }
    b += Table(id + "-kernels-changed",
               {"kernel (as A names it)", "class", "A µs", "A count", "B µs", "B count", "B − A µs",
                "share of the change %"},
               rows);
  }
  auto one_sided = [&](const std::vector<CompareKernelView>& ks, bool in_b, int total) {
    if (ks.empty()) return;
    std::vector<std::vector<std::string>> rows;
    for (const CompareKernelView& k : ks) {
      rows.push_back({KernelName(k), k.category, Num(in_b ? k.b_us : k.a_us),
                      Num(in_b ? k.b_count : k.a_count)});
    }
    b += "<h4>" + std::string(in_b ? "New in B (" : "Gone from B (") + std::to_string(total) +
         ")</h4>\n" +
         Table(id + (in_b ? "-kernels-added" : "-kernels-removed"),
               {"kernel", "class", in_b ? "B µs" : "A µs", in_b ? "B count" : "A count"}, rows);
  };
  one_sided(v.added, true, v.b_only);
  one_sided(v.removed, false, v.a_only);
  if (!v.causes.empty()) {
    b += "<h3>Likely causes besides the kernels</h3>\n<ul id=\"" + Esc(id) + "-causes\">";
    for (const std::string& c : v.causes) b += "<li>" + Esc(c) + "</li>";
    b += "</ul>\n";
  }
  for (const auto& [label, r] : {std::pair{"A", &v.a}, std::pair{"B", &v.b}}) {
    for (const std::string& p : r->problems) {
      b += "<p class=\"meta\">" + std::string(label) +
           ": skipped a file that could not be read: " + Esc(p) + "</p>\n";
    }
  }
  return s;
}

}  // namespace gpuvet::html
