// The shared HTML/SVG toolkit of the `gpuvet report` pages (output/html/html_*): escaping, the page
// frame (inline CSS for light, dark and print; no external request), number formatting that
// matches the JSON renderers, and SVG charts drawn here in C++ so the page needs no JavaScript to
// be read. Every string that reaches the page from an input passes through Esc() — the charts
// and tables below escape every label, title and legend they are given, so callers hand them raw
// text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::html {

// Text safe inside an element or a quoted attribute: & < > " ' escaped, ASCII control characters
// other than tab/newline dropped.
std::string Esc(std::string_view text);

// A number as the JSON renderers write it (nlohmann's shortest round-trip form: 7.78), integral
// values without a fraction ("1200"), so a figure on the page reads back to the JSON's value.
std::string Num(double value);
// A number rounded to `decimals` for axis ticks and derived figures ("12.5").
std::string Fixed(double value, int decimals);
// Bytes with a binary unit ("1.5 GiB"); rates take a "/s" suffix from the caller.
std::string Bytes(double bytes);

// Severity of a finding as the page shows it: one of ok, info, warn, unknown, fail. A CSS class
// `sev-<name>` colours it and a symbol repeats it (colour is never the only cue).
std::string SeverityBadge(std::string_view severity);
// Rank for sorting (fail 4 … ok 0; unknown ranks between warn and fail).
int SeverityRank(std::string_view severity);

// The colour-blind-safe palette (Okabe–Ito), cycled by index.
std::string_view PaletteColor(size_t index);

// The frame: <!doctype>, <head> with the inline stylesheet and `extra_head` (trusted markup),
// <body> opening. `title` is escaped.
std::string PageStart(std::string_view title);
// Closes the body; appends the small optional script that shows hover values on line charts
// (the page reads the same without it).
std::string PageEnd();

// The verdict box at the top of a page: a headline with the severity, then one sentence for the
// SRE (the node) and one for the ML engineer (the job), each with its "what to do". Escaped.
struct Verdict {
  std::string severity;  // ok, info, warn, unknown, fail
  std::string headline;
  std::string node_sentence;  // the SRE's
  std::string node_action;
  std::string job_sentence;  // the ML engineer's
  std::string job_action;
};
std::string VerdictBox(std::string_view id, const Verdict& verdict);

// One evidence row of a finding or label.
struct EvidenceRow {
  std::string name, value, threshold;
};
// A finding as an expandable <details> block: severity, id, subject, summary; inside the
// evidence table, meaning and decision. `open` expands it by default.
struct FindingBlock {
  std::string id, severity, subject, summary, meaning, decision;
  std::vector<EvidenceRow> evidence;
};
std::string FindingDetails(const FindingBlock& f, bool open);
// Findings grouped by `group` key (area), problems first, each group as a headed list; ok
// findings of a group are folded into one closed <details>.
std::string FindingGroups(std::string_view id, const std::vector<std::string>& groups,
                          const std::vector<FindingBlock>& findings);

// A plain table: header cells and rows of cells, all escaped.
std::string Table(std::string_view id, const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows);

// ---- charts (SVG) ----

// One line of a time chart: points (x, y) in order; a NaN y breaks the line.
struct Series {
  std::string name;
  std::vector<double> x, y;
  size_t color = 0;  // palette index
};
// A shaded x-range (phase, throttle span) or a mark at one x (stall, kernel-log event).
struct Span {
  double x0 = 0, x1 = 0;
  std::string label;
  size_t color = 0;
};
struct Mark {
  double x = 0;
  std::string label;
};
struct LineChartSpec {
  std::string id;  // stable, unique on the page: tests and links find the chart by it
  std::string title;
  std::string x_unit;           // "s", "h"
  std::string y_unit;           // "%", "W", "MHz", "GiB", "MB/s"
  std::optional<double> y_max;  // fixed top (100 for percentages); else the data's
  std::vector<Series> series;
  std::vector<Span> spans;
  std::vector<Mark> marks;
  double x_min = 0, x_max = 0;  // the shared time axis (x_max <= x_min: from the data)
  int height = 150;
};
std::string LineChart(const LineChartSpec& spec);

// Horizontal stacked bars: one row per label, segments in a shared category order with a legend.
struct StackedRow {
  std::string label;
  std::vector<double> values;  // one per category
};
struct StackedBarSpec {
  std::string id, title, unit;  // unit of the values ("µs", "%")
  std::vector<std::string> categories;
  std::vector<size_t> colors;  // palette index per category
  std::vector<StackedRow> rows;
  bool normalize = false;  // draw each row as shares of its total (values keep their unit)
};
std::string StackedBars(const StackedBarSpec& spec);

// Horizontal bars against an expected band: value bar, band [low, high], a tick at `expected`.
struct BandRow {
  std::string label, severity;
  double value = 0;
  std::optional<double> expected, low, high;
  std::string unit;
};
struct BandBarSpec {
  std::string id, title;
  std::vector<BandRow> rows;
};
std::string BandBars(const BandBarSpec& spec);

// A heat map of severities: rows × columns, each cell a severity name or "" (not present).
struct HeatMapSpec {
  std::string id, title;
  std::vector<std::string> rows, columns;
  std::vector<std::vector<std::string>> cells;  // [row][column]
};
std::string HeatMap(const HeatMapSpec& spec);

// The upgrade forecast as a waterfall: each part's share of wall time now and on the target.
struct WaterfallTerm {
  std::string label;
  double now_pct = 0;
  double target_pct = 0;  // share_pct × scale
};
struct WaterfallSpec {
  std::string id, title;
  std::vector<WaterfallTerm> terms;
};
std::string Waterfall(const WaterfallSpec& spec);

}  // namespace gpuvet::html
