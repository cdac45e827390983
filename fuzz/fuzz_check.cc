// Fuzz helper: the check pipeline a parsed input must survive (see fuzz_support.h).
#include <cstdlib>
#include <string>

#include "core/policy.h"
#include "fuzz_support.h"
#include "output/json/json_renderer.h"
#include "output/metrics/metrics_renderer.h"
#include "output/text/text_renderer.h"
#include "rules/rules.h"

namespace gpuvet::fuzz {

void JudgeAndRender(CheckReport& report) {
  static const Policy policy;
  report.generated_at = "2026-01-01T00:00:00Z";
  report.policy_source = policy.source;
  CheckInput input{report.host, report.gpus};
  report.findings = RunRules(input, policy);
  report.verdict = WorstSeverity(report.findings);
  std::string json = RenderJson(report);
  TextOptions text;
  text.verbose = true;
  std::string plain = RenderText(report, text);
  std::string prom = RenderCheckTextfile(report, 1.7e9);
  if (json.empty() || plain.empty() || prom.empty()) std::abort();
}

}  // namespace gpuvet::fuzz
