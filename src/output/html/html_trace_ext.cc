// The reserved trace part of the HTML report (a "compare" object): a generic rendering of its
// JSON (see output/html/html_trace.h).
#include <string>

#include "output/html/html_trace.h"

namespace gpuvet::html {

std::string GenericJsonHtml(const nlohmann::json& value, int depth) {
  if (depth > 8) return "<span class=\"ext\">…</span>";
  if (value.is_object()) {
    std::string out = "<dl>";
    for (auto it = value.begin(); it != value.end(); ++it) {
      out += "<dt><code>" + Esc(it.key()) + "</code></dt><dd>" +
             GenericJsonHtml(it.value(), depth + 1) + "</dd>";
    }
    return out + "</dl>";
  }
  if (value.is_array()) {
    std::string out = "<ol>";
    size_t n = 0;
    for (const nlohmann::json& e : value) {
      if (++n > 200) {
        out += "<li class=\"ext\">" + std::to_string(value.size() - 200) + " more</li>";
        break;
      }
      out += "<li>" + GenericJsonHtml(e, depth + 1) + "</li>";
    }
    return out + "</ol>";
  }
  if (value.is_string()) return Esc(value.get<std::string>());
  if (value.is_number()) return Num(value.get<double>());
  return Esc(value.dump());
}

std::string TraceCompareHtml(const nlohmann::json& compare, const std::string& id) {
  return "<div id=\"" + Esc(id) + "\" class=\"extension\" data-extension=\"trace-compare\">" +
         "<h3>Comparison</h3>" + GenericJsonHtml(compare) + "</div>\n";
}

}  // namespace gpuvet::html
