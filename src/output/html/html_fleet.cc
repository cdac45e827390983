// The fleet audit's HTML section (output/html/html_fleet.h).
#include "output/html/html_fleet.h"

#include <algorithm>
#include <set>

namespace gpuvet::html {

Result<FleetView> ReadFleetView(const nlohmann::json& doc, const std::string& what) {
  DocReader r(what);
  Node root{&doc, ""};
  FleetView v;
  v.generated_at = r.Str(root, "generated_at");
  v.origin = r.OptStr(root, "origin").value_or("");
  v.policy = r.OptStr(root, "policy").value_or("");
  v.window_s = r.OptNum(root, "window_s").value_or(0);
  for (const Node& n : r.Arr(root, "nodes")) {
    FleetNodeView nv;
    nv.rank = r.Int(n, "rank");
    nv.node = r.Str(n, "node");
    nv.pool = r.OptStr(n, "pool").value_or("");
    nv.verdict = r.Severity(n, "verdict");
    nv.score = r.Num(n, "score");
    nv.quarantine = r.Bool(n, "quarantine");
    nv.findings = ReadFindings(r, n, "findings");
    v.nodes.push_back(std::move(nv));
    if (!r.ok()) break;
  }
  for (const Node& q : r.Arr(root, "quarantine")) {
    v.quarantine.push_back({r.Str(q, "node"), r.Str(q, "reason"), r.StrArr(q, "finding_ids")});
  }
  for (const Node& sk : r.OptArr(root, "skipped")) {
    v.skipped.push_back({r.Str(sk, "source"), r.Str(sk, "reason")});
  }
  Node vd = r.Obj(root, "verdict");
  v.severity = r.Severity(vd, "severity");
  v.node_total = r.Int(vd, "nodes");
  v.quarantine_total = r.Int(vd, "quarantine");
  v.node_counts = ReadCounts(r, vd, "node_counts");
  if (!r.ok()) return r.status();
  return v;
}

Section FleetSection(const FleetView& v, const std::string& id) {
  Section s;
  s.id = id;
  s.kind = "fleet";
  s.title = "Fleet audit (" + std::to_string(v.node_total) + " nodes)";
  Verdict& vd = s.verdict;
  vd.severity = v.severity;
  vd.headline = "fleet: " + std::to_string(v.quarantine_total) + " of " +
                std::to_string(v.node_total) + " nodes to quarantine (" +
                CountsText(v.node_counts) + " nodes)";
  if (!v.nodes.empty() && v.nodes.front().verdict != "ok") {
    const FleetNodeView& worst = v.nodes.front();
    const FindingView* f = WorstFinding(worst.findings);
    vd.node_sentence =
        "Worst node: " + worst.node +
        (f ? " — " + f->subject + ": " + f->summary + " [" + f->id + "]" : std::string()) + ".";
    vd.node_action = v.quarantine.empty()
                         ? (f ? f->decision : "")
                         : "Drain the quarantine list (`gpuvet fleet quarantine`); " +
                               (f ? f->decision : std::string("see each node's findings."));
  } else {
    vd.node_sentence = "Every node agrees with its pool and passes its checks.";
    vd.node_action = "Nothing.";
  }
  int healthy = v.node_counts.ok + v.node_counts.info;
  vd.job_sentence = std::to_string(healthy) + " of " + std::to_string(v.node_total) +
                    " nodes are clean for jobs; jobs on the " + std::to_string(v.quarantine_total) +
                    " quarantined nodes may fail or run slow.";
  vd.job_action = v.quarantine_total > 0
                      ? "Keep jobs off the quarantined nodes until they pass again."
                      : "Schedule anywhere.";

  std::string& b = s.body;
  b += "<p class=\"meta\">origin " + Esc(v.origin) + " · window " + Num(v.window_s) +
       " s · policy " + Esc(v.policy) + " · generated " + Esc(v.generated_at) + "</p>\n";
  HeatMapSpec hm;
  hm.id = id + "-heatmap";
  hm.title = "Nodes × checks (worst severity; blank: not flagged)";
  std::set<std::string> ids;
  for (const FleetNodeView& n : v.nodes) {
    for (const FindingView& f : n.findings) ids.insert(f.id);
  }
  hm.columns.assign(ids.begin(), ids.end());
  for (const FleetNodeView& n : v.nodes) {
    hm.rows.push_back(n.node + (n.quarantine ? " [quarantine]" : ""));
    std::vector<std::string> cells(hm.columns.size());
    for (const FindingView& f : n.findings) {
      size_t c = std::find(hm.columns.begin(), hm.columns.end(), f.id) - hm.columns.begin();
      if (SeverityRank(f.severity) >= SeverityRank(cells[c]) || cells[c].empty()) {
        cells[c] = f.severity;
      }
    }
    hm.cells.push_back(std::move(cells));
  }
  if (!hm.columns.empty()) b += HeatMap(hm);
  std::vector<std::vector<std::string>> ranked;
  for (const FleetNodeView& n : v.nodes) {
    ranked.push_back({std::to_string(n.rank), n.node, n.pool, n.verdict, Num(n.score),
                      n.quarantine ? "yes" : "", std::to_string(n.findings.size())});
  }
  b += Table(id + "-nodes", {"rank", "node", "pool", "verdict", "score", "quarantine", "findings"},
             ranked);
  std::vector<std::vector<std::string>> drift;
  for (const FleetNodeView& n : v.nodes) {
    for (const FindingView& f : n.findings) {
      if (f.id.size() < 6 || f.id.compare(f.id.size() - 6, 6, "_drift") != 0) continue;
      std::string value, expected;
      for (const EvidenceRow& e : f.evidence) {
        value += (value.empty() ? "" : ", ") + e.name + " " + e.value;
        expected += (expected.empty() ? "" : ", ") + e.threshold;
      }
      drift.push_back({n.node, f.id, f.subject, f.severity, value, expected});
    }
  }
  b += "<h3>Drift</h3>\n";
  b += drift.empty() ? "<p id=\"" + Esc(id) + "-drift\">No node differs from its pool.</p>\n"
                     : Table(id + "-drift",
                             {"node", "check", "subject", "severity", "value", "expected"}, drift);
  b += "<h3>Quarantine</h3>\n";
  std::vector<std::vector<std::string>> q;
  for (const FleetView::Quarantine& e : v.quarantine) {
    std::string ids_text;
    for (const std::string& i : e.finding_ids) ids_text += (ids_text.empty() ? "" : ", ") + i;
    q.push_back({e.node, e.reason, ids_text});
  }
  b += q.empty() ? "<p id=\"" + Esc(id) + "-quarantine\">Nothing to quarantine.</p>\n"
                 : Table(id + "-quarantine", {"node", "reason", "findings"}, q);
  b += "<h3>Findings per node</h3>\n<div id=\"" + Esc(id) + "-node-findings\">";
  for (const FleetNodeView& n : v.nodes) {
    if (n.findings.empty()) continue;
    b += "<details" + std::string(SeverityRank(n.verdict) >= 4 ? " open" : "") +
         " class=\"node\"><summary>" + SeverityBadge(n.verdict) + " " + Esc(n.node) + " (" +
         std::to_string(n.findings.size()) + " findings)</summary>";
    for (const FindingView& f : n.findings) b += FindingDetails(ToBlock(f), false);
    b += "</details>\n";
  }
  b += "</div>\n";
  if (!v.skipped.empty()) {
    std::vector<std::vector<std::string>> sk;
    for (const auto& [src, why] : v.skipped) sk.push_back({src, why});
    b += "<h3>Skipped inputs</h3>\n" + Table(id + "-skipped", {"source", "reason"}, sk);
  }
  return s;
}

}  // namespace gpuvet::html
