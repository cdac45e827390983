// The `gpuvet report` page (output/html/html_report.h).
#include "output/html/html_report.h"

#include "output/html/html_analyze.h"
#include "output/html/html_bench.h"
#include "output/html/html_check.h"
#include "output/html/html_fleet.h"
#include "output/html/html_trace.h"
#include "output/html/html_trace_compare.h"

namespace gpuvet::html {
namespace {

// "gpuvet.check/v1, gpuvet.bench/v1, …" for error messages.
std::string SchemaList() {
  std::string out;
  for (const char* schema : kReportSchemas) out += (out.empty() ? "" : ", ") + std::string(schema);
  return out;
}

std::string NextId(const std::string& kind, std::map<std::string, int>& ids) {
  int n = ++ids[kind];
  return n == 1 ? kind : kind + std::to_string(n);
}

}  // namespace

Result<Section> SectionFromDocument(const nlohmann::json& doc, const std::string& what,
                                    const Timeline* timeline, std::map<std::string, int>& ids) {
  if (!doc.is_object()) {
    return InvalidInput(what + ": not a gpuvet report (the document is a " +
                        std::string(doc.type_name()) + ", not an object)");
  }
  auto it = doc.find("schema");
  if (it == doc.end() || !it->is_string()) {
    return InvalidInput(what + ": not a gpuvet report (no \"schema\" key); expected one of " +
                        SchemaList());
  }
  const std::string schema = it->get<std::string>();
  const std::string named = what + " (" + schema + ")";
  Result<Section> out = InvalidInput("");
  if (schema == kCheckSchema) {
    Result<CheckView> v = ReadCheckView(doc, named);
    if (!v.ok()) return v.status();
    out = CheckSection(*v, NextId("check", ids));
  } else if (schema == kBenchSchema) {
    Result<BenchView> v = ReadBenchView(doc, named);
    if (!v.ok()) return v.status();
    out = BenchSection(*v, NextId("bench", ids));
  } else if (schema == kTraceSchema) {
    Result<TraceView> v = ReadTraceView(doc, named);
    if (!v.ok()) return v.status();
    out = TraceSection(*v, NextId("trace", ids));
  } else if (schema == kTraceCompareSchema) {
    Result<TraceCompareView> v = ReadTraceCompareView(doc, named);
    if (!v.ok()) return v.status();
    out = TraceCompareSection(*v, NextId("trace-compare", ids));
  } else if (schema == kAnalyzeSchema) {
    Result<AnalyzeView> v = ReadAnalyzeView(doc, named);
    if (!v.ok()) return v.status();
    out = AnalyzeSection(*v, timeline, NextId("analyze", ids));
  } else if (schema == kFleetSchema) {
    Result<FleetView> v = ReadFleetView(doc, named);
    if (!v.ok()) return v.status();
    out = FleetSection(*v, NextId("fleet", ids));
  } else {
    return InvalidInput(what + ": schema \"" + schema + "\" is not one gpuvet report reads (" +
                        SchemaList() + ")");
  }
  Section s = std::move(out).value();
  if (s.source.empty()) s.source = what;
  return s;
}

Result<Section> SectionFromJsonText(const std::string& text, const std::string& what,
                                    const Timeline* timeline, std::map<std::string, int>& ids) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    // Find the byte for the message: parse again with exceptions, caught here only.
    std::string where;
    try {
      nlohmann::json again = nlohmann::json::parse(text);
      (void)again;
    } catch (const nlohmann::json::parse_error& e) {
      where = " (byte " + std::to_string(e.byte) + ")";
    } catch (const nlohmann::json::exception& e) {
      where = std::string(" (") + e.what() + ")";  // a number out of range, found by mutation
    }
    return InvalidInput(what + ": not JSON" + where);
  }
  return SectionFromDocument(doc, what, timeline, ids);
}

std::string RenderReportPage(const std::vector<Section>& sections,
                             const std::string& generated_at) {
  std::string title = "gpuvet report";
  if (sections.size() == 1) title += ": " + sections.front().verdict.headline;
  std::string out = PageStart(title);
  out += "<header id=\"top\"><h1>gpuvet report</h1><div class=\"meta\">generated " +
         Esc(generated_at) + " · " + std::to_string(sections.size()) + " input" +
         (sections.size() == 1 ? "" : "s") + "</div></header>\n";
  out += "<section id=\"verdicts\">\n";
  for (const Section& s : sections) {
    out += "<div class=\"meta\"><a href=\"#" + Esc(s.id) + "\">" + Esc(s.title) + "</a> — " +
           Esc(s.source) + "</div>\n";
    out += VerdictBox(s.id + "-verdict", s.verdict);
  }
  out += "</section>\n";
  for (const Section& s : sections) {
    out += "<section id=\"" + Esc(s.id) + "\" class=\"kind-" + Esc(s.kind) + "\"><h2>" +
           Esc(s.title) + "</h2>\n" + s.body + "</section>\n";
  }
  out +=
      "<footer class=\"meta\">Colours follow the Okabe–Ito palette; every severity is also "
      "written out. No JavaScript is needed to read this page; with it, line charts show "
      "values on hover.</footer>\n";
  out += PageEnd();
  return out;
}

Result<std::string> RenderHtmlFromJson(const std::string& json_text, const std::string& what,
                                       const Timeline* timeline, const std::string& generated_at) {
  std::map<std::string, int> ids;
  Result<Section> s = SectionFromJsonText(json_text, what, timeline, ids);
  if (!s.ok()) return s.status();
  return RenderReportPage({*s}, generated_at);
}

}  // namespace gpuvet::html
