// The upgrade forecast (`gpuvet.forecast/v1`, core/forecast) in the HTML report, shared by the
// analyze section (one forecast of the recording) and the trace section (one per rank or steady
// state): the document read back into a view (strict, errors name the path) and its rendering —
// the summary with the speedup or its range and why, the waterfall of what each part becomes on
// the target, the terms with their scale and basis, what to fix first and the spec sources.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "output/html/html_doc.h"

namespace gpuvet::html {

struct ForecastView {
  std::string subject;  // "rank 0" in a trace; empty in a recording
  std::string current, target, summary, first_change;
  // One figure, or (an uncertain class: GPU-Util only, an unknown precision) a low–high range
  // and why; neither when the source GPU is unknown.
  std::optional<double> speedup, speedup_low, speedup_high, max_speedup;
  std::string range_reason, narrow_by;
  struct Term {
    std::string part, basis;
    double share_pct = 0, scale = 1;
    std::optional<double> scale_low, scale_high;  // a range's ends
  };
  std::vector<Term> terms;
  std::vector<std::string> notes, sources;
};

// Reads the forecast object at `f` (errors recorded in `r`).
ForecastView ReadForecastView(DocReader& r, const Node& f);

// The forecast as HTML: its waterfall is the chart `<id>` and its terms the table `<id>-terms`.
// A range is drawn at its slower end (each part's larger scale); the table gives both ends.
std::string ForecastHtml(const ForecastView& f, const std::string& id);

}  // namespace gpuvet::html
