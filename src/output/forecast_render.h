// The upgrade forecast as text and JSON, shared by the trace and analyze renderers, and the
// `--target list` table of the spec rows.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/forecast.h"

namespace gpuvet {

// The forecast block: a heading, one line per term (share, scale or range, basis), the speedup
// (a range whenever the inputs cannot tell what governs a part), the ceiling, what to fix first,
// why it is a range and what would narrow it, evidence, notes and sources. Ends with a newline.
std::string RenderForecastText(const UpgradeForecast& f);

// The forecast as a JSON object with "schema": "gpuvet.forecast/v1". "speedup" is null whenever
// "range" is true: only "speedup_low"/"speedup_high" are then meaningful.
nlohmann::json ForecastToJson(const UpgradeForecast& f);

// Every spec row with the figures the forecast uses, one per line, for `--target list`.
std::string RenderGpuSpecList();

}  // namespace gpuvet
