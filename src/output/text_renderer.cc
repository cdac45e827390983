// Text renderer. Layout is plain enough for `grep` and `less` and stable for golden tests.
#include "output/text_renderer.h"

#include <fmt/format.h>

#include <algorithm>
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
    for (const GpuState& gpu : g.gpus) {
      // A GPU NVML stopped answering for before its name was read was never asked, not nameless.
      std::string name = !gpu.name.empty() ? gpu.name
                         : gpu.abandoned   ? "not read (NVML hung)"
                                           : "unnamed GPU";
      ++models[name];
    }
    std::vector<std::string> parts;
    for (const auto& [name, n] : models) parts.push_back(fmt::format("{} × {}", n, name));
    std::string captured;
    if (g.from_capture && g.device_count.has() &&
        *g.device_count > static_cast<int>(g.gpus.size())) {
      captured = fmt::format(" (captured {} of {} attached)", g.gpus.size(), *g.device_count);
    }
    out += fmt::format("  GPUs:   {}{}\n", parts.empty() ? "none" : Join(parts, ", "), captured);
    std::string driver = g.driver_version.has()           ? *g.driver_version
                         : NotInCapture(g.driver_version) ? "not in the capture"
                                                          : "unknown";
    out += fmt::format(
        "  driver: {}{}   source: {}\n", driver,
        g.cuda_driver_version.has() ? ", CUDA " + FormatCudaVersion(*g.cuda_driver_version) : "",
        g.origin);
    // A capture's own time: the report's timestamp is when gpuvet ran, not when it was taken.
    if (g.from_capture && g.captured_at.has()) out += "  captured: " + *g.captured_at + "\n";
  } else if (g.state == GpuSourceState::kNotRun) {
    out += "  GPUs:   not checked\n";
  } else {
    out += fmt::format("  GPUs:   unavailable ({})\n", g.detail);
  }
  out += fmt::format("  policy: {}\n", r.policy_source);
  return out;
}

constexpr size_t kWidth = 100;    // wrap column
constexpr size_t kLabel = 10;     // "evidence  "
const std::string kPad(10, ' ');  // detail lines align with the finding id

// `text` after an optional label. Prose (meaning, decision) is word-wrapped with continuation lines
// aligned; data (summary, evidence) stays on one line, so output does not depend on the length of
// paths inside it.
std::string Block(const std::string& label, const std::string& text, bool wrap = false) {
  std::string lead = kPad + (label.empty() ? "" : fmt::format("{:<{}}", label, kLabel));
  if (!wrap) return lead + text + "\n";
  std::string hang(lead.size(), ' ');
  std::string out, line = lead;
  for (std::string_view word : SplitWhitespace(text)) {
    if (line.size() > lead.size() && line.size() + 1 + word.size() > kWidth) {
      out += line + "\n";
      line = hang;
    }
    if (line.size() > hang.size()) line += ' ';
    line += word;
  }
  return out + line + "\n";
}

// Subject without the PCI address ("gpu3 (0000:5d:00.0)" -> "gpu3") for grouped lines.
std::string ShortSubject(const std::string& s) { return s.substr(0, s.find(" (")); }

// "name=value; …". With `expected`, a threshold reads as what the check expects, not as a fact
// about the value: "current_gen=1 (expected == max_gen 5)".
std::string EvidenceText(const Finding& f, bool expected) {
  std::vector<std::string> ev;
  for (const Evidence& e : f.evidence) {
    ev.push_back(e.threshold.empty() ? fmt::format("{}={}", e.name, e.value)
                                     : fmt::format("{}={} ({}{})", e.name, e.value,
                                                   expected ? "expected " : "", e.threshold));
  }
  return Join(ev, "; ");
}

// Findings that say the same thing about several subjects are printed once.
struct Group {
  std::vector<const Finding*> members;
  const Finding& first() const { return *members.front(); }
};

std::vector<Group> GroupFindings(const std::vector<const Finding*>& list) {
  std::vector<Group> groups;
  for (const Finding* f : list) {
    bool merged = false;
    for (Group& g : groups) {
      const Finding& h = g.first();
      if (h.id == f->id && h.severity == f->severity && h.summary == f->summary &&
          h.decision == f->decision && h.meaning == f->meaning) {
        g.members.push_back(f);
        merged = true;
        break;
      }
    }
    if (!merged) groups.push_back(Group{{f}});
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return a.first().severity > b.first().severity;  // worst first within an area
  });
  return groups;
}

std::string SubjectOf(const Group& g) {
  if (g.members.size() == 1) return g.first().subject;
  std::vector<std::string> names;
  for (const Finding* f : g.members) names.push_back(ShortSubject(f->subject));
  return fmt::format("{} ({} subjects)", Join(names, ", "), g.members.size());
}

std::string RenderGroup(const Group& g, const TextOptions& opt) {
  const Finding& f = g.first();
  std::string out = fmt::format("  {} {}  {}\n", Tag(f.severity, opt.color), f.id, SubjectOf(g));
  out += Block("", f.summary);
  if (f.severity == Severity::kOk && !opt.verbose) return out;
  if (!f.evidence.empty()) {
    std::string ev = EvidenceText(f, opt.thresholds_are_expectations);
    if (g.members.size() > 1) ev = fmt::format("{}: {}", ShortSubject(f.subject), ev);
    out += Block("evidence", ev);
  }
  if (f.severity == Severity::kOk) return out;
  const CatalogueEntry* e = FindCatalogueEntry(f.id);
  bool problem = f.severity != Severity::kInfo;
  if (problem || opt.verbose) {
    std::string meaning = !f.meaning.empty() ? f.meaning : (e ? std::string(e->meaning) : "");
    if (!meaning.empty()) out += Block("meaning", meaning, /*wrap=*/true);
  }
  std::string decision = !f.decision.empty() ? f.decision : (e ? std::string(e->decision) : "");
  if (!decision.empty()) out += Block("decision", decision, /*wrap=*/true);
  return out;
}

std::string AreaLine(const std::string& area, const std::vector<const Finding*>& list) {
  std::map<Severity, int> counts;
  for (const Finding* f : list) ++counts[f->severity];
  std::vector<std::string> parts;
  for (Severity s :
       {Severity::kFail, Severity::kUnknown, Severity::kWarn, Severity::kInfo, Severity::kOk}) {
    if (counts[s]) parts.push_back(fmt::format("{} {}", counts[s], SeverityName(s)));
  }
  return fmt::format("{:<10}  {}\n", area, Join(parts, ", "));
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
  if (r.findings.empty()) {
    // Not "healthy": the selected checks found nothing to examine (e.g. --only numa, no GPU).
    return "verdict: NOTHING CHECKED (the selected checks found nothing to examine here)";
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

std::string RenderFindings(const std::vector<Finding>& findings, const TextOptions& opt) {
  std::string out;
  std::vector<std::string> areas;
  std::map<std::string, std::vector<const Finding*>> by_area;
  for (const Finding& f : findings) {
    std::string area = AreaOf(f);
    if (!by_area.count(area)) areas.push_back(area);
    by_area[area].push_back(&f);
  }
  for (const std::string& area : areas) {
    const auto& list = by_area[area];
    out += AreaLine(area, list);
    std::vector<const Finding*> shown;
    for (const Finding* f : list) {
      if (f->severity != Severity::kOk || opt.verbose) shown.push_back(f);
    }
    for (const Group& g : GroupFindings(shown)) out += RenderGroup(g, opt);
  }
  return out;
}

std::string RenderText(const CheckReport& r, const TextOptions& options) {
  TextOptions opt = options;
  opt.thresholds_are_expectations = true;  // every check threshold is what the check expects
  std::string out = Header(r) + "\n" + RenderFindings(r.findings, opt);
  std::string verdict = VerdictLine(r);
  if (opt.color) verdict = std::string(Colour(r.verdict)) + verdict + "\033[0m";
  out += "\n" + verdict + "\n";
  return out;
}

}  // namespace gpuvet
