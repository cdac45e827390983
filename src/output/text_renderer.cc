// Text renderer. Layout is plain enough for `grep` and `less` and stable for golden tests.
#include "output/text_renderer.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "core/catalogue.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

const char* Colour(Severity s) {
  switch (s) {
    case Severity::kOk:
      return "\033[32m";
    case Severity::kInfo:
      return "\033[36m";
    case Severity::kWarn:
      return "\033[33m";
    case Severity::kUnknown:
      return "\033[35m";
    case Severity::kFail:
      return "\033[1;31m";
  }
  return "";
}

std::string Tag(Severity s, bool color) {
  std::string name(SeverityName(s));
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string padded = fmt::format("{:<7}", name);
  return color ? std::string(Colour(s)) + padded + "\033[0m" : padded;
}

std::string AreaOf(const Finding& f) {
  const CatalogueEntry* e = FindCatalogueEntry(f.id);
  return e ? std::string(e->area) : f.id.substr(0, f.id.find('.'));
}

std::string Header(const CheckReport& r) {
  std::string out = "gpuvet check";
  if (!r.host.hostname.empty()) out += " on " + r.host.hostname;
  out += "\n";
  const GpuInventory& g = r.gpus;
  if (g.state == GpuSourceState::kOk) {
    std::map<std::string, int> models;
    for (const GpuState& gpu : g.gpus) ++models[gpu.name.empty() ? "unnamed GPU" : gpu.name];
    std::vector<std::string> parts;
    for (const auto& [name, n] : models) parts.push_back(fmt::format("{} × {}", n, name));
    out += fmt::format("  GPUs:   {}\n", parts.empty() ? "none" : Join(parts, ", "));
    out += fmt::format("  driver: {}{}   source: {}\n",
                       g.driver_version.has() ? *g.driver_version : "unknown",
                       g.cuda_driver_version.has()
                           ? ", CUDA " + FormatCudaVersion(*g.cuda_driver_version)
                           : "",
                       g.origin);
  } else if (g.state == GpuSourceState::kNotRun) {
    out += "  GPUs:   not checked\n";
  } else {
    out += fmt::format("  GPUs:   unavailable ({})\n", g.detail);
  }
  out += fmt::format("  policy: {}\n", r.policy_source);
  return out;
}

std::string Indent(const std::string& label, const std::string& text) {
  return fmt::format("          {:<9}{}\n", label, text);
}

}  // namespace

std::string VerdictLine(const CheckReport& r) {
  std::map<Severity, int> counts;
  for (const Finding& f : r.findings) ++counts[f.severity];
  std::vector<std::string> parts;
  for (Severity s :
       {Severity::kFail, Severity::kUnknown, Severity::kWarn, Severity::kInfo, Severity::kOk}) {
    if (counts[s]) parts.push_back(fmt::format("{} {}", counts[s], SeverityName(s)));
  }
  std::string word;
  if (r.verdict == Severity::kFail) {
    word = "UNHEALTHY";
  } else if (r.verdict == Severity::kUnknown) {
    word = "HEALTHY WITH UNKNOWNS";
  } else if (r.verdict == Severity::kWarn) {
    word = "HEALTHY WITH WARNINGS";
  } else {
    word = "HEALTHY";
  }
  return fmt::format("verdict: {} ({})", word, parts.empty() ? "no checks ran" : Join(parts, ", "));
}

std::string RenderText(const CheckReport& r, const TextOptions& opt) {
  std::string out = Header(r);
  std::vector<std::string> areas;
  std::map<std::string, std::vector<const Finding*>> by_area;
  for (const Finding& f : r.findings) {
    std::string area = AreaOf(f);
    if (!by_area.count(area)) areas.push_back(area);
    by_area[area].push_back(&f);
  }
  for (const std::string& area : areas) {
    const auto& list = by_area[area];
    int ok = 0;
    for (const Finding* f : list) ok += f->severity == Severity::kOk;
    out += fmt::format("\n{}", area);
    if (ok) out += fmt::format("  ({} ok)", ok);
    out += "\n";
    for (const Finding* f : list) {
      bool problem = f->severity != Severity::kOk && f->severity != Severity::kInfo;
      if (f->severity == Severity::kOk && !opt.verbose) continue;
      out += fmt::format("  {} {:<26} {}\n", Tag(f->severity, opt.color), f->id, f->subject);
      out += Indent("", f->summary);
      if (f->severity == Severity::kOk) continue;
      if (!f->evidence.empty()) {
        std::vector<std::string> ev;
        for (const Evidence& e : f->evidence) {
          ev.push_back(e.threshold.empty() ? fmt::format("{}={}", e.name, e.value)
                                           : fmt::format("{}={} ({})", e.name, e.value,
                                                         e.threshold));
        }
        out += Indent("evidence", Join(ev, "; "));
      }
      const CatalogueEntry* e = FindCatalogueEntry(f->id);
      if (problem || opt.verbose) {
        std::string meaning = !f->meaning.empty() ? f->meaning : (e ? std::string(e->meaning) : "");
        if (!meaning.empty()) out += Indent("meaning", meaning);
      }
      std::string decision = !f->decision.empty() ? f->decision : (e ? std::string(e->decision) : "");
      if (!decision.empty()) out += Indent("decision", decision);
    }
  }
  std::string verdict = VerdictLine(r);
  if (opt.color) verdict = std::string(Colour(r.verdict)) + verdict + "\033[0m";
  out += "\n" + verdict + "\n";
  return out;
}

}  // namespace gpuvet
