// The upgrade forecast in the HTML report (output/html/html_forecast.h).
#include "output/html/html_forecast.h"

#include "output/html/html_page.h"

namespace gpuvet::html {

ForecastView ReadForecastView(DocReader& r, const Node& f) {
  ForecastView fc;
  fc.subject = r.OptStr(f, "subject").value_or("");
  fc.current = r.Str(f, "current");
  fc.target = r.Str(f, "target");
  fc.summary = r.Str(f, "summary");
  fc.first_change = r.OptStr(f, "first_change").value_or("");
  fc.speedup = r.OptNum(f, "speedup");
  fc.speedup_low = r.OptNum(f, "speedup_low");
  fc.speedup_high = r.OptNum(f, "speedup_high");
  fc.max_speedup = r.OptNum(f, "max_speedup");
  fc.range_reason = r.OptStr(f, "range_reason").value_or("");
  fc.narrow_by = r.OptStr(f, "narrow_by").value_or("");
  for (const Node& t : r.OptArr(f, "terms")) {
    ForecastView::Term term{r.Str(t, "part"),         r.OptStr(t, "basis").value_or(""),
                            r.Num(t, "share_pct"),    r.OptNum(t, "scale").value_or(1),
                            r.OptNum(t, "scale_low"), r.OptNum(t, "scale_high")};
    fc.terms.push_back(std::move(term));
  }
  if (f.json->contains("notes")) fc.notes = r.StrArr(f, "notes");
  fc.sources = r.StrArr(f, "sources");
  return fc;
}

std::string ForecastHtml(const ForecastView& f, const std::string& id) {
  const bool range = f.speedup_low && f.speedup_high && *f.speedup_low != *f.speedup_high;
  std::string figure;
  if (f.speedup) {
    figure = "speedup " + Num(*f.speedup) + "x";
  } else if (f.speedup_low && f.speedup_high) {
    figure = "speedup " + Num(*f.speedup_low) + "x–" + Num(*f.speedup_high) + "x";
  }
  if (f.max_speedup) {
    figure += (figure.empty() ? "" : ", ") + ("at most " + Num(*f.max_speedup) + "x");
  }
  std::string b =
      "<p><b>" + Esc(f.summary) + "</b>" + (figure.empty() ? "" : " (" + figure + ")") + "</p>\n";
  if (range && !f.range_reason.empty()) {
    b += "<p>A range: " + Esc(f.range_reason) + "." +
         (f.narrow_by.empty() ? "" : " Narrowed by: " + Esc(f.narrow_by) + ".") + "</p>\n";
  }
  if (!f.terms.empty()) {
    WaterfallSpec w{id,
                    "Upgrade forecast " + f.current + " → " + f.target +
                        (range ? " (the range's slower end)" : ""),
                    {}};
    for (const ForecastView::Term& t : f.terms) {
      double scale = range && t.scale_high ? *t.scale_high : t.scale;
      w.terms.push_back({t.part, t.share_pct, t.share_pct * scale});
    }
    b += Waterfall(w);
    std::vector<std::vector<std::string>> rows;
    for (const ForecastView::Term& t : f.terms) {
      std::string scale = Num(t.scale);
      if (t.scale_low && t.scale_high && *t.scale_low != *t.scale_high) {
        scale = Num(*t.scale_low) + "–" + Num(*t.scale_high);
      }
      rows.push_back({t.part, Num(t.share_pct), scale, t.basis});
    }
    b += Table(id + "-terms", {"part", "share % now", "scale on target", "basis"}, rows);
  }
  if (!f.first_change.empty()) b += "<p><b>First:</b> " + Esc(f.first_change) + "</p>\n";
  for (const std::string& n : f.notes) b += "<p class=\"note\">" + Esc(n) + "</p>\n";
  if (!f.sources.empty()) {
    b += "<details><summary>spec sources</summary><ul>";
    for (const std::string& src : f.sources) b += "<li>" + Esc(src) + "</li>";
    b += "</ul></details>\n";
  }
  return b;
}

}  // namespace gpuvet::html
