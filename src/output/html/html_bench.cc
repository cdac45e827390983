// The bench report's HTML section (output/html/html_bench.h).
#include "output/html/html_bench.h"

#include <cstdlib>

namespace gpuvet::html {

Result<BenchView> ReadBenchView(const nlohmann::json& doc, const std::string& what) {
  DocReader r(what);
  Node root{&doc, ""};
  BenchView v;
  v.generated_at = r.Str(root, "generated_at");
  Node run = r.Obj(root, "run");
  v.mode = r.OptStr(run, "mode").value_or("");
  v.library = r.OptStr(run, "library").value_or("");
  v.run_state = r.OptStr(run, "state").value_or("");
  v.run_detail = r.OptStr(run, "detail").value_or("");
  for (const Node& g : r.Arr(root, "gpus")) {
    v.gpus.push_back({r.Int(g, "index"), r.OptStr(g, "name").value_or("") + " (" +
                                             r.OptStr(g, "pci_bus_id").value_or("") + ")"});
  }
  for (const Node& m : r.Arr(root, "measurements")) {
    BenchFigureView f;
    f.id = r.Str(m, "id");
    f.unit = r.Str(m, "unit");
    f.status = r.Str(m, "status");
    f.method = r.OptStr(m, "method").value_or("");
    f.gpu = r.Int(m, "gpu");
    f.peer = r.Int(m, "peer");
    f.median = r.OptNum(m, "median");
    f.min = r.OptNum(m, "min");
    f.max = r.OptNum(m, "max");
    v.figures.push_back(std::move(f));
    if (!r.ok()) break;
  }
  for (const Node& e : r.Arr(root, "expectations")) {
    std::string id = r.Str(e, "id");
    int gpu = r.Int(e, "gpu"), peer = r.Int(e, "peer");
    for (BenchFigureView& f : v.figures) {
      if (f.id == id && f.gpu == gpu && f.peer == peer) {
        f.expected = r.OptNum(e, "expected");
        f.ratio = r.OptNum(e, "ratio");
        f.basis = r.OptStr(e, "basis").value_or("");
      }
    }
  }
  v.findings = ReadFindings(r, root, "findings");
  Node verdict = r.Obj(root, "verdict");
  v.severity = r.Severity(verdict, "severity");
  v.healthy = r.Bool(verdict, "healthy");
  v.counts = ReadCounts(r, verdict, "counts");
  if (!r.ok()) return r.status();
  // The finding that judged a figure names its basis as the "expected" evidence's threshold and
  // its pass floor as the "ratio" evidence's (">= 0.75"), on the figure's GPU.
  for (BenchFigureView& f : v.figures) {
    if (f.basis.empty()) continue;
    std::string gpu_prefix = "gpu" + std::to_string(f.gpu) + " ";
    for (const FindingView& fd : v.findings) {
      if (fd.subject.rfind(gpu_prefix, 0) != 0 && fd.subject != "gpu" + std::to_string(f.gpu)) {
        continue;
      }
      bool basis = false;
      std::optional<double> floor;
      std::string measured;
      for (const EvidenceRow& e : fd.evidence) {
        if (e.name == "expected" && e.threshold == f.basis) basis = true;
        if (e.name == "ratio" && e.threshold.rfind(">= ", 0) == 0) {
          floor = std::strtod(e.threshold.c_str() + 3, nullptr);
        }
        if (e.name == "measured") measured = e.value;
      }
      if (!basis || !f.median) continue;
      // Same basis on one GPU (h2d and d2h): the measured value tells them apart.
      if (!measured.empty() && std::abs(std::strtod(measured.c_str(), nullptr) - *f.median) >
                                   0.051 * std::max(1.0, std::abs(*f.median))) {
        continue;
      }
      f.floor = floor;
      f.severity = fd.severity;
      break;
    }
  }
  return v;
}

Section BenchSection(const BenchView& v, const std::string& id) {
  Section s;
  s.id = id;
  s.kind = "bench";
  s.title = "GPU benchmark" + (v.mode.empty() ? "" : " (" + v.mode + ")");
  const FindingView* worst = WorstFinding(v.findings);
  Verdict& vd = s.verdict;
  vd.severity = v.severity;
  vd.headline = std::string("benchmark: ") + (v.healthy ? "PASSED" : "FAILED") + " (" +
                CountsText(v.counts) + ")";
  const BenchFigureView* lowest = nullptr;
  for (const BenchFigureView& f : v.figures) {
    if (f.ratio && f.severity == "fail" && (!lowest || *f.ratio < *lowest->ratio)) lowest = &f;
  }
  if (worst) {
    vd.node_sentence =
        "Worst: " + worst->subject + " — " + worst->summary + " [" + worst->id + "].";
    vd.node_action = worst->decision;
  } else {
    vd.node_sentence = "Every figure reached its expectation.";
    vd.node_action = "Nothing; keep this run as the --baseline for the next one.";
  }
  if (lowest) {
    vd.job_sentence = "A job on gpu" + std::to_string(lowest->gpu) + " gets " +
                      Fixed(100 * *lowest->ratio, 1) + " % of the expected " + lowest->id + " (" +
                      Num(*lowest->median) + " of " + Num(*lowest->expected) + " " + lowest->unit +
                      ").";
    vd.job_action = "Run elsewhere if the job leans on this figure; otherwise expect it slower.";
  } else if (!v.healthy) {
    vd.job_sentence = "The benchmark did not complete on every GPU, so a job here is at risk.";
    vd.job_action = "Run elsewhere until the node passes.";
  } else {
    vd.job_sentence = "This node delivers the bandwidth and compute a job expects.";
    vd.job_action = "Run.";
  }

  std::string& b = s.body;
  b += "<p class=\"meta\">mode " + Esc(v.mode) + " · library " + Esc(v.library) + " · state " +
       Esc(v.run_state) + (v.run_detail.empty() ? "" : " (" + Esc(v.run_detail) + ")") +
       " · generated " + Esc(v.generated_at) + "</p>\n";
  BandBarSpec spec;
  spec.id = id + "-figures-chart";
  spec.title = "Measured against expected";
  std::vector<std::vector<std::string>> rows;
  for (const BenchFigureView& f : v.figures) {
    std::string label = "gpu" + std::to_string(f.gpu) +
                        (f.peer >= 0 ? "→gpu" + std::to_string(f.peer) : "") + " " + f.id;
    rows.push_back({label, f.status, f.median ? Num(*f.median) : "—", f.unit,
                    f.expected ? Num(*f.expected) : "—", f.ratio ? Num(*f.ratio) : "—",
                    f.floor ? ">= " + Fixed(*f.floor, 2) : "—",
                    f.severity.empty() ? "—" : f.severity, f.basis});
    // Only figures with an expectation are drawn: a bar scaled to itself says nothing.
    if (!f.median || f.status != "measured" || !f.expected) continue;
    BandRow row;
    row.label = label;
    row.value = *f.median;
    row.unit = f.unit;
    row.severity = f.severity;
    row.expected = f.expected;
    if (f.expected && f.floor) {
      row.low = *f.floor * *f.expected;
      row.high = *f.expected;
    }
    spec.rows.push_back(std::move(row));
  }
  if (!spec.rows.empty()) b += BandBars(spec);
  b += "<p class=\"meta\">Bar: the median; black tick: the expectation; dashed band: the passing "
       "range (from the judging finding's floor up to the expectation).</p>\n";
  b += Table(id + "-figures",
             {"figure", "status", "median", "unit", "expected", "ratio", "pass floor", "severity",
              "basis"},
             rows);
  b += "<h3>Findings by area</h3>\n";
  std::vector<std::string> groups;
  std::vector<FindingBlock> blocks;
  for (const FindingView& f : v.findings) {
    groups.push_back(f.area);
    blocks.push_back(ToBlock(f));
  }
  b += FindingGroups(id + "-findings", groups, blocks);
  std::vector<std::vector<std::string>> gpus;
  for (const auto& [i, name] : v.gpus) gpus.push_back({std::to_string(i), name});
  b += "<h3>GPUs</h3>\n" + Table(id + "-gpus", {"index", "name (PCI address)"}, gpus);
  return s;
}

}  // namespace gpuvet::html
