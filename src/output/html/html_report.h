// The `gpuvet report` page: any gpuvet JSON document (gpuvet.check/v1, bench/v1, trace/v1,
// trace_compare/v1, analyze/v1, fleet/v1) read back by its kind's reader and rendered by its
// kind's section (output/html/html_check, html_bench, html_trace, html_trace_compare, html_analyze,
// html_fleet), several inputs on one page. The verdict boxes of every input come first, so "what is
// wrong and what do I do" is above the fold; the sections follow. One self-contained file: inline
// CSS and SVG, no request.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/analyze_report.h"
#include "core/bench.h"
#include "core/fleet.h"
#include "core/report.h"
#include "core/trace/trace_compare.h"
#include "core/trace/trace_report.h"
#include "output/html/html_section.h"
#include "output/html/html_timeline.h"
#include "util/status.h"

namespace gpuvet::html {

// The schemas a report reads, in the order error messages list them.
inline constexpr const char* kReportSchemas[] = {kCheckSchema,        kBenchSchema,   kTraceSchema,
                                                 kTraceCompareSchema, kAnalyzeSchema, kFleetSchema};

// Reads one parsed document and builds its section. `what` names the input in errors;
// `timeline` is used for analyze documents (the recording's samples), ignored otherwise.
// `ids` counts sections per kind so a second input of a kind gets "check2", … Errors: not an
// object, no or unknown "schema", a document that does not match its schema.
Result<Section> SectionFromDocument(const nlohmann::json& doc, const std::string& what,
                                    const Timeline* timeline, std::map<std::string, int>& ids);

// Parses JSON text (the output of a JSON renderer or a file) and builds its section; a parse
// error names the byte.
Result<Section> SectionFromJsonText(const std::string& text, const std::string& what,
                                    const Timeline* timeline, std::map<std::string, int>& ids);

// The page: verdicts first, then each section. `generated_at` is shown in the header.
std::string RenderReportPage(const std::vector<Section>& sections, const std::string& generated_at);

// One JSON document's page: what the `--html FILE` flags of check, bench, trace (also with
// --compare), analyze and record write (they render their report as JSON first, so the page and the
// JSON agree).
Result<std::string> RenderHtmlFromJson(const std::string& json_text, const std::string& what,
                                       const Timeline* timeline, const std::string& generated_at);

}  // namespace gpuvet::html
