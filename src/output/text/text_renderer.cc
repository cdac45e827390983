// Text renderer. Layout is plain enough for `grep` and `less` and stable for golden tests.
#include "output/text/text_renderer.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/catalogue.h"
#include "core/gpu_owner.h"
#include "output/text/severity_colour.h"
#include "util/strings.h"

namespace gpuvet {

namespace {

std::string Tag(Severity s, bool color) {
  std::string name(SeverityName(s));
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string padded = fmt::format("{:<7}", name);
  return PaintSeverity(padded, s, color);
}

// Who is on the GPUs, one line per GPU and owner; nothing when no GPU lists a process.
std::string OwnersBlock(const CheckReport& r) {
  std::string out;
  const char* lead = "  owners: ";
  for (const GpuState& gpu : r.gpus.gpus) {
    for (const GpuOwnerGroup& g : GpuOwnerGroups(gpu, r.host.gpu_process_owners)) {
      std::vector<std::string> pids;
      for (uint32_t pid : g.pids) pids.push_back(std::to_string(pid));
      std::string who = DescribeOwner(g);
      std::string procs = fmt::format("{}{} {}", g.comms.empty() ? "" : Join(g.comms, ", ") + " ",
                                      g.pids.size() == 1 ? "pid" : "pids", Join(pids, ", "));
      if (who.empty() || who.front() == '(') {
        who = procs + (who.empty() ? "" : " " + who);
        if (!g.note.empty()) who += " — owner unknown: " + g.note;
      } else {
        who += ": " + procs;
      }
      out += fmt::format("{}gpu{:<3} {}\n", lead, gpu.index, who);
      lead = "          ";
    }
  }
  return out;
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
    if (g.from_capture) {
      // The capture's own clock (its host's local time), not when this check ran.
      std::string taken = g.captured_at.has() ? *g.captured_at + " (the capture's timestamp)"
                          : NotInCapture(g.captured_at) ? "not in the capture"
                                                        : "unknown";
      out += fmt::format("  taken:  {}\n", taken);
    }
  } else if (g.state == GpuSourceState::kNotRun) {
    out += "  GPUs:   not checked\n";
  } else {
    out += fmt::format("  GPUs:   unavailable ({})\n", g.detail);
  }
  out += fmt::format("  policy: {}\n", r.policy_source);
  out += OwnersBlock(r);
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

// Whether the identity line says more than the subject: a serial or UUID was read. A function
// NVML never answered for is named by its address alone, which the subject already carries.
bool HasIdentity(const std::optional<FindingGpu>& g) {
  return g && (!g->serial.empty() || !g->uuid.empty());
}

// "gpu0" for the identity line's label; "gpu" for a function NVML did not list.
std::string GpuLabel(const FindingGpu& g) {
  return g.index >= 0 ? fmt::format("gpu{}", g.index) : std::string("gpu");
}

// "pci 0000:41:00.0; serial 1321021035911; uuid GPU-…": what an RMA or a scheduler asks for. A
// finding about the GPU's upstream bridge says so, so the GPU's address is not read as the
// faulty link's.
std::string GpuIdentityText(const FindingGpu& g, const std::string& subject) {
  std::string out =
      fmt::format("pci {}; serial {}; uuid {}", g.pci_bus_id.empty() ? "unknown" : g.pci_bus_id,
                  g.serial.empty() ? "unknown" : g.serial, g.uuid.empty() ? "unknown" : g.uuid);
  if (size_t at = subject.find("upstream bridge"); at != std::string::npos) {
    out += "; the finding is about its " + subject.substr(at);
  }
  return out;
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
  // Each subject keeps its own identity and evidence: a group says the same thing about several
  // GPUs, but their addresses, serials and figures differ.
  const bool grouped = g.members.size() > 1;
  for (const Finding* m : g.members) {
    const bool named = HasIdentity(m->gpu);
    if (named) out += Block(GpuLabel(*m->gpu), GpuIdentityText(*m->gpu, m->subject));
    if (m->evidence.empty()) continue;
    std::string ev = EvidenceText(*m, opt.thresholds_are_expectations);
    if (grouped && !named) ev = fmt::format("{}: {}", ShortSubject(m->subject), ev);
    out += Block("evidence", ev);
  }
  if (f.severity == Severity::kOk) return out;
  const CatalogueEntry* e = FindCatalogueEntry(f.id);
  bool problem = f.severity != Severity::kInfo;
  if (problem || opt.verbose) {
    std::string meaning = !f.meaning.empty() ? f.meaning : (e ? std::string(e->meaning) : "");
    if (!meaning.empty()) out += Block("meaning", meaning, /*wrap=*/true);
  }
  std::string decision =
      !f.decision.empty() ? f.decision : std::string(CatalogueDecision(f.id, f.severity));
  if (!decision.empty()) out += Block("decision", decision, /*wrap=*/true);
  return out;
}

// The fields a capture-gap finding lacked, read from its summary ("power limit unknown:
// power_limit_w: field not in the capture; …" gives power_limit_w) or its evidence
// ("ecc_mode/current_ecc=absent from the capture"); the check id when neither names one.
std::vector<std::string> MissingFields(const Finding& f) {
  constexpr std::string_view kMarker = ": field not in the capture";
  std::vector<std::string> fields;
  for (std::string_view part : Split(f.summary, ';')) {
    part = Trim(part);
    size_t at = part.find(kMarker);
    if (at == std::string_view::npos) continue;
    std::string_view name = part.substr(0, at);
    if (size_t colon = name.rfind(": "); colon != std::string_view::npos) {
      name = name.substr(colon + 2);
    }
    if (StartsWith(name, "gpu ")) name.remove_prefix(4);  // the GPU end of a link, not a bridge
    if (!name.empty()) fields.emplace_back(name);
  }
  if (fields.empty()) {
    for (const Evidence& e : f.evidence) {
      if (e.value.find("capture") != std::string::npos) fields.push_back(e.name);
    }
  }
  if (fields.empty()) fields.push_back(f.id);
  return fields;
}

// Unknowns that are unknown only because the capture lacks their fields say the same thing ten
// times over; they are printed once, with every field and check they stand for.
std::string RenderCaptureGaps(const std::vector<const Finding*>& gaps, const TextOptions& opt) {
  std::vector<std::string> fields, checks, subjects;
  std::vector<const Finding*> gpus;  // one per subject, for the identity lines
  auto add = [](std::vector<std::string>& list, const std::string& v) {
    if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
  };
  for (const Finding* f : gaps) {
    for (const std::string& field : MissingFields(*f)) add(fields, field);
    add(checks, f->id);
    if (std::find(subjects.begin(), subjects.end(), f->subject) == subjects.end()) {
      subjects.push_back(f->subject);
      gpus.push_back(f);
    }
  }
  std::string subject = subjects.front();
  if (subjects.size() > 1) {
    std::vector<std::string> names;
    for (const std::string& s : subjects) names.push_back(ShortSubject(s));
    subject = fmt::format("{} ({} subjects)", Join(names, ", "), subjects.size());
  }
  const Finding& f = *gaps.front();
  std::string out = fmt::format("  {} {}  {}\n", Tag(Severity::kUnknown, opt.color),
                                "not in the capture", subject);
  out += Block("", fmt::format("{} checks not judged, the capture lacks their fields: {}",
                               checks.size(), Join(fields, ", ")));
  for (const Finding* g : gpus) {
    if (HasIdentity(g->gpu)) out += Block(GpuLabel(*g->gpu), GpuIdentityText(*g->gpu, g->subject));
  }
  out += Block("checks", Join(checks, ", "));
  if (!f.meaning.empty()) out += Block("meaning", f.meaning, /*wrap=*/true);
  if (!f.decision.empty()) out += Block("decision", f.decision, /*wrap=*/true);
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
    std::string area = AreaOf(f.id);
    if (!by_area.count(area)) areas.push_back(area);
    by_area[area].push_back(&f);
  }
  std::vector<const Finding*> gaps;
  for (const Finding& f : findings) {
    if (f.not_in_capture && f.severity == Severity::kUnknown) gaps.push_back(&f);
  }
  const bool fold = gaps.size() >= 2;  // one alone is printed where it belongs
  for (const std::string& area : areas) {
    const auto& list = by_area[area];
    out += AreaLine(area, list);
    std::vector<const Finding*> shown;
    for (const Finding* f : list) {
      if (fold && f->not_in_capture && f->severity == Severity::kUnknown) continue;
      if (f->severity != Severity::kOk || opt.verbose) shown.push_back(f);
    }
    for (const Group& g : GroupFindings(shown)) out += RenderGroup(g, opt);
  }
  if (fold) {
    out += fmt::format("{:<10}  the {} unknowns above: their fields are not in the capture\n",
                       "capture", gaps.size());
    out += RenderCaptureGaps(gaps, opt);
  }
  return out;
}

std::string RenderText(const CheckReport& r, const TextOptions& options) {
  TextOptions opt = options;
  opt.thresholds_are_expectations = true;  // every check threshold is what the check expects
  std::string out = Header(r) + "\n" + RenderFindings(r.findings, opt);
  std::string verdict = VerdictLine(r);
  verdict = PaintSeverity(verdict, r.verdict, opt.color);
  out += "\n" + verdict + "\n";
  return out;
}

}  // namespace gpuvet
