// Fleet audit text renderer (see fleet_text.h). Plain columns, no colour: the output is read in
// terminals and pasted into tickets alike.
#include "output/text/fleet_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/fleet_catalogue.h"

namespace gpuvet {

namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string FormatWindow(double s) {
  if (s >= 86400 && static_cast<long>(s) % 86400 == 0) return fmt::format("{}d", s / 86400);
  if (s >= 3600 && static_cast<long>(s) % 3600 == 0) return fmt::format("{}h", s / 3600);
  if (s >= 60 && static_cast<long>(s) % 60 == 0) return fmt::format("{}m", s / 60);
  return fmt::format("{}s", s);
}

// "pcie_downgrade ×2, check_failed" for the table.
std::string Summary(const FleetNodeResult& n) {
  std::vector<std::pair<std::string, int>> ids;
  for (const Finding& f : n.findings) {
    std::string id = f.id.substr(f.id.find('.') + 1);
    auto it = std::find_if(ids.begin(), ids.end(), [&](const auto& p) { return p.first == id; });
    if (it == ids.end()) {
      ids.push_back({id, 1});
    } else {
      ++it->second;
    }
  }
  std::string out;
  for (const auto& [id, count] : ids) {
    if (!out.empty()) out += ", ";
    out += count > 1 ? fmt::format("{} x{}", id, count) : id;
  }
  return out.empty() ? "-" : out;
}

}  // namespace

std::string RenderFleetText(const FleetReport& report, bool verbose) {
  std::string out =
      fmt::format("gpuvet fleet audit — {} — window {} — {} nodes — policy: {}\n\n", report.origin,
                  FormatWindow(report.window_s), report.nodes.size(), report.policy_source);
  size_t node_w = 4, pool_w = 4;
  for (const FleetNodeResult& n : report.nodes) {
    node_w = std::max(node_w, n.node.size());
    pool_w = std::max(pool_w, n.pool.size());
  }
  out += fmt::format("{:<4}  {:<{}}  {:<7}  {:>5}  {:<{}}  {}\n", "RANK", "NODE", node_w, "VERDICT",
                     "SCORE", "POOL", pool_w, "FINDINGS");
  int rank = 0;
  for (const FleetNodeResult& n : report.nodes) {
    out += fmt::format("{:<4}  {:<{}}  {:<7}  {:>5}  {:<{}}  {}\n", ++rank, n.node, node_w,
                       Upper(SeverityName(n.verdict)), n.score, n.pool, pool_w, Summary(n));
  }
  for (const FleetNodeResult& n : report.nodes) {
    if (n.findings.empty()) continue;
    out += fmt::format("\n{} — {}{}\n", n.node, Upper(SeverityName(n.verdict)),
                       n.quarantine ? ", quarantine" : "");
    for (const Finding& f : n.findings) {
      out +=
          fmt::format("  {:<7} {}  {}: {}\n", SeverityName(f.severity), f.id, f.subject, f.summary);
      for (const Evidence& e : f.evidence) {
        out += e.threshold.empty() ? fmt::format("            {} = {}\n", e.name, e.value)
                                   : fmt::format("            {} = {} (healthy: {})\n", e.name,
                                                 e.value, e.threshold);
      }
      if (verbose) {
        if (const FleetFindingInfo* info = FindFleetFinding(f.id)) {
          out += fmt::format("            meaning: {}\n            decision: {}\n", info->meaning,
                             info->decision);
        }
      }
    }
  }
  int quarantined = 0;
  for (const FleetNodeResult& n : report.nodes) quarantined += n.quarantine;
  out += fmt::format("\nQuarantine ({} of {} nodes):\n", quarantined, report.nodes.size());
  if (quarantined == 0) out += "  none\n";
  for (const FleetNodeResult& n : report.nodes) {
    if (n.quarantine) out += fmt::format("  {:<{}}  {}\n", n.node, node_w, n.reason);
  }
  if (!report.skipped.empty()) {
    out += fmt::format("\nSkipped inputs ({}):\n", report.skipped.size());
    for (const FleetSkipped& s : report.skipped) {
      out += fmt::format("  {}: {}\n", s.source, s.reason);
    }
  }
  std::map<Severity, int> counts;
  for (const FleetNodeResult& n : report.nodes) ++counts[n.verdict];
  out +=
      fmt::format("\nverdict: {} ({} quarantine, {} fail, {} unknown, {} warn, {} info, {} ok)\n",
                  quarantined ? "QUARANTINE" : "OK", quarantined, counts[Severity::kFail],
                  counts[Severity::kUnknown], counts[Severity::kWarn], counts[Severity::kInfo],
                  counts[Severity::kOk]);
  return out;
}

}  // namespace gpuvet
