// Trace comparison text renderer.
#include "output/text/trace_compare_text.h"

#include <fmt/format.h>

#include <cmath>

#include "core/bottleneck.h"
#include "util/strings.h"
#include "util/units.h"

namespace gpuvet {

namespace {

std::string Dur(double ns) {
  double a = std::fabs(ns);
  if (a >= 1e9) return fmt::format("{:.2f} s", ns / 1e9);
  if (a >= 1e6) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.1f} µs", ns / 1e3);
}

std::string Delta(double ns) {
  if (std::round(ns) == 0) return "0";
  return (ns > 0 ? "+" : "-") + Dur(std::fabs(ns));
}

std::string Short(const std::string& name, size_t width) {
  return name.size() <= width ? name : name.substr(0, width - 3) + "...";
}

// Word-wraps `text` to `width` columns, every line after the first indented by `indent`.
// Leading spaces of `text` are kept on the first line.
std::string Wrap(const std::string& text, size_t width, const std::string& indent) {
  size_t lead = text.find_first_not_of(' ');
  std::string out, line = text.substr(0, lead == std::string::npos ? text.size() : lead);
  size_t start = line.size();
  for (std::string_view word : SplitWhitespace(text)) {
    if (line.size() > start && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = indent;
      start = line.size();
    } else if (line.size() > start) {
      line += ' ';
    }
    line += word;
  }
  return out + line + "\n";
}

std::string RunLine(const char* label, const CompareRun& r) {
  std::string where =
      r.sources.size() == 1 ? r.sources.front() : fmt::format("{} files", r.sources.size());
  std::string gpu = r.gpu_name.empty() ? "GPU not named" : r.gpu_name;
  std::string steps = r.has_steps ? fmt::format(", {:.1f} step(s) per rank", r.steps) : "";
  return fmt::format("  {}  {}  ({} rank(s), {}{}; verdict {})\n", label, where, r.ranks, gpu,
                     steps, BottleneckName(r.verdict));
}

std::string Line(const std::string& name, double a, double b, double delta, double share,
                 bool show_share = true) {
  std::string s = show_share ? fmt::format("{:>6.0f} %", share) : std::string(8, ' ');
  return fmt::format("  {:<26} {:>11} {:>11} {:>11} {}\n", name, Dur(a), Dur(b), Delta(delta), s);
}

std::string RowLine(const CompareRow& r, const std::string& indent = "") {
  return Line(indent + r.name, r.a_ns, r.b_ns, r.delta_ns, r.share_pct);
}

std::string KernelLine(const CompareKernel& k) {
  std::string name = k.name_a.empty() ? k.name_b : k.name_a;
  std::string out = fmt::format("  {:>11} {:>6.0f} %  {:>10} x{:<7.1f} -> {:>10} x{:<7.1f} {}\n",
                                Delta(k.delta_ns), k.share_pct, Dur(k.a_ns), k.a_count, Dur(k.b_ns),
                                k.b_count, Short(name, 70));
  if (k.match == "family") {
    out += fmt::format("  {:>56} in B: {}\n", "", Short(k.name_b, 70));
  }
  return out;
}

std::string OneSided(const CompareKernel& k) {
  std::string name = k.name_a.empty() ? k.name_b : k.name_a;
  double ns = k.name_a.empty() ? k.b_ns : k.a_ns;
  double n = k.name_a.empty() ? k.b_count : k.a_count;
  return fmt::format("  {:>11} x{:<7.1f} {:<12} {}\n", Dur(ns), n, k.category, Short(name, 80));
}

}  // namespace

std::string RenderTraceCompareText(const TraceComparison& c, bool color) {
  std::string out = "gpuvet trace --compare: A against B\n";
  out += RunLine("A", c.a);
  out += RunLine("B", c.b);
  std::string answer = Wrap("answer: " + c.answer, 100, "        ");
  if (color) answer = "\033[1m" + answer + "\033[0m";
  out += "\n" + answer;
  out +=
      fmt::format("\nper {:<22} {:>11} {:>11} {:>11} {:>8}\n", c.unit, "A", "B", "B - A", "share");
  out += Line(c.unit == "step" ? "step" : "GPU span", c.a.step_ns, c.b.step_ns, c.delta_ns,
              c.delta_ns != 0 ? 100.0 : 0.0);
  for (const CompareRow& r : c.temporal) {
    out += RowLine(r, "  ");
    if (r.name != "idle") continue;
    for (const CompareRow& i : c.idle) out += RowLine(i, "    ");
  }
  out += "GPU idle in the span, by who held the host\n";
  for (const CompareRow& r : c.host) out += RowLine(r, "  ");
  if (c.a.gpu_behind || c.b.gpu_behind) {
    out += Line("host step (ProfilerStep)", c.a.host_step_ns, c.b.host_step_ns,
                c.b.host_step_ns - c.a.host_step_ns, 0, false);
  }
  out += fmt::format("  {:<26} {:>11.1f} {:>11.1f} {:>+11.1f}\n", "GPU ops launched",
                     c.a.kernels_per_step, c.b.kernels_per_step,
                     c.b.kernels_per_step - c.a.kernels_per_step);
  if (!c.categories.empty()) {
    out += "kernel time by category (summed over streams)\n";
    for (const CompareRow& r : c.categories) out += RowLine(r);
  }
  if (c.comm.a_ns > 0 || c.comm.b_ns > 0) {
    out += "communication\n";
    out += RowLine(c.comm);
    out += RowLine(c.comm_exposed);
  }
  if (!c.copies.empty()) {
    out += "copies\n";
    for (const CompareRow& r : c.copies) {
      out += fmt::format("  {:<26} {:>11} {:>11} {:>11} {:>6.0f} %   {} x{:.1f} -> {} x{:.1f}\n",
                         r.name, Dur(r.a_ns), Dur(r.b_ns), Delta(r.delta_ns), r.share_pct,
                         FormatBytes(r.a_bytes), r.a_count, FormatBytes(r.b_bytes), r.b_count);
    }
  }
  if (!c.syncs.empty()) {
    out += "host synchronisation (host time, not GPU time)\n";
    for (const CompareRow& r : c.syncs) {
      out += fmt::format("  {:<26} {:>11} {:>11} {:>11}   x{:.1f} -> x{:.1f}\n", r.name,
                         Dur(r.a_ns), Dur(r.b_ns), Delta(r.delta_ns), r.a_count, r.b_count);
    }
  }
  out += fmt::format("kernels: {} matched by name, {} in A only, {} in B only\n", c.kernels_matched,
                     c.kernels_a_only, c.kernels_b_only);
  if (!c.changed.empty()) {
    out += fmt::format("  {:>11} {:>8}  {:>10} {:<8} -> {:>10} {:<8} {}\n", "B - A", "share", "A",
                       "", "B", "", "kernel (as A names it)");
    for (const CompareKernel& k : c.changed) out += KernelLine(k);
  }
  if (!c.added.empty()) {
    out += fmt::format("new in B ({})\n", c.kernels_b_only);
    for (const CompareKernel& k : c.added) out += OneSided(k);
  }
  if (!c.removed.empty()) {
    out += fmt::format("gone from B ({})\n", c.kernels_a_only);
    for (const CompareKernel& k : c.removed) out += OneSided(k);
  }
  if (!c.causes.empty()) {
    out += "likely causes besides the kernels\n";
    for (const std::string& s : c.causes) out += Wrap("  - " + s, 100, "    ");
  }
  for (const CompareRun* r : {&c.a, &c.b}) {
    for (const std::string& p : r->problems) {
      out +=
          fmt::format("{}: skipped a file that could not be read: {}\n", r == &c.a ? "A" : "B", p);
    }
  }
  return out;
}

}  // namespace gpuvet
