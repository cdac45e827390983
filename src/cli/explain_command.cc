// `gpuvet checks` and `gpuvet explain`: the catalogue for humans and scripts.
#include "cli/explain_command.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/catalogue.h"
#include "core/report.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

void Print(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

int ListChecks(const std::string& format) {
  if (format == "json") {
    nlohmann::json list = nlohmann::json::array();
    for (const CatalogueEntry& e : Catalogue()) {
      list.push_back({{"id", e.id},
                      {"area", e.area},
                      {"title", e.title},
                      {"meaning", e.meaning},
                      {"decision", e.decision}});
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
  out += "\n`gpuvet explain ID` shows what a finding means and what to do about it.\n";
  Print(out);
  return kExitHealthy;
}

int Explain(const std::string& id) {
  const CatalogueEntry* e = FindCatalogueEntry(id);
  if (!e) {
    std::vector<std::string> close;
    std::string_view want_area = std::string_view(id).substr(0, id.find('.'));
    for (const CatalogueEntry& c : Catalogue()) {
      if (c.area == want_area || c.id.find(id) != std::string_view::npos) {
        close.emplace_back(c.id);
      }
    }
    std::fprintf(stderr, "gpuvet explain: no check '%s'%s\n", id.c_str(),
                 close.empty() ? "; `gpuvet checks` lists them"
                               : ("; did you mean: " + Join(close, ", ")).c_str());
    return kExitUsage;
  }
  Print(fmt::format("{}  ({} area)\n  {}\n\nWhat it means\n  {}\n\nWhat to do\n  {}\n", e->id,
                    e->area, e->title, e->meaning, e->decision));
  return kExitHealthy;
}

}  // namespace

void AddChecksCommand(CLI::App& app, int* exit_code) {
  auto format = std::make_shared<std::string>("text");
  CLI::App* cmd = app.add_subcommand("checks", "List every check gpuvet can report");
  cmd->add_option("--format", *format, "text or json");
  cmd->callback([format, exit_code] { *exit_code = ListChecks(*format); });
}

void AddExplainCommand(CLI::App& app, int* exit_code) {
  auto id = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("explain", "Explain one check: what it means, what to do");
  cmd->add_option("id", *id, "Check id, e.g. pcie.link_width_reduced")->required();
  cmd->callback([id, exit_code] { *exit_code = Explain(*id); });
}

}  // namespace gpuvet
