// The analyze report's HTML section, with the recording timeline (output/html/html_analyze.h).
#include "output/html/html_analyze.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>

#include "core/bottleneck.h"
#include "core/finding.h"

namespace gpuvet::html {
namespace {

// "2026-06-01 12:00:00 UTC" for a Unix time.
std::string UtcClock(double unix_s) {
  std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

LabelView ReadLabel(DocReader& r, const Node& n) {
  LabelView l;
  l.label = r.Str(n, "label");
  l.detail = r.Str(n, "detail");
  l.confidence = r.Str(n, "confidence");
  l.reason = r.Str(n, "reason");
  l.decision = r.Str(n, "decision");
  // The label's severity (core/bottleneck); a document written before it carried one takes it from
  // this build's table.
  l.severity = r.OptStr(n, "severity").value_or(std::string(SeverityName(LabelSeverity(l.Name()))));
  l.seconds = r.Num(n, "seconds");
  l.share_pct = r.Num(n, "share_pct");
  for (const Node& e : r.Arr(n, "evidence")) {
    l.evidence.push_back(
        {r.Str(e, "name"), r.Str(e, "value"), r.OptStr(e, "threshold").value_or("")});
  }
  return l;
}

// The time axis: seconds for short runs, minutes, hours for long ones.
struct Axis {
  std::string unit;
  double div = 1;
};
Axis AxisFor(double duration_s) {
  if (duration_s > 3 * 3600) return {"h", 3600};
  if (duration_s > 30 * 60) return {"min", 60};
  return {"s", 1};
}

// A stable colour per label (core/bottleneck's chart column), one colour on every chart.
size_t LabelColor(const std::string& label) { return static_cast<size_t>(LabelChartColour(label)); }

}  // namespace

Result<AnalyzeView> ReadAnalyzeView(const nlohmann::json& doc, const std::string& what) {
  DocReader r(what);
  Node root{&doc, ""};
  AnalyzeView v;
  v.generated_at = r.Str(root, "generated_at");
  v.source = r.Str(root, "source");
  Node rec = r.Obj(root, "recording");
  v.host = r.OptStr(rec, "host").value_or("");
  v.producer = r.OptStr(rec, "producer").value_or("");
  v.command = r.StrArr(rec, "command");
  v.gpus = r.StrArr(rec, "gpus");
  for (double g : r.NumArr(rec, "workload_gpus")) v.workload_gpus.push_back(static_cast<int>(g));
  v.duration_s = r.Num(rec, "duration_s");
  v.interval_s = r.Num(rec, "interval_s");
  v.samples = r.Num(rec, "samples");
  v.exit_code = r.OptNum(rec, "exit_code");
  v.complete = r.Bool(rec, "complete");
  v.gpm = r.Bool(rec, "gpm");
  v.warnings = r.StrArr(root, "warnings");
  v.start_unix_s = r.OptNum(rec, "start_unix_s");
  for (const Node& n : r.OptArr(root, "not_recorded")) {
    if (n.json->is_string()) v.not_recorded.push_back(n.json->get<std::string>());
  }
  for (const Node& p : r.Arr(root, "phases")) {
    PhaseView ph;
    ph.start_s = r.Num(p, "start_s");
    ph.end_s = r.Num(p, "end_s");
    ph.activity_metric = r.Str(p, "activity_metric");
    ph.gpu_activity_pct = r.Num(p, "gpu_activity_pct");
    ph.label = ReadLabel(r, r.Obj(p, "label"));
    v.phases.push_back(std::move(ph));
    if (!r.ok()) break;
  }
  for (const Node& l : r.Arr(root, "labels")) v.labels.push_back(ReadLabel(r, l));
  v.verdict = ReadLabel(r, r.Obj(root, "verdict"));
  if (std::optional<Node> p = r.OptObj(root, "periodic_stall")) {
    AnalyzeView::Periodic ps;
    ps.period_s = r.Num(*p, "period_s");
    ps.stall_s = r.Num(*p, "stall_s");
    ps.first_s = r.Num(*p, "first_s");
    ps.share_pct = r.Num(*p, "share_pct");
    ps.count = r.Int(*p, "count");
    ps.write_burst = r.Bool(*p, "write_burst");
    v.periodic = ps;
  }
  for (const Node& m : r.Arr(root, "memory_growth")) {
    v.memory.push_back({r.Str(m, "subject"), r.Str(m, "kind"), r.Num(m, "start_bytes"),
                        r.Num(m, "end_bytes"), r.Num(m, "slope_bytes_per_s"),
                        r.OptNum(m, "time_to_oom_s")});
  }
  for (const Node& t : r.Arr(root, "throttle")) {
    v.throttle.push_back({r.Int(t, "gpu"), r.Num(t, "busy_s"), r.Num(t, "power_cap_pct"),
                          r.Num(t, "thermal_pct"), r.Num(t, "hw_slowdown_pct"),
                          r.OptNum(t, "clock_loss_pct")});
  }
  Node e = r.Obj(root, "energy");
  v.joules = r.Num(e, "joules");
  v.starved_pct = r.Num(e, "starved_pct");
  v.gpu_hours = r.Num(e, "gpu_hours");
  v.work_per_s = r.OptNum(e, "work_per_s");
  v.work_per_kj = r.OptNum(e, "work_per_kj");
  v.cost = r.OptNum(e, "cost");
  v.work_unit = r.OptStr(e, "work_unit").value_or("");
  if (std::optional<Node> f = r.OptObj(root, "forecast")) v.forecast = ReadForecastView(r, *f);
  if (!r.ok()) return r.status();
  return v;
}

namespace {

// The verdict box: the job's label, and the node's part (throttling) beside it.
void FillVerdict(const AnalyzeView& v, Verdict& vd) {
  vd.severity = v.verdict.severity;
  const bool waiting = vd.severity == "warn" || vd.severity == "fail";  // IsBottleneck, from JSON
  vd.headline = "job: " + v.verdict.Name() + " (" + Num(v.verdict.share_pct) +
                " % of wall time, confidence " + v.verdict.confidence + ")";
  vd.job_sentence = v.verdict.reason + ".";
  vd.job_action = v.verdict.decision;
  // The node's part: throttling, GPU memory growth.
  const AnalyzeView::Throttle* worst = nullptr;
  double worst_pct = 0;
  for (const AnalyzeView::Throttle& t : v.throttle) {
    double p = std::max({t.power_cap_pct, t.thermal_pct, t.hw_slowdown_pct});
    if (p > worst_pct) {
      worst_pct = p;
      worst = &t;
    }
  }
  if (worst && worst_pct >= 10) {
    std::string why =
        worst->thermal_pct >= worst->power_cap_pct && worst->thermal_pct >= worst->hw_slowdown_pct
            ? "thermal slowdown"
        : worst->hw_slowdown_pct >= worst->power_cap_pct ? "HW slowdown"
                                                         : "its power cap";
    vd.node_sentence =
        "gpu" + std::to_string(worst->gpu) + " was held back by " + why + " " +
        Fixed(worst_pct, 1) + " % of its busy time" +
        (worst->clock_loss_pct ? " (clock " + Num(*worst->clock_loss_pct) + " % below its maximum)"
                               : std::string()) +
        ".";
    vd.node_action = why == "its power cap"
                         ? "Check the power limit against the default (nvidia-smi -q -d POWER); "
                           "a cap set below it costs throughput."
                         : "Check cooling and airflow, then run `gpuvet check` on the node.";
    if (vd.severity == "ok" || vd.severity == "info") vd.severity = "warn";  // the node's part
  } else if (std::find(v.not_recorded.begin(), v.not_recorded.end(), "throttle_reasons") !=
             v.not_recorded.end()) {
    vd.node_sentence =
        "Clock slowdown (throttle) reasons were not recorded: the recording cannot say whether a "
        "GPU was throttled.";
    vd.node_action =
        "Record with `gpuvet record` (or add clocks_event_reasons.* columns to the "
        "nvidia-smi query) to judge the node.";
  } else {
    vd.node_sentence =
        "Nothing in the recording points at the node: no GPU throttled for 10 % "
        "of its busy time or more.";
    vd.node_action = waiting ? "Nothing for the node; the fix is in the job." : "Nothing.";
  }
}

// The line under the title: source, command, GPUs, interval, exit; then the warnings.
std::string MetaHtml(const AnalyzeView& v, const std::string& id) {
  std::string b;
  b += "<p class=\"meta\">source " + Esc(v.source) + " · " + Esc(v.producer) + " · command ";
  std::string cmd;
  for (const std::string& c : v.command) cmd += (cmd.empty() ? "" : " ") + c;
  b += "<code>" + Esc(cmd.empty() ? "(attached)" : cmd) + "</code> · GPUs ";
  for (size_t i = 0; i < v.gpus.size(); ++i) b += (i ? ", " : "") + Esc(v.gpus[i]);
  b += " · interval " + Num(v.interval_s) + " s · exit " +
       (v.exit_code ? Num(*v.exit_code) : std::string("—")) +
       (v.complete ? "" : " · <b>incomplete recording</b>") + " · generated " +
       Esc(v.generated_at) + "</p>\n";
  for (const std::string& w : v.warnings) b += "<p class=\"meta\">⚠ " + Esc(w) + "</p>\n";
  if (!v.not_recorded.empty()) {
    std::string list;
    for (const std::string& n : v.not_recorded) list += (list.empty() ? "" : ", ") + n;
    b += "<p class=\"meta\" id=\"" + Esc(id) +
         "-not-recorded\">Not recorded (not in the input; never shown as 0): " + Esc(list) +
         "</p>\n";
  }
  return b;
}

// What every timeline chart shares: the time axis, its x values, the marks, the phase shades.
struct TimelineFrame {
  Axis axis;
  double duration = 0;
  std::vector<double> x;
  std::vector<Mark> marks;
  std::vector<Span> phases;

  std::string Chart(std::string cid, std::string title, std::string unit,
                    const std::vector<TimelineLine>& lines, std::optional<double> ymax,
                    std::vector<Span> spans, size_t color0) const {
    LineChartSpec spec;
    spec.id = std::move(cid);
    spec.title = std::move(title);
    spec.x_unit = axis.unit;
    spec.y_unit = std::move(unit);
    spec.y_max = ymax;
    spec.x_min = 0;
    spec.x_max = duration / axis.div;
    spec.spans = std::move(spans);
    spec.marks = marks;
    spec.height = 110;
    for (size_t i = 0; i < lines.size(); ++i) {
      spec.series.push_back({lines[i].name, x, lines[i].y, color0 + i});
    }
    return LineChart(spec);
  }
};

TimelineFrame MakeTimelineFrame(const AnalyzeView& v, const Timeline* tl) {
  TimelineFrame f;
  f.duration = tl ? std::max(tl->duration_s, v.duration_s) : v.duration_s;
  f.axis = AxisFor(f.duration);
  const Axis& axis = f.axis;
  for (const PhaseView& p : v.phases) {
    f.phases.push_back({p.start_s / axis.div, p.end_s / axis.div,
                        "phase " + Num(p.start_s) + "–" + Num(p.end_s) + " s: " + p.label.Name() +
                            " (" + p.activity_metric + " " + Num(p.gpu_activity_pct) + " %)",
                        LabelColor(p.label.label)});
  }
  if (v.periodic) {
    for (int k = 0; k < v.periodic->count && k < 500; ++k) {
      double t = v.periodic->first_s + k * v.periodic->period_s;
      f.marks.push_back({t / axis.div, "periodic stall " + std::to_string(k + 1) + " at " + Num(t) +
                                           " s (median " + Num(v.periodic->stall_s) + " s)"});
    }
  }
  if (tl) {
    for (const TimelineEvent& e : tl->events) f.marks.push_back({e.t / axis.div, e.label});
    for (double t : tl->t) f.x.push_back(t / axis.div);
  }
  return f;
}

// The legend of the phase shades, one entry per label.
std::string PhaseLegend(const AnalyzeView& v) {
  std::string b = "<h3>Timeline</h3>\n<p class=\"meta\">Shaded: phases by label (";
  std::vector<std::string> seen;
  for (const PhaseView& p : v.phases) {
    if (std::find(seen.begin(), seen.end(), p.label.Name()) != seen.end()) continue;
    seen.push_back(p.label.Name());
    b += (seen.size() > 1 ? ", " : "") + std::string("<span style=\"color:") +
         std::string(PaletteColor(LabelColor(p.label.label))) + "\">■</span> " +
         Esc(p.label.Name());
  }
  b += "); dashed red marks: periodic stalls and events; hover a shade or mark for its "
       "details." +
       (v.start_unix_s && *v.start_unix_s > 0
            ? " Time 0 is the recording's start, " + UtcClock(*v.start_unix_s) + "."
            : std::string()) +
       "</p>\n";
  return b;
}

// Every sample of a recording: per GPU, then the host's CPU, threads, disk and network.
std::string RecordingCharts(const Timeline& tl, const TimelineFrame& f, const std::string& id) {
  std::string b;
  const Axis& axis = f.axis;
  for (const TimelineGpu& g : tl.gpus) {
    std::string gid = id + "-gpu" + std::to_string(g.index);
    std::vector<Span> spans = f.phases;
    for (const ThrottleSpan& t : g.throttle) {
      spans.push_back({t.t0 / axis.div, t.t1 / axis.div,
                       "throttled (" + t.reason + ") " + Num(t.t0) + "–" + Num(t.t1) + " s", 5});
    }
    b += "<div class=\"gpu-block\" id=\"" + Esc(gid) + "\"><b>gpu" + std::to_string(g.index) +
         "</b> " + Esc(g.name) +
         (g.gpm ? "" : " <span class=\"meta\">(no GPM: GPU-Util only)</span>") +
         (g.throttle.empty() ? "" : " <span class=\"meta\">· red shade: throttle spans</span>") +
         "\n";
    b += f.Chart(gid + "-activity", "gpu" + std::to_string(g.index) + " activity", "%", g.activity,
                 100, spans, 0);
    if (!g.limits.empty()) {
      b += f.Chart(gid + "-limits", "gpu" + std::to_string(g.index) + " power, clock, memory",
                   "% of max", g.limits, 100, spans, 4);
    }
    b += "</div>\n";
  }
  const bool host_cpu =
      std::any_of(tl.host_cpu.begin(), tl.host_cpu.end(), [](const TimelineLine& l) {
        return std::any_of(l.y.begin(), l.y.end(), [](double y) { return std::isfinite(y); });
      });
  if (host_cpu) {
    b += f.Chart(id + "-host-cpu", "host CPU", "% of all CPUs", tl.host_cpu, 100, f.phases, 0);
  } else {
    b += "<p class=\"meta\">host CPU: not recorded</p>\n";
  }
  if (!tl.threads.empty()) {
    b += f.Chart(id + "-threads", "busiest threads", "% of one core", tl.threads, std::nullopt,
                 f.phases, 3);
  }
  if (!tl.disk.empty()) {
    b += f.Chart(id + "-disk", "disk (all devices)", "MB/s", tl.disk, std::nullopt, f.phases, 1);
  } else {
    b += "<p class=\"meta\">disk: not recorded</p>\n";
  }
  if (!tl.net.empty()) {
    b +=
        f.Chart(id + "-net", "network (all interfaces)", "MB/s", tl.net, std::nullopt, f.phases, 4);
  } else {
    b += "<p class=\"meta\">network: not recorded</p>\n";
  }
  return b;
}

// A JSON document carries phase means only: draw them as steps.
std::string PhaseMeanChart(const AnalyzeView& v, TimelineFrame f, const std::string& id) {
  TimelineLine act{"GPU activity (phase mean)", {}};
  f.x.clear();
  for (const PhaseView& p : v.phases) {
    f.x.push_back(p.start_s / f.axis.div);
    act.y.push_back(p.gpu_activity_pct);
    f.x.push_back(p.end_s / f.axis.div);
    act.y.push_back(p.gpu_activity_pct);
  }
  std::string b =
      "<p class=\"meta\">From the JSON summary: phase means only (give the recording file for "
      "every sample).</p>\n";
  b += f.Chart(id + "-phases", "GPU activity by phase", "%", {act}, 100, f.phases, 0);
  return b;
}

// What the job waited on: one bar and one finding block per label, and the periodic stall.
std::string LabelsHtml(const AnalyzeView& v, const std::string& id) {
  std::string b = "<h3>What the job waited on</h3>\n";
  // One row per label: labels overlap in time (a periodic stall inside a compute-bound run), so
  // their shares do not add up to 100 and are not stacked.
  StackedBarSpec lb{id + "-labels-chart", "Share of wall time per label", "%", {}, {}, {}, false};
  for (size_t i = 0; i < v.labels.size(); ++i) {
    lb.categories.push_back(v.labels[i].Name());
    lb.colors.push_back(LabelColor(v.labels[i].label));
  }
  for (size_t i = 0; i < v.labels.size(); ++i) {
    StackedRow row{v.labels[i].Name(), std::vector<double>(v.labels.size(), 0)};
    row.values[i] = v.labels[i].share_pct;
    lb.rows.push_back(std::move(row));
  }
  if (!v.labels.empty()) b += StackedBars(lb);
  b += "<div id=\"" + Esc(id) + "-labels\">";
  for (const LabelView& l : v.labels) {
    FindingBlock f{
        l.Name(),
        l.severity,
        Num(l.share_pct) + " % of wall time (" + Num(l.seconds) + " s), confidence " + l.confidence,
        l.reason,
        "",
        l.decision,
        l.evidence};
    b += FindingDetails(f, &l == &v.labels.front());
  }
  b += "</div>\n";
  if (v.periodic) {
    b += "<p id=\"" + Esc(id) + "-periodic\">Periodic stall: every " + Num(v.periodic->period_s) +
         " s for " + Num(v.periodic->stall_s) + " s (" + std::to_string(v.periodic->count) +
         " stalls from " + Num(v.periodic->first_s) + " s, " + Num(v.periodic->share_pct) +
         " % of wall time" + (v.periodic->write_burst ? ", with disk write bursts" : "") +
         ").</p>\n";
  }
  return b;
}

// Throttle, memory, energy.
std::string NodeTablesHtml(const AnalyzeView& v, const std::string& id) {
  std::string b;
  if (!v.throttle.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const AnalyzeView::Throttle& t : v.throttle) {
      rows.push_back({"gpu" + std::to_string(t.gpu), Num(t.busy_s), Num(t.power_cap_pct),
                      Num(t.thermal_pct), Num(t.hw_slowdown_pct),
                      t.clock_loss_pct ? Num(*t.clock_loss_pct) : "—"});
    }
    b +=
        "<h3>Throttling while busy</h3>\n" +
        Table(id + "-throttle",
              {"GPU", "busy s", "power cap %", "thermal %", "HW slowdown %", "clock loss %"}, rows);
  }
  if (!v.memory.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const AnalyzeView::Growth& m : v.memory) {
      rows.push_back({m.subject, m.kind, Bytes(m.start_bytes), Bytes(m.end_bytes),
                      Bytes(m.slope) + "/s", m.time_to_oom_s ? Num(*m.time_to_oom_s) + " s" : "—"});
    }
    b += "<h3>Growing memory</h3>\n" +
         Table(id + "-memory", {"subject", "kind", "start", "end", "slope", "time to OOM"}, rows);
  }
  b += "<h3>Energy</h3>\n" +
       Table(id + "-energy", {"joules", "starved %", "GPU-hours", "work/s", "work/kJ", "cost"},
             {{Num(v.joules), Num(v.starved_pct), Num(v.gpu_hours),
               v.work_per_s ? Num(*v.work_per_s) + " " + v.work_unit : "—",
               v.work_per_kj ? Num(*v.work_per_kj) : "—", v.cost ? Num(*v.cost) : "—"}});
  return b;
}

}  // namespace

Section AnalyzeSection(const AnalyzeView& v, const Timeline* tl, const std::string& id) {
  Section s;
  s.id = id;
  s.kind = "analyze";
  s.title = "Recording" + (v.host.empty() ? "" : " on " + v.host) + " (" +
            Fixed(v.duration_s / 60, 1) + " min, " + Num(v.samples) + " samples)";
  s.source = v.source;
  FillVerdict(v, s.verdict);
  std::string& b = s.body;
  b += MetaHtml(v, id);
  TimelineFrame frame = MakeTimelineFrame(v, tl);
  b += PhaseLegend(v);
  b += tl ? RecordingCharts(*tl, frame, id) : PhaseMeanChart(v, frame, id);
  b += LabelsHtml(v, id);
  if (v.forecast) {
    b += "<h3>Would a bigger GPU help?</h3>\n" + ForecastHtml(*v.forecast, id + "-forecast");
  }
  b += NodeTablesHtml(v, id);
  return s;
}

}  // namespace gpuvet::html
