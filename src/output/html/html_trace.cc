// The trace report's HTML section (output/html/html_trace.h).
#include "output/html/html_trace.h"

#include <algorithm>
#include <map>

namespace gpuvet::html {

Result<TraceView> ReadTraceView(const nlohmann::json& doc, const std::string& what) {
  DocReader r(what);
  Node root{&doc, ""};
  TraceView v;
  for (const Node& in : r.Arr(root, "inputs")) v.sources.push_back(r.Str(in, "source"));
  for (const Node& n : r.Arr(root, "ranks")) {
    TraceRankView rk;
    rk.rank = r.Int(n, "rank");
    rk.subject = r.Str(n, "subject");
    rk.source = r.OptStr(n, "source").value_or("");
    rk.has_gpu_ops = r.Bool(n, "has_gpu_ops");
    Node tb = r.Obj(n, "temporal_breakdown");
    rk.span_us = r.Num(tb, "span_us");
    rk.compute_us = r.Num(tb, "compute_us");
    rk.non_compute_us = r.Num(tb, "non_compute_us");
    rk.idle_us = r.Num(tb, "idle_us");
    rk.compute_pct = r.Num(tb, "compute_pct");
    rk.non_compute_pct = r.Num(tb, "non_compute_pct");
    rk.idle_pct = r.Num(tb, "idle_pct");
    if (std::optional<Node> ib = r.OptObj(n, "gpu_idle_breakdown")) {
      rk.host_wait_us = r.Num(*ib, "host_wait_us");
      rk.kernel_wait_us = r.Num(*ib, "kernel_wait_us");
      rk.other_idle_us = r.Num(*ib, "other_us");
    }
    for (const Node& st : r.OptArr(n, "steps")) {
      rk.steps.push_back({r.Str(st, "name"), r.Num(st, "duration_us"), r.Num(st, "gpu_busy_us")});
    }
    if (std::optional<Node> kb = r.OptObj(n, "kernel_breakdown")) {
      for (const Node& c : r.Arr(*kb, "categories")) {
        rk.categories.push_back(
            {r.Str(c, "category"), r.Num(c, "time_us"), r.Num(c, "pct"), r.Int(c, "count")});
      }
      for (const Node& k : r.Arr(*kb, "top")) {
        rk.top.push_back({r.Str(k, "name"), r.Str(k, "category"), r.Num(k, "total_us"),
                          r.Num(k, "pct"), r.Int(k, "count")});
      }
    }
    if (std::optional<Node> ov = r.OptObj(n, "comm_comp_overlap")) {
      rk.comm_us = r.Num(*ov, "comm_us");
      rk.overlapped_us = r.Num(*ov, "overlapped_us");
      rk.exposed_us = r.Num(*ov, "exposed_us");
      rk.overlap_pct = r.Num(*ov, "overlap_pct");
    }
    Node vd = r.Obj(n, "verdict");
    rk.label = r.Str(vd, "label");
    rk.reason = r.Str(vd, "reason");
    rk.confidence = r.Str(vd, "confidence");
    rk.share_pct = r.Num(vd, "share_pct");
    v.ranks.push_back(std::move(rk));
    if (!r.ok()) break;
  }
  if (std::optional<Node> cr = r.OptObj(root, "cross_rank")) {
    for (double s : r.NumArr(*cr, "stragglers")) v.stragglers.push_back(static_cast<int>(s));
    for (const Node& l : r.OptArr(*cr, "lateness")) {
      v.lateness.push_back({r.Int(l, "rank"), r.Int(l, "late_count"), r.Num(l, "mean_delay_us")});
    }
    v.collective = r.OptStr(*cr, "collective").value_or("");
  }
  v.findings = ReadFindings(r, root, "findings");
  Node vd = r.Obj(root, "verdict");
  v.label = r.Str(vd, "label");
  v.reason = r.Str(vd, "reason");
  v.confidence = r.Str(vd, "confidence");
  v.severity = r.Severity(vd, "severity");
  v.share_of = r.OptStr(vd, "share_of").value_or("");
  v.share_pct = r.Num(vd, "share_pct");
  v.counts = ReadCounts(r, vd, "counts");
  for (const Node& f : r.OptArr(root, "forecasts")) v.forecasts.push_back(ReadForecastView(r, f));
  if (std::optional<Node> c = r.OptObj(root, "compare")) v.compare = *c->json;
  if (!r.ok()) return r.status();
  return v;
}

namespace {

std::string RankLabel(const TraceRankView& r) { return "rank " + std::to_string(r.rank); }

// The verdict box: the run's label and decision; the node's part is the stragglers.
void FillTraceVerdict(const TraceView& v, Verdict& vd) {
  vd.severity = v.severity;
  vd.headline = "trace: " + v.label + " (" + Num(v.share_pct) + " % of the " +
                (v.share_of == "gpu_span" ? "GPU span" : v.share_of) + ", confidence " +
                v.confidence + ")";
  const FindingView* decision = nullptr;
  for (const FindingView& f : v.findings) {
    if (f.id == "trace." + v.label) decision = &f;
  }
  vd.job_sentence = v.reason.empty() ? "No bottleneck stands out." : v.reason + ".";
  // The run-level reason of a multi-rank trace counts ranks; the evidence is the worst rank's.
  const TraceRankView* worst_rank = nullptr;
  for (const TraceRankView& r : v.ranks) {
    if (r.label == v.label && (!worst_rank || r.share_pct > worst_rank->share_pct)) worst_rank = &r;
  }
  if (v.ranks.size() > 1 && worst_rank) {
    vd.job_sentence = "Ranks: " + v.reason + "; worst, rank " + std::to_string(worst_rank->rank) +
                      " (" + Num(worst_rank->share_pct) + " %): " + worst_rank->reason + ".";
  }
  vd.job_action = decision ? decision->decision : "";
  if (!v.stragglers.empty()) {
    std::string ranks;
    for (int r : v.stragglers) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    double delay = 0;
    for (const TraceLatenessView& l : v.lateness) {
      if (std::find(v.stragglers.begin(), v.stragglers.end(), l.rank) != v.stragglers.end()) {
        delay = std::max(delay, l.mean_delay_us);
      }
    }
    vd.node_sentence = "Rank " + ranks + " reaches the collectives late (mean " + Num(delay) +
                       " µs): the others wait for it.";
    vd.node_action = "Run `gpuvet check` and `gpuvet bench` on the node and GPU of that rank.";
  } else if (v.ranks.size() > 1) {
    vd.node_sentence =
        "No rank lags the others: nothing in the trace points at a sick node or GPU.";
    vd.node_action = "Nothing for the node.";
  } else {
    vd.node_sentence = "One rank: a trace alone cannot tell a sick node from a slow job.";
    vd.node_action = "If the job is slower than on other nodes, run `gpuvet check` there.";
  }
}

// Where the GPU time goes, per rank: the temporal breakdown and its table, idle time by cause,
// kernel time by class and the top kernels. Fills `ov`, the communication chart drawn later.
std::string TimeBreakdownHtml(const TraceView& v, const std::string& id, StackedBarSpec& ov) {
  std::string b;
  StackedBarSpec tb{id + "-temporal",
                    "Temporal breakdown per rank (HTA)",
                    "µs",
                    {"compute", "non-compute", "idle"},
                    {0, 1, 7},
                    {},
                    false};
  StackedBarSpec ib{id + "-idle", "GPU idle time per rank, by cause",
                    "µs",         {"host wait", "kernel wait", "other"},
                    {5, 1, 7},    {},
                    false};
  std::vector<std::string> cats;
  for (const TraceRankView& r : v.ranks) {
    tb.rows.push_back({RankLabel(r), {r.compute_us, r.non_compute_us, r.idle_us}});
    ib.rows.push_back({RankLabel(r), {r.host_wait_us, r.kernel_wait_us, r.other_idle_us}});
    if (r.comm_us > 0) ov.rows.push_back({RankLabel(r), {r.overlapped_us, r.exposed_us}});
    for (const TraceCategoryView& c : r.categories) {
      if (std::find(cats.begin(), cats.end(), c.category) == cats.end()) cats.push_back(c.category);
    }
  }
  b += "<h3>Where the GPU time goes</h3>\n" + StackedBars(tb);
  std::vector<std::vector<std::string>> rows;
  for (const TraceRankView& r : v.ranks) {
    rows.push_back({RankLabel(r), Num(r.span_us), Num(r.compute_pct), Num(r.non_compute_pct),
                    Num(r.idle_pct), r.label, Num(r.share_pct), r.confidence});
  }
  b += Table(id + "-ranks",
             {"rank", "span µs", "compute %", "non-compute %", "idle %", "verdict", "share %",
              "confidence"},
             rows);
  b += StackedBars(ib);
  // Kernel time by class.
  StackedBarSpec kc{
      id + "-kernel-classes", "Kernel time by class, per rank", "µs", cats, {}, {}, false};
  for (size_t i = 0; i < cats.size(); ++i) kc.colors.push_back(i);
  for (const TraceRankView& r : v.ranks) {
    StackedRow row{RankLabel(r), std::vector<double>(cats.size(), 0)};
    for (const TraceCategoryView& c : r.categories) {
      row.values[std::find(cats.begin(), cats.end(), c.category) - cats.begin()] = c.time_us;
    }
    kc.rows.push_back(std::move(row));
  }
  if (!cats.empty()) b += "<h3>Kernels</h3>\n" + StackedBars(kc);
  std::vector<std::vector<std::string>> top;
  for (const TraceRankView& r : v.ranks) {
    for (const TraceKernelView& k : r.top) {
      top.push_back(
          {RankLabel(r), k.category, k.name, Num(k.total_us), Num(k.pct), std::to_string(k.count)});
    }
  }
  if (!top.empty()) {
    b += Table(id + "-top-kernels",
               {"rank", "class", "kernel", "total µs", "% of kernel time", "count"}, top);
  }
  return b;
}

// Each rank's steps (its first 60): GPU busy and idle.
std::string StepsHtml(const TraceView& v, const std::string& id) {
  std::string b;
  for (const TraceRankView& r : v.ranks) {
    if (r.steps.empty()) continue;
    StackedBarSpec st{id + "-steps-r" + std::to_string(r.rank),
                      "Steps of rank " + std::to_string(r.rank) + ": GPU busy and idle",
                      "µs",
                      {"GPU busy", "GPU idle"},
                      {0, 7},
                      {},
                      false};
    for (size_t i = 0; i < r.steps.size() && i < 60; ++i) {
      const TraceStepView& step = r.steps[i];
      st.rows.push_back(
          {step.name, {step.gpu_busy_us, std::max(0.0, step.duration_us - step.gpu_busy_us)}});
    }
    b += StackedBars(st);
    if (r.steps.size() > 60) {
      b += "<p class=\"meta\">" + std::to_string(r.steps.size() - 60) +
           " more steps not drawn.</p>\n";
    }
  }
  return b;
}

// The ranks that reach the collectives late.
std::string StragglersHtml(const TraceView& v, const std::string& id) {
  std::string b;
  if (!v.lateness.empty()) {
    std::vector<std::vector<std::string>> late;
    for (const TraceLatenessView& l : v.lateness) {
      bool straggler =
          std::find(v.stragglers.begin(), v.stragglers.end(), l.rank) != v.stragglers.end();
      late.push_back({"rank " + std::to_string(l.rank), std::to_string(l.late_count),
                      Num(l.mean_delay_us), straggler ? "straggler" : ""});
    }
    b += "<h3>Stragglers</h3>\n<p class=\"meta\">collective: " + Esc(v.collective) + "</p>\n" +
         Table(id + "-stragglers", {"rank", "late arrivals", "mean delay µs", ""}, late);
  }
  return b;
}

std::string ForecastsHtml(const TraceView& v, const std::string& id) {
  std::string b;
  if (!v.forecasts.empty()) {
    b += "<div id=\"" + Esc(id) + "-forecast\">\n<h3>Would a bigger GPU help?</h3>\n";
    for (size_t i = 0; i < v.forecasts.size(); ++i) {
      const ForecastView& f = v.forecasts[i];
      if (v.forecasts.size() > 1 && !f.subject.empty()) b += "<h4>" + Esc(f.subject) + "</h4>\n";
      b += ForecastHtml(f, id + "-forecast-" + std::to_string(i));
    }
    b += "</div>\n";
  }
  return b;
}

std::string FindingsHtml(const TraceView& v, const std::string& id) {
  std::string b;
  b += "<h3>Findings</h3>\n";
  std::vector<std::string> groups;
  std::vector<FindingBlock> blocks;
  for (const FindingView& f : v.findings) {
    groups.push_back(f.subject);
    blocks.push_back(ToBlock(f));
  }
  b += FindingGroups(id + "-findings", groups, blocks);
  return b;
}

}  // namespace

Section TraceSection(const TraceView& v, const std::string& id) {
  Section s;
  s.id = id;
  s.kind = "trace";
  s.title = "Profiler trace (" + std::to_string(v.ranks.size()) + " rank" +
            (v.ranks.size() == 1 ? "" : "s") + ")";
  FillTraceVerdict(v, s.verdict);
  std::string& b = s.body;
  b += "<p class=\"meta\">inputs: ";
  for (size_t i = 0; i < v.sources.size(); ++i) b += (i ? ", " : "") + Esc(v.sources[i]);
  b += " · " + Esc(CountsText(v.counts)) + "</p>\n";
  StackedBarSpec ov{id + "-overlap",
                    "Communication overlapped by compute, per rank",
                    "µs",
                    {"overlapped", "exposed"},
                    {2, 5},
                    {},
                    false};
  b += TimeBreakdownHtml(v, id, ov);
  b += StepsHtml(v, id);
  if (!ov.rows.empty()) {
    b += "<h3>Communication and compute</h3>\n" + StackedBars(ov);
  }
  b += StragglersHtml(v, id);
  b += ForecastsHtml(v, id);
  if (v.compare) b += TraceCompareHtml(*v.compare, id + "-compare");
  b += FindingsHtml(v, id);
  return s;
}

}  // namespace gpuvet::html
