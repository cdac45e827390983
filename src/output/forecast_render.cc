// Forecast renderers. Numbers are rounded at the edge only: scales to 4 places, shares and
// speedups to 2, so goldens stay stable.
#include "output/forecast_render.h"

#include <fmt/format.h>

#include <cmath>

#include "core/hw/gpu_specs.h"

namespace gpuvet {

namespace {

using nlohmann::json;

double R2(double v) { return std::isfinite(v) ? std::round(v * 100.0) / 100.0 : 0.0; }
double R4(double v) { return std::isfinite(v) ? std::round(v * 10000.0) / 10000.0 : 0.0; }

std::string ScaleText(const ForecastTerm& t) {
  if (t.scale_high > t.scale_low * 1.001) {
    return fmt::format("x{:.2f}-{:.2f}", t.scale_low, t.scale_high);
  }
  return fmt::format("x{:.2f}", t.scale);
}

}  // namespace

std::string RenderForecastText(const UpgradeForecast& f) {
  std::string out =
      fmt::format("upgrade forecast{}: {} -> {}", f.subject.empty() ? "" : " (" + f.subject + ")",
                  f.current, f.target);
  if (!f.current_from.empty()) out += fmt::format(" (source GPU from {})", f.current_from);
  out += "\n";
  for (const ForecastTerm& t : f.terms) {
    if (t.share_pct < 0.05) continue;  // in the JSON; too small to read here
    out += fmt::format("  {:<20} {:>5.1f} %  {:<11} {}\n", t.part, t.share_pct,
                       f.computed ? ScaleText(t) : "-", t.basis);
  }
  if (f.computed) {
    out += fmt::format("  estimated speedup: {}", SpeedupText(f));
    if (f.range) out += " (a range: the inputs cannot tell what limits part of the time)";
    out += "\n";
    out += f.max_speedup > 0
               ? fmt::format("  ceiling: any GPU, however fast, at most {:.2f}x\n", f.max_speedup)
               : std::string("  ceiling: none: every part of the time is GPU-side\n");
  }
  if (!f.computed) out += "  " + f.summary + "\n";
  if (!f.range_reason.empty()) out += "  why a range: " + f.range_reason + "\n";
  if (!f.narrow_by.empty()) out += "  would narrow it: " + f.narrow_by + "\n";
  for (const std::string& e : f.evidence) out += "  evidence: " + e + "\n";
  if (!f.first_change.empty()) out += "  first: " + f.first_change + "\n";
  for (const std::string& n : f.notes) out += "  assumes: " + n + "\n";
  for (const std::string& s : f.sources) out += "  source: " + s + "\n";
  return out;
}

json ForecastToJson(const UpgradeForecast& f) {
  json terms = json::array();
  for (const ForecastTerm& t : f.terms) {
    terms.push_back({{"part", t.part},
                     {"share_pct", R2(t.share_pct)},
                     {"scale", R4(t.scale)},
                     {"scale_low", R4(t.scale_low)},
                     {"scale_high", R4(t.scale_high)},
                     {"fixed", t.fixed},
                     {"basis", t.basis}});
  }
  auto opt = [&](double v, bool ok) { return ok ? json(R2(v)) : json(nullptr); };
  json j = {{"schema", kForecastSchema},
            {"current", f.current},
            {"current_known", f.current_known},
            {"current_from", f.current_from},
            {"target", f.target},
            {"computed", f.computed},
            {"window_s", R4(f.window_s)},
            {"range", f.range},
            {"speedup", opt(f.speedup, f.computed && !f.range)},
            {"speedup_low", opt(f.speedup_low, f.computed)},
            {"speedup_high", opt(f.speedup_high, f.computed)},
            {"max_speedup", opt(f.max_speedup, f.computed && f.max_speedup > 0)},
            {"terms", terms},
            {"summary", f.summary},
            {"first_change", f.first_change},
            {"range_reason", f.range_reason},
            {"narrow_by", f.narrow_by},
            {"evidence", f.evidence},
            {"notes", f.notes},
            {"sources", f.sources}};
  if (!f.subject.empty()) j["subject"] = f.subject;
  return j;
}

std::string RenderGpuSpecList() {
  std::string out =
      fmt::format("{:<16} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} {:>14} {:>10}\n", "GPU", "FP32",
                  "TF32", "BF16", "FP16", "FP8", "GB/s", "host link", "NVLink");
  for (const GpuSpec& s : GpuSpecs()) {
    std::string link_name;
    double link = HostLinkGbps(s, &link_name);
    std::string nv = s.nvlink_gen > 0 ? fmt::format("{} {:g}", s.nvlink_gen, s.nvlink_gbps) : "-";
    auto v = [](double x) { return x > 0 ? fmt::format("{:g}", x) : std::string("-"); };
    out += fmt::format(
        "{:<16} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7g} {:>14} {:>10}\n", s.key, v(s.fp32_tflops),
        v(s.tf32_tflops), v(s.bf16_tflops), v(s.fp16_tflops), v(s.fp8_tflops), s.memory_gbps,
        fmt::format("{} {:.0f}", link_name == "NVLink-C2C" ? "C2C" : link_name.substr(5), link),
        nv);
  }
  out +=
      "dense tensor TFLOPS (FP32: CUDA cores), memory GB/s, host link GB/s per direction, NVLink "
      "generation and GB/s per GPU (both directions); sources: datasheets, see "
      "docs/forecast.md\n";
  return out;
}

}  // namespace gpuvet
