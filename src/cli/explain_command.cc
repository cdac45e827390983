// `gpuvet checks` and `gpuvet explain`: the check catalogue, the fleet findings and the bottleneck
// labels, for humans and scripts.
#include "cli/explain_command.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/bottleneck.h"
#include "core/catalogue.h"
#include "core/fleet_catalogue.h"
#include "core/report.h"
#include "rules/xid_catalog.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

void Print(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

int ListChecks(const std::string& format) {
  if (format == "json") {
    nlohmann::json list = nlohmann::json::array();
    for (const CatalogueEntry& e : Catalogue()) {
      list.push_back({{"kind", "check"},
                      {"id", e.id},
                      {"area", e.area},
                      {"title", e.title},
                      {"meaning", e.meaning},
                      {"decision", e.decision}});
    }
    for (const FleetFindingInfo& f : FleetFindings()) {
      list.push_back({{"kind", "fleet"},
                      {"id", f.id},
                      {"area", "fleet"},
                      {"title", f.title},
                      {"meaning", f.meaning},
                      {"decision", f.decision}});
    }
    for (const BottleneckInfo& b : Bottlenecks()) {
      list.push_back({{"kind", "label"},
                      {"id", b.id},
                      {"label", BottleneckName(b.label)},
                      {"subcase", SubcaseName(b.subcase)},
                      {"emitted_by", b.emitted_by},
                      {"severity", SeverityName(b.severity)},
                      {"title", b.title},
                      {"meaning", b.meaning},
                      {"evidence", b.evidence},
                      {"decision", b.decision}});
    }
    Print(list.dump(2) + "\n");
    return kExitHealthy;
  }
  if (format != "text") {
    std::fprintf(stderr, "gpuvet checks: --format must be text or json\n");
    return kExitUsage;
  }
  std::string out = fmt::format("{:<28} {:<10} {}\n", "ID", "AREA", "CHECKS");
  for (const CatalogueEntry& e : Catalogue()) {
    out += fmt::format("{:<28} {:<10} {}\n", e.id, e.area, e.title);
  }
  out += fmt::format("\n{:<28} {:<10} {}\n", "FLEET ID", "KIND", "JUDGES");
  for (const FleetFindingInfo& f : FleetFindings()) {
    out += fmt::format("{:<28} {:<10} {}\n", f.id, "fleet", f.title);
  }
  out += fmt::format("\n{:<36} {:<10} {}\n", "LABEL", "KIND", "MEANS");
  for (const BottleneckInfo& b : Bottlenecks()) {
    out += fmt::format("{:<36} {:<10} {}\n", b.id,
                       b.subcase == Subcase::kNone ? "label" : "subcase", b.title);
  }
  out += "\n`gpuvet explain ID` shows what a finding means and what to do about it.\n";
  Print(out);
  return kExitHealthy;
}

// A label's text: meaning, evidence, decision, and for a label its sub-cases.
std::string ExplainLabel(const BottleneckInfo& b) {
  std::string out = fmt::format(
      "{}  (bottleneck {}, reported by gpuvet {})\n  {}\n\nWhat it means\n  {}\n\nEvidence it "
      "needs\n  {}\n\nWhat to do\n  {}\n",
      b.id, b.subcase == Subcase::kNone ? "label" : "sub-case", b.emitted_by, b.title, b.meaning,
      b.evidence, b.decision);
  std::string subcases;
  for (const BottleneckInfo& s : Bottlenecks()) {
    if (b.subcase == Subcase::kNone && s.label == b.label && s.subcase != Subcase::kNone) {
      subcases += fmt::format("  {:<36} {}\n", s.id, s.title);
    }
  }
  if (!subcases.empty()) out += "\nSub-cases\n" + subcases;
  return out;
}

// Ids of every kind close to an unknown `id`: the same area (the part before '.'), the same label
// (the part before '/'), or containing it.
std::vector<std::string> CloseIds(std::string_view id) {
  std::vector<std::string> close;
  std::string_view want_area = id.substr(0, id.find('.'));
  std::string_view want_label = id.substr(0, id.find('/'));
  for (const CatalogueEntry& c : Catalogue()) {
    if (c.area == want_area || c.id.find(id) != std::string_view::npos) close.emplace_back(c.id);
  }
  for (const FleetFindingInfo& f : FleetFindings()) {
    if (want_area == "fleet" || f.id.find(id) != std::string_view::npos) close.emplace_back(f.id);
  }
  for (const BottleneckInfo& b : Bottlenecks()) {
    if (BottleneckName(b.label) == want_label || b.id.find(id) != std::string_view::npos) {
      close.emplace_back(b.id);
    }
  }
  return close;
}

// The Xid code `id` names ("79", "xid79", "xid.79", "Xid 79"), or nullopt.
std::optional<int> XidCodeOf(std::string_view id) {
  std::string lower = ToLower(id);
  std::string_view rest = lower;
  if (StartsWith(rest, "xid")) rest.remove_prefix(3);
  while (!rest.empty() && (rest.front() == '.' || rest.front() == ' ' || rest.front() == '_')) {
    rest.remove_prefix(1);
  }
  if (rest.empty() || rest.size() > 4) return std::nullopt;
  for (char c : rest) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::stoi(std::string(rest));
}

// An Xid answered from the Xid catalogue (rules/xid_catalog.h, docs/xid.md).
std::string ExplainXid(const XidInfo& x) {
  return fmt::format(
      "Xid {}  (Xid catalogue: {})\n  {}\n\nNVIDIA's immediate action\n  {}\n\nWhat to do\n  {}\n\n"
      "Source\n  {}\n",
      x.code, XidClassName(x.xid_class), x.name,
      x.nvidia_action.empty() ? std::string_view("none given") : x.nvidia_action, x.action,
      XidSourceName(x.source));
}

int Explain(const std::string& id) {
  if (std::optional<int> code = XidCodeOf(id)) {
    if (const XidInfo* x = FindXid(*code)) {
      Print(ExplainXid(*x));
      return kExitHealthy;
    }
    std::fprintf(stderr,
                 "gpuvet explain: Xid %d is not in gpuvet's Xid catalogue (docs/xid.md); look it "
                 "up in NVIDIA's Xid catalogue\n",
                 *code);
    return kExitUsage;
  }
  if (const CatalogueEntry* e = FindCatalogueEntry(id)) {
    Print(fmt::format("{}  ({} area)\n  {}\n\nWhat it means\n  {}\n\nWhat to do\n  {}\n", e->id,
                      e->area, e->title, e->meaning, e->decision));
    return kExitHealthy;
  }
  if (const FleetFindingInfo* f = FindFleetFinding(id)) {
    Print(fmt::format("{}  (fleet finding)\n  {}\n\nWhat it means\n  {}\n\nWhat to do\n  {}\n",
                      f->id, f->title, f->meaning, f->decision));
    return kExitHealthy;
  }
  if (const BottleneckInfo* b = FindBottleneck(id)) {
    Print(ExplainLabel(*b));
    return kExitHealthy;
  }
  std::vector<std::string> close = CloseIds(id);
  std::fprintf(stderr, "gpuvet explain: no check, fleet finding or label '%s'%s\n", id.c_str(),
               close.empty() ? "; `gpuvet checks` lists them"
                             : ("; did you mean: " + Join(close, ", ")).c_str());
  return kExitUsage;
}

}  // namespace

void AddChecksCommand(CLI::App& app, int* exit_code) {
  auto format = std::make_shared<std::string>("text");
  CLI::App* cmd = app.add_subcommand(
      "checks", "List every check, fleet finding and bottleneck label gpuvet can report");
  cmd->add_option("--format", *format, "text or json");
  cmd->callback([format, exit_code] { *exit_code = ListChecks(*format); });
}

void AddExplainCommand(CLI::App& app, int* exit_code) {
  auto id = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "explain", "Explain one check, fleet finding or label: what it means, what to do");
  cmd->add_option("id", *id,
                  "Check id (pcie.link_width_reduced), fleet id (fleet.driver_drift), label "
                  "(host_cpu_bound, host_cpu_bound/cpu_quota) or Xid code (79, xid79)")
      ->required();
  cmd->callback([id, exit_code] { *exit_code = Explain(*id); });
}

}  // namespace gpuvet
