// The shared HTML/SVG toolkit: escaping, the page frame, and the SVG charts
// (output/html/html_page.h).
#include "output/html/html_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "util/units.h"

namespace gpuvet::html {
namespace {

constexpr std::string_view kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                         "#56B4E9", "#D55E00", "#999933", "#7f7f7f"};

constexpr std::string_view kStyle = R"css(
:root{--bg:#fff;--fg:#1b1b1b;--muted:#5c5c5c;--line:#d0d0d0;--panel:#f4f5f7;--grid:#e4e4e4;
--ok:#009E73;--info:#0072B2;--warn:#B86E00;--fail:#D55E00;--unknown:#7f7f7f;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#16181c;--fg:#e8e8e8;--muted:#a8a8a8;--line:#3a3d44;
--panel:#1f2228;--grid:#2c2f36;--ok:#3cc79a;--info:#56B4E9;--warn:#E69F00;--fail:#ff7b3a;
--unknown:#a0a0a0}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1180px;padding:16px 20px;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
h1{font-size:20px;margin:4px 0 2px}h2{font-size:17px;margin:22px 0 8px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:14px 0 6px}
.meta{color:var(--muted);font-size:12.5px;margin-bottom:10px;word-break:break-all}
.verdict{border:2px solid var(--line);border-left-width:10px;border-radius:6px;padding:10px 14px;
background:var(--panel);margin:10px 0 14px}
.verdict.sev-fail{border-color:var(--fail)}.verdict.sev-warn{border-color:var(--warn)}
.verdict.sev-ok{border-color:var(--ok)}.verdict.sev-info{border-color:var(--info)}
.verdict.sev-unknown{border-color:var(--unknown)}
.verdict .headline{font-size:18px;font-weight:600;margin-bottom:6px}
.verdict p{margin:4px 0}.who{font-weight:600;display:inline-block;min-width:8.5em}
.do{font-weight:600}
.badge{display:inline-block;font-weight:700;font-size:12px;padding:0 6px;border-radius:3px;
border:1px solid currentColor;white-space:nowrap}
.sev-ok .badge,.badge.sev-ok{color:var(--ok)}.badge.sev-info{color:var(--info)}
.badge.sev-warn{color:var(--warn)}.badge.sev-fail{color:var(--fail)}
.badge.sev-unknown{color:var(--unknown)}
details{border:1px solid var(--line);border-radius:4px;margin:4px 0;padding:3px 8px;background:var(--panel)}
details>summary{cursor:pointer}details[open]>summary{margin-bottom:4px}
code,.mono{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px}
table{border-collapse:collapse;margin:6px 0;font-size:13px}
th,td{border:1px solid var(--line);padding:3px 7px;text-align:left;vertical-align:top}
th{background:var(--panel)}td.num{text-align:right;font-variant-numeric:tabular-nums}
.chart{margin:6px 0 10px;overflow:visible}.chart svg{display:block;max-width:100%;height:auto}
svg text{fill:var(--fg);font-size:11px;font-family:inherit}svg .axis{stroke:var(--muted)}
svg .grid{stroke:var(--grid)}svg .muted{fill:var(--muted)}
.gpu-block{border-top:1px dashed var(--line);padding-top:4px}
.tip{position:fixed;pointer-events:none;background:var(--panel);border:1px solid var(--line);
padding:3px 6px;font-size:12px;display:none;white-space:pre}
.ext{color:var(--muted);font-style:italic}
@media print{body{max-width:none;padding:0;font-size:11px}details{break-inside:avoid}
details:not([open])>*:not(summary){display:block}.chart{break-inside:avoid}.tip{display:none}}
)css";

// Hover values on line charts: the svg carries its plot box and axis ranges; each path carries its
// points in data-v (x,y pairs in data units). Optional: nothing on the page depends on it.
constexpr std::string_view kScript = R"js(
(function(){var tip=document.createElement('div');tip.className='tip';document.body.appendChild(tip);
document.querySelectorAll('svg[data-x0]').forEach(function(svg){
var d=svg.dataset,px0=+d.px0,pw=+d.pw,x0=+d.x0,x1=+d.x1;
var ser=[].map.call(svg.querySelectorAll('path[data-v]'),function(p){
var v=p.dataset.v.split(' ').map(Number);return{n:p.dataset.n,u:d.u,v:v};});
svg.addEventListener('mousemove',function(e){var r=svg.getBoundingClientRect();
var sx=(e.clientX-r.left)*svg.viewBox.baseVal.width/r.width;if(sx<px0||sx>px0+pw){tip.style.display='none';return;}
var x=x0+(sx-px0)/pw*(x1-x0),lines=[d.xl+' '+x.toFixed(1)+' '+d.xu];
ser.forEach(function(s){var b=null,bd=1e300;for(var i=0;i<s.v.length;i+=2){var dd=Math.abs(s.v[i]-x);
if(dd<bd){bd=dd;b=s.v[i+1];}}if(b!==null&&isFinite(b))lines.push(s.n+': '+b+' '+s.u);});
tip.textContent=lines.join('\n');tip.style.display='block';tip.style.left=(e.clientX+12)+'px';
tip.style.top=(e.clientY+12)+'px';});
svg.addEventListener('mouseleave',function(){tip.style.display='none';});});})();
)js";

std::string Coord(double v) { return Fixed(v, 1); }

// A "nice" tick step for a range: 1, 2 or 5 × 10^k giving about `count` ticks.
double NiceStep(double range, int count) {
  if (!(range > 0)) return 1;
  double raw = range / count;
  double mag = std::pow(10, std::floor(std::log10(raw)));
  double norm = raw / mag;
  double step = norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10;
  return step * mag;
}

std::string TickLabel(double v, double step) {
  int decimals = step >= 1 ? 0 : step >= 0.1 ? 1 : 2;
  return Fixed(v, decimals);
}

std::string Title(std::string_view text) { return "<title>" + Esc(text) + "</title>"; }

std::string Legend(const std::vector<std::pair<std::string, size_t>>& items, double x, double y,
                   double width) {
  std::string out;
  double cx = x;
  for (const auto& [name, color] : items) {
    double w = 18 + 6.5 * static_cast<double>(name.size());
    if (cx + w > x + width && cx > x) {
      cx = x;
      y += 14;
    }
    out += "<rect x=\"" + Coord(cx) + "\" y=\"" + Coord(y - 8) +
           "\" width=\"10\" height=\"10\" fill=\"" + std::string(PaletteColor(color)) +
           "\"/><text x=\"" + Coord(cx + 13) + "\" y=\"" + Coord(y + 1) + "\">" + Esc(name) +
           "</text>";
    cx += w;
  }
  return out;
}

}  // namespace

std::string Esc(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') break;
        if (c == 0x7f) break;
        out += c;
    }
  }
  return out;
}

std::string Num(double value) {
  if (!std::isfinite(value)) return "–";
  // Integral values print as integers ("900", not "900.0"); the rest as the JSON writes them.
  if (std::fabs(value) < 1e15 && value == std::floor(value)) {
    return std::to_string(static_cast<long long>(value));
  }
  return nlohmann::json(value).dump();
}

std::string Fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "–";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  std::string s = buf;
  if (s == "-0" || s == "-0.0" || s == "-0.00") s = s.substr(1);
  return s;
}

std::string Bytes(double bytes) {
  return FormatBytes(bytes);  // the one byte formatter (util/units.h)
}

int SeverityRank(std::string_view s) {
  if (s == "fail") return 4;
  if (s == "unknown") return 3;
  if (s == "warn") return 2;
  if (s == "info") return 1;
  return 0;
}

std::string SeverityBadge(std::string_view severity) {
  std::string_view symbol = severity == "fail"      ? "✗ FAIL"
                            : severity == "warn"    ? "! WARN"
                            : severity == "unknown" ? "? UNKNOWN"
                            : severity == "info"    ? "i INFO"
                                                    : "✓ OK";
  std::string cls = SeverityRank(severity) == 0 && severity != "ok" ? "ok" : std::string(severity);
  return "<span class=\"badge sev-" + Esc(cls) + "\">" + std::string(symbol) + "</span>";
}

std::string_view PaletteColor(size_t index) {
  return kPalette[index % (sizeof kPalette / sizeof kPalette[0])];
}

std::string PageStart(std::string_view title) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
      "<meta name=\"generator\" content=\"gpuvet report\">\n<title>";
  out += Esc(title);
  out += "</title>\n<style>";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n";
  return out;
}

std::string PageEnd() {
  std::string out = "<script>";
  out += kScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

std::string VerdictBox(std::string_view id, const Verdict& v) {
  std::string sev = Esc(v.severity);
  std::string out = "<div class=\"verdict sev-" + sev + "\" id=\"" + Esc(id) + "\">";
  out += "<div class=\"headline\">" + SeverityBadge(v.severity) + " " + Esc(v.headline) + "</div>";
  out += "<p data-who=\"node\"><span class=\"who\">The node (SRE):</span> " + Esc(v.node_sentence);
  if (!v.node_action.empty()) out += " <span class=\"do\">Do:</span> " + Esc(v.node_action);
  out += "</p>";
  out += "<p data-who=\"job\"><span class=\"who\">The job (ML):</span> " + Esc(v.job_sentence);
  if (!v.job_action.empty()) out += " <span class=\"do\">Do:</span> " + Esc(v.job_action);
  out += "</p></div>\n";
  return out;
}

std::string FindingDetails(const FindingBlock& f, bool open) {
  std::string out = open ? "<details open" : "<details";
  out += " class=\"finding\" data-id=\"" + Esc(f.id) + "\" data-severity=\"" + Esc(f.severity) +
         "\"><summary>" + SeverityBadge(f.severity) + " <code>" + Esc(f.id) + "</code> " +
         Esc(f.subject) + (f.subject.empty() ? "" : ": ") + Esc(f.summary) + "</summary>";
  if (!f.evidence.empty()) {
    out += "<table class=\"evidence\"><tr><th>evidence</th><th>value</th><th>expected</th></tr>";
    for (const EvidenceRow& e : f.evidence) {
      out += "<tr><td><code>" + Esc(e.name) + "</code></td><td class=\"num\">" + Esc(e.value) +
             "</td><td>" + Esc(e.threshold) + "</td></tr>";
    }
    out += "</table>";
  }
  if (!f.meaning.empty()) out += "<p><b>Meaning:</b> " + Esc(f.meaning) + "</p>";
  if (!f.decision.empty()) out += "<p><b>Decision:</b> " + Esc(f.decision) + "</p>";
  out += "</details>\n";
  return out;
}

std::string FindingGroups(std::string_view id, const std::vector<std::string>& groups,
                          const std::vector<FindingBlock>& findings) {
  // Groups in first-seen order, the worst group first.
  std::vector<std::string> order;
  std::map<std::string, std::vector<size_t>> members;
  for (size_t i = 0; i < findings.size(); ++i) {
    const std::string& g = i < groups.size() ? groups[i] : std::string();
    if (!members.count(g)) order.push_back(g);
    members[g].push_back(i);
  }
  auto worst = [&](const std::string& g) {
    int w = 0;
    for (size_t i : members[g]) w = std::max(w, SeverityRank(findings[i].severity));
    return w;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& a, const std::string& b) { return worst(a) > worst(b); });
  std::string out = "<div id=\"" + Esc(id) + "\" class=\"finding-groups\">";
  for (const std::string& g : order) {
    std::vector<size_t> problems, fine;
    for (size_t i : members[g]) {
      (findings[i].severity == "ok" ? fine : problems).push_back(i);
    }
    std::stable_sort(problems.begin(), problems.end(), [&](size_t a, size_t b) {
      return SeverityRank(findings[a].severity) > SeverityRank(findings[b].severity);
    });
    out += "<h3 class=\"area\" data-area=\"" + Esc(g) + "\">" + Esc(g.empty() ? "other" : g) +
           " <span class=\"muted meta\">" + std::to_string(problems.size()) + " problem(s), " +
           std::to_string(fine.size()) + " ok</span></h3>\n";
    for (size_t i : problems) {
      out += FindingDetails(findings[i], SeverityRank(findings[i].severity) >= 2);
    }
    if (!fine.empty()) {
      out += "<details class=\"ok-group\"><summary>" + SeverityBadge("ok") + " " +
             std::to_string(fine.size()) + " passed</summary>";
      for (size_t i : fine) out += FindingDetails(findings[i], false);
      out += "</details>\n";
    }
  }
  out += "</div>\n";
  return out;
}

std::string Table(std::string_view id, const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table id=\"" + Esc(id) + "\"><tr>";
  for (const std::string& h : header) out += "<th>" + Esc(h) + "</th>";
  out += "</tr>";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const std::string& c : row) {
      bool numeric = !c.empty() && (std::isdigit(static_cast<unsigned char>(c[0])) ||
                                    (c[0] == '-' && c.size() > 1));
      out += numeric ? "<td class=\"num\">" : "<td>";
      out += Esc(c) + "</td>";
    }
    out += "</tr>";
  }
  out += "</table>\n";
  return out;
}

std::string LineChart(const LineChartSpec& spec) {
  constexpr double kWidth = 1100, kLeft = 58, kRight = 12, kTop = 22;
  const double plot_h = spec.height, plot_w = kWidth - kLeft - kRight;
  double x0 = spec.x_min, x1 = spec.x_max;
  double ymax = 0;
  bool any = false;
  for (const Series& s : spec.series) {
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i])) continue;
      if (!any && !(x1 > x0)) x0 = x1 = s.x[i];
      any = true;
      if (!(spec.x_max > spec.x_min)) {
        x0 = std::min(x0, s.x[i]);
        x1 = std::max(x1, s.x[i]);
      }
      ymax = std::max(ymax, s.y[i]);
    }
  }
  if (!(x1 > x0)) x1 = x0 + 1;
  if (spec.y_max) ymax = *spec.y_max;
  if (!(ymax > 0)) ymax = 1;
  double ystep = NiceStep(ymax, 4);
  if (!spec.y_max) ymax = std::ceil(ymax / ystep) * ystep;
  auto sx = [&](double x) { return kLeft + (x - x0) / (x1 - x0) * plot_w; };
  auto sy = [&](double y) { return kTop + plot_h - std::clamp(y / ymax, 0.0, 1.05) * plot_h; };

  std::vector<std::pair<std::string, size_t>> legend;
  for (const Series& s : spec.series) legend.push_back({s.name, s.color});
  const double legend_y = kTop + plot_h + 30;
  const double total_h = legend_y + 8 + 14 * std::max<size_t>(1, legend.size() / 9 + 1);

  std::string out = "<figure class=\"chart\" id=\"" + Esc(spec.id) + "\"><svg viewBox=\"0 0 " +
                    Coord(kWidth) + " " + Coord(total_h) + "\" width=\"" + Coord(kWidth) +
                    "\" role=\"img\" aria-label=\"" + Esc(spec.title) + "\" data-px0=\"" +
                    Coord(kLeft) + "\" data-pw=\"" + Coord(plot_w) + "\" data-x0=\"" + Num(x0) +
                    "\" data-x1=\"" + Num(x1) + "\" data-xl=\"t\" data-xu=\"" + Esc(spec.x_unit) +
                    "\" data-u=\"" + Esc(spec.y_unit) + "\">";
  out += "<text x=\"" + Coord(kLeft) + "\" y=\"14\" font-weight=\"600\">" + Esc(spec.title) + " (" +
         Esc(spec.y_unit) + ")</text>";
  // Spans under everything else.
  for (const Span& sp : spec.spans) {
    double a = sx(std::max(sp.x0, x0)), b = sx(std::min(sp.x1, x1));
    if (!(b > a)) continue;
    out += "<rect class=\"span\" x=\"" + Coord(a) + "\" y=\"" + Coord(kTop) + "\" width=\"" +
           Coord(std::max(b - a, 0.5)) + "\" height=\"" + Coord(plot_h) + "\" fill=\"" +
           std::string(PaletteColor(sp.color)) + "\" fill-opacity=\"0.16\">" + Title(sp.label) +
           "</rect>";
  }
  // Grid and axes.
  for (double y = 0; y <= ymax + ystep / 2; y += ystep) {
    out += "<line class=\"grid\" x1=\"" + Coord(kLeft) + "\" x2=\"" + Coord(kLeft + plot_w) +
           "\" y1=\"" + Coord(sy(y)) + "\" y2=\"" + Coord(sy(y)) + "\"/><text x=\"" +
           Coord(kLeft - 4) + "\" y=\"" + Coord(sy(y) + 4) + "\" text-anchor=\"end\">" +
           TickLabel(y, ystep) + "</text>";
  }
  double xstep = NiceStep(x1 - x0, 8);
  for (double x = std::ceil(x0 / xstep) * xstep; x <= x1 + xstep * 1e-9; x += xstep) {
    out += "<line class=\"axis\" x1=\"" + Coord(sx(x)) + "\" x2=\"" + Coord(sx(x)) + "\" y1=\"" +
           Coord(kTop + plot_h) + "\" y2=\"" + Coord(kTop + plot_h + 4) + "\"/><text x=\"" +
           Coord(sx(x)) + "\" y=\"" + Coord(kTop + plot_h + 15) + "\" text-anchor=\"middle\">" +
           TickLabel(x, xstep) + "</text>";
  }
  out += "<text class=\"muted\" x=\"" + Coord(kLeft + plot_w) + "\" y=\"" +
         Coord(kTop + plot_h + 15) + "\" text-anchor=\"end\" dy=\"12\">time (" + Esc(spec.x_unit) +
         ")</text>";
  out += "<line class=\"axis\" x1=\"" + Coord(kLeft) + "\" x2=\"" + Coord(kLeft) + "\" y1=\"" +
         Coord(kTop) + "\" y2=\"" + Coord(kTop + plot_h) + "\"/><line class=\"axis\" x1=\"" +
         Coord(kLeft) + "\" x2=\"" + Coord(kLeft + plot_w) + "\" y1=\"" + Coord(kTop + plot_h) +
         "\" y2=\"" + Coord(kTop + plot_h) + "\"/>";
  if (!any) {
    out += "<text class=\"muted\" x=\"" + Coord(kLeft + plot_w / 2) + "\" y=\"" +
           Coord(kTop + plot_h / 2) + "\" text-anchor=\"middle\">not recorded</text>";
  }
  // Lines.
  for (const Series& s : spec.series) {
    std::string d, v;
    bool pen = false;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i])) {
        pen = false;
        continue;
      }
      d += pen ? 'L' : 'M';
      d += Coord(sx(s.x[i])) + "," + Coord(sy(s.y[i]));
      pen = true;
      if (!v.empty()) v += ' ';
      v += Fixed(s.x[i], 1) + " " + Fixed(s.y[i], 2);
    }
    if (d.empty()) continue;
    out += "<path class=\"series\" d=\"" + d + "\" fill=\"none\" stroke=\"" +
           std::string(PaletteColor(s.color)) + "\" stroke-width=\"1.3\" data-n=\"" + Esc(s.name) +
           "\" data-v=\"" + v + "\">" + Title(s.name) + "</path>";
  }
  // Marks on top.
  for (const Mark& m : spec.marks) {
    if (m.x < x0 || m.x > x1) continue;
    out += "<line class=\"mark\" x1=\"" + Coord(sx(m.x)) + "\" x2=\"" + Coord(sx(m.x)) +
           "\" y1=\"" + Coord(kTop) + "\" y2=\"" + Coord(kTop + plot_h) +
           "\" stroke=\"var(--fail)\" stroke-dasharray=\"3,2\" stroke-width=\"1.2\">" +
           Title(m.label) + "</line><path class=\"mark-head\" d=\"M" + Coord(sx(m.x) - 4) + "," +
           Coord(kTop - 6) + "L" + Coord(sx(m.x) + 4) + "," + Coord(kTop - 6) + "L" +
           Coord(sx(m.x)) + "," + Coord(kTop) + "Z\" fill=\"var(--fail)\">" + Title(m.label) +
           "</path>";
  }
  out += Legend(legend, kLeft, legend_y, plot_w);
  out += "</svg></figure>\n";
  return out;
}

std::string StackedBars(const StackedBarSpec& spec) {
  constexpr double kWidth = 1100, kLeft = 170, kRight = 90, kRow = 22, kTop = 24;
  const double plot_w = kWidth - kLeft - kRight;
  double max_total = 0;
  for (const StackedRow& r : spec.rows) {
    double t = 0;
    for (double v : r.values) t += std::max(0.0, v);
    max_total = std::max(max_total, t);
  }
  if (!(max_total > 0)) max_total = 1;
  std::vector<std::pair<std::string, size_t>> legend;
  for (size_t c = 0; c < spec.categories.size(); ++c) {
    legend.push_back({spec.categories[c], c < spec.colors.size() ? spec.colors[c] : c});
  }
  const double bars_h = kRow * static_cast<double>(spec.rows.size());
  const double axis_y = kTop + bars_h;
  const double total_h = axis_y + 44;
  std::string out = "<figure class=\"chart\" id=\"" + Esc(spec.id) + "\"><svg viewBox=\"0 0 " +
                    Coord(kWidth) + " " + Coord(total_h) + "\" width=\"" + Coord(kWidth) +
                    "\" role=\"img\" aria-label=\"" + Esc(spec.title) + "\">";
  out += "<text x=\"" + Coord(kLeft) + "\" y=\"14\" font-weight=\"600\">" + Esc(spec.title) +
         "</text>";
  for (size_t r = 0; r < spec.rows.size(); ++r) {
    const StackedRow& row = spec.rows[r];
    double y = kTop + kRow * static_cast<double>(r);
    double total = 0;
    for (double v : row.values) total += std::max(0.0, v);
    double scale = spec.normalize ? (total > 0 ? plot_w / total : 0) : plot_w / max_total;
    out += "<text x=\"" + Coord(kLeft - 6) + "\" y=\"" + Coord(y + 14) + "\" text-anchor=\"end\">" +
           Esc(row.label.size() > 28 ? row.label.substr(0, 27) + "…" : row.label) +
           Title(row.label) + "</text>";
    double x = kLeft;
    for (size_t c = 0; c < row.values.size() && c < spec.categories.size(); ++c) {
      double v = std::max(0.0, row.values[c]);
      if (!(v > 0)) continue;
      double w = v * scale;
      std::string share = total > 0 ? Fixed(100 * v / total, 1) + " %" : "";
      out += "<path class=\"bar\" d=\"M" + Coord(x) + "," + Coord(y + 3) + "h" +
             Coord(std::max(w, 0.6)) + "v16h-" + Coord(std::max(w, 0.6)) + "Z\" fill=\"" +
             std::string(PaletteColor(legend[c].second)) + "\">" +
             Title(row.label + " · " + spec.categories[c] + ": " + Num(row.values[c]) + " " +
                   spec.unit + " (" + share + ")") +
             "</path>";
      x += w;
    }
    out += "<text class=\"muted\" x=\"" + Coord(x + 4) + "\" y=\"" + Coord(y + 14) + "\">" +
           Esc(Num(total) + " " + spec.unit) + "</text>";
  }
  // Axis.
  double top = spec.normalize ? 100 : max_total;
  double step = NiceStep(top, 5);
  for (double v = 0; v <= top + step * 1e-9; v += step) {
    double x = kLeft + v / top * plot_w;
    out += "<line class=\"axis\" x1=\"" + Coord(x) + "\" x2=\"" + Coord(x) + "\" y1=\"" +
           Coord(axis_y) + "\" y2=\"" + Coord(axis_y + 4) + "\"/><text x=\"" + Coord(x) +
           "\" y=\"" + Coord(axis_y + 15) + "\" text-anchor=\"middle\">" + TickLabel(v, step) +
           "</text>";
  }
  out += "<text class=\"muted\" x=\"" + Coord(kLeft + plot_w) + "\" y=\"" + Coord(axis_y + 15) +
         "\" dy=\"12\" text-anchor=\"end\">" + Esc(spec.normalize ? "% of row" : spec.unit) +
         "</text>";
  out += Legend(legend, kLeft, axis_y + 34, plot_w);
  out += "</svg></figure>\n";
  return out;
}

std::string BandBars(const BandBarSpec& spec) {
  constexpr double kWidth = 1100, kLeft = 250, kRight = 200, kRow = 24, kTop = 24;
  const double plot_w = kWidth - kLeft - kRight;
  const double total_h = kTop + kRow * static_cast<double>(spec.rows.size()) + 26;
  std::string out = "<figure class=\"chart\" id=\"" + Esc(spec.id) + "\"><svg viewBox=\"0 0 " +
                    Coord(kWidth) + " " + Coord(total_h) + "\" width=\"" + Coord(kWidth) +
                    "\" role=\"img\" aria-label=\"" + Esc(spec.title) + "\">";
  out += "<text x=\"" + Coord(kLeft) + "\" y=\"14\" font-weight=\"600\">" + Esc(spec.title) +
         " (each bar scaled to its own expectation)</text>";
  for (size_t r = 0; r < spec.rows.size(); ++r) {
    const BandRow& row = spec.rows[r];
    double y = kTop + kRow * static_cast<double>(r);
    // Each row has its own unit: scale so the larger of value and band top fills 80 %.
    double top = std::max({row.value, row.high.value_or(0), row.expected.value_or(0)});
    double scale = top > 0 ? 0.8 * plot_w / top : 0;
    std::string color = row.severity == "fail"   ? "var(--fail)"
                        : row.severity == "warn" ? "var(--warn)"
                        : row.severity == "ok"   ? "var(--ok)"
                                                 : "var(--unknown)";
    out += "<text x=\"" + Coord(kLeft - 6) + "\" y=\"" + Coord(y + 15) + "\" text-anchor=\"end\">" +
           Esc(row.label) + "</text>";
    if (row.low && row.high) {
      out += "<rect class=\"band\" x=\"" + Coord(kLeft + *row.low * scale) + "\" y=\"" +
             Coord(y + 1) + "\" width=\"" + Coord(std::max(0.0, (*row.high - *row.low) * scale)) +
             "\" height=\"20\" fill=\"var(--ok)\" fill-opacity=\"0.18\" stroke=\"var(--ok)\" "
             "stroke-dasharray=\"2,2\">" +
             Title("expected band " + Num(*row.low) + " – " + Num(*row.high) + " " + row.unit) +
             "</rect>";
    }
    double w = std::max(row.value * scale, 0.6);
    out += "<path class=\"bar\" d=\"M" + Coord(kLeft) + "," + Coord(y + 6) + "h" + Coord(w) +
           "v10h-" + Coord(w) + "Z\" fill=\"" + color + "\">" +
           Title(row.label + ": " + Num(row.value) + " " + row.unit) + "</path>";
    if (row.expected) {
      double x = kLeft + *row.expected * scale;
      out += "<line class=\"expected\" x1=\"" + Coord(x) + "\" x2=\"" + Coord(x) + "\" y1=\"" +
             Coord(y) + "\" y2=\"" + Coord(y + 22) + "\" stroke=\"var(--fg)\" stroke-width=\"2\">" +
             Title("expected " + Num(*row.expected) + " " + row.unit) + "</line>";
    }
    std::string label = Num(row.value) + " " + row.unit;
    if (row.expected) label += " of " + Num(*row.expected);
    out += "<text x=\"" + Coord(kLeft + plot_w + 6) + "\" y=\"" + Coord(y + 15) + "\">" +
           Esc(label) + "</text>";
  }
  out += "</svg></figure>\n";
  return out;
}

std::string HeatMap(const HeatMapSpec& spec) {
  constexpr double kLeft = 230, kCell = 30, kTop = 150;
  const double width = kLeft + kCell * static_cast<double>(spec.columns.size()) + 130;
  const double height = kTop + kCell * static_cast<double>(spec.rows.size()) + 30;
  std::string out = "<figure class=\"chart\" id=\"" + Esc(spec.id) + "\"><svg viewBox=\"0 0 " +
                    Coord(width) + " " + Coord(height) + "\" width=\"" + Coord(width) +
                    "\" role=\"img\" aria-label=\"" + Esc(spec.title) + "\">";
  out += "<text x=\"4\" y=\"14\" font-weight=\"600\">" + Esc(spec.title) + "</text>";
  for (size_t c = 0; c < spec.columns.size(); ++c) {
    double x = kLeft + kCell * static_cast<double>(c) + kCell / 2;
    out += "<text transform=\"translate(" + Coord(x + 4) + "," + Coord(kTop - 6) +
           ") rotate(-55)\">" + Esc(spec.columns[c]) + "</text>";
  }
  for (size_t r = 0; r < spec.rows.size(); ++r) {
    double y = kTop + kCell * static_cast<double>(r);
    out += "<text x=\"" + Coord(kLeft - 6) + "\" y=\"" + Coord(y + kCell / 2 + 4) +
           "\" text-anchor=\"end\">" + Esc(spec.rows[r]) + "</text>";
    for (size_t c = 0; c < spec.columns.size(); ++c) {
      std::string sev = r < spec.cells.size() && c < spec.cells[r].size() ? spec.cells[r][c] : "";
      double x = kLeft + kCell * static_cast<double>(c);
      // Fills told apart by lightness as well as hue (vermillion, yellow, grey, sky, green),
      // and a glyph in each cell.
      std::string fill = sev == "fail"      ? "#D55E00"
                         : sev == "warn"    ? "#F0E442"
                         : sev == "unknown" ? "#999999"
                         : sev == "info"    ? "#56B4E9"
                         : sev == "ok"      ? "#009E73"
                                            : "var(--panel)";
      std::string ink = sev == "warn" || sev == "info" ? "#1b1b1b" : "#ffffff";
      std::string glyph = sev == "fail"      ? "✗"
                          : sev == "warn"    ? "!"
                          : sev == "unknown" ? "?"
                          : sev == "info"    ? "i"
                                             : "";
      out += "<path class=\"cell\" d=\"M" + Coord(x + 1) + "," + Coord(y + 1) + "h" +
             Coord(kCell - 2) + "v" + Coord(kCell - 2) + "h-" + Coord(kCell - 2) + "Z\" fill=\"" +
             fill + "\" data-severity=\"" + Esc(sev) + "\">" +
             Title(spec.rows[r] + " · " + spec.columns[c] + ": " + (sev.empty() ? "—" : sev)) +
             "</path>";
      if (!glyph.empty()) {
        out += "<text x=\"" + Coord(x + kCell / 2) + "\" y=\"" + Coord(y + kCell / 2 + 4) +
               "\" text-anchor=\"middle\" style=\"fill:" + ink + ";font-weight:700\">" + glyph +
               "</text>";
      }
    }
  }
  out += "</svg></figure>\n";
  return out;
}

std::string Waterfall(const WaterfallSpec& spec) {
  constexpr double kWidth = 1100, kLeft = 170, kRight = 150, kRow = 24, kTop = 24;
  const double plot_w = kWidth - kLeft - kRight;
  double now_total = 0, target_total = 0;
  for (const WaterfallTerm& t : spec.terms) {
    now_total += t.now_pct;
    target_total += t.target_pct;
  }
  double top = std::max({now_total, target_total, 1.0});
  auto sx = [&](double v) { return kLeft + v / top * plot_w; };
  const size_t rows = spec.terms.size() + 2;
  const double total_h = kTop + kRow * static_cast<double>(rows) + 30;
  std::string out = "<figure class=\"chart\" id=\"" + Esc(spec.id) + "\"><svg viewBox=\"0 0 " +
                    Coord(kWidth) + " " + Coord(total_h) + "\" width=\"" + Coord(kWidth) +
                    "\" role=\"img\" aria-label=\"" + Esc(spec.title) + "\">";
  out += "<text x=\"" + Coord(kLeft) + "\" y=\"14\" font-weight=\"600\">" + Esc(spec.title) +
         " (% of today's wall time)</text>";
  auto bar = [&](double y, double a, double b, std::string_view color, std::string_view title) {
    double w = std::max(sx(b) - sx(a), 0.6);
    return "<path class=\"bar\" d=\"M" + Coord(sx(a)) + "," + Coord(y + 3) + "h" + Coord(w) +
           "v16h-" + Coord(w) + "Z\" fill=\"" + std::string(color) + "\">" + Title(title) +
           "</path>";
  };
  double y = kTop;
  out += "<text x=\"" + Coord(kLeft - 6) + "\" y=\"" + Coord(y + 15) +
         "\" text-anchor=\"end\">today</text>" +
         bar(y, 0, now_total, PaletteColor(7), "today " + Fixed(now_total, 2) + " %") +
         "<text x=\"" + Coord(sx(now_total) + 4) + "\" y=\"" + Coord(y + 15) + "\">" +
         Fixed(now_total, 2) + " %</text>";
  // Each term: where it ends today → what it becomes; drawn as the part it loses.
  double cursor = now_total;
  for (size_t i = 0; i < spec.terms.size(); ++i) {
    const WaterfallTerm& t = spec.terms[i];
    y = kTop + kRow * static_cast<double>(i + 1);
    double saved = t.now_pct - t.target_pct;
    out += "<text x=\"" + Coord(kLeft - 6) + "\" y=\"" + Coord(y + 15) + "\" text-anchor=\"end\">" +
           Esc(t.label) + "</text>";
    if (saved > 1e-9) {
      out += bar(y, cursor - saved, cursor, PaletteColor(0),
                 t.label + ": " + Fixed(t.now_pct, 2) + " % → " + Fixed(t.target_pct, 2) + " %");
      cursor -= saved;
    } else {
      out += bar(y, cursor - 0.3, cursor, PaletteColor(5),
                 t.label + ": does not shrink (" + Fixed(t.now_pct, 2) + " %)");
    }
    out += "<text x=\"" + Coord(sx(now_total) + 4) + "\" y=\"" + Coord(y + 15) + "\">" +
           Esc(Fixed(t.now_pct, 2) + " → " + Fixed(t.target_pct, 2) + " %" +
               (saved > 1e-9 ? "" : " (does not shrink)")) +
           "</text>";
  }
  y = kTop + kRow * static_cast<double>(spec.terms.size() + 1);
  out += "<text x=\"" + Coord(kLeft - 6) + "\" y=\"" + Coord(y + 15) +
         "\" text-anchor=\"end\" font-weight=\"600\">on the target</text>" +
         bar(y, 0, target_total, PaletteColor(2), "target " + Fixed(target_total, 2) + " %") +
         "<text x=\"" + Coord(sx(target_total) + 4) + "\" y=\"" + Coord(y + 15) + "\">" +
         Fixed(target_total, 2) + " %</text>";
  out += "</svg></figure>\n";
  return out;
}

}  // namespace gpuvet::html
