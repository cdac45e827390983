// Terminal rendering of a check report: a header naming the node, findings grouped by area with
// problems first and in full (evidence, meaning, decision), passed checks condensed unless
// verbose, and a one-line verdict a human or a log grep can act on.
#pragma once

#include <string>

#include "core/report.h"

namespace gpuvet {

struct TextOptions {
  bool color = false;    // ANSI colours (callers decide: TTY and NO_COLOR)
  bool verbose = false;  // list every ok finding and the meaning of every problem
  // Evidence thresholds are what the check expects ("current_gen=1 (expected == max_gen 5)"), as
  // in `gpuvet check` (RenderText sets it); off, they print bare ("(>= 60.0 %)"), as the trace
  // verdict's classification criteria, which are not expectations, need.
  bool thresholds_are_expectations = false;
};

std::string RenderText(const CheckReport& report, const TextOptions& options);

// The findings section alone: findings grouped by area with per-area counts, problems in full,
// passed checks condensed unless verbose. Shared by every report that carries findings.
std::string RenderFindings(const std::vector<Finding>& findings, const TextOptions& options);

// The final verdict line alone, e.g. "verdict: UNHEALTHY (1 fail, 2 warn, 40 ok)".
std::string VerdictLine(const CheckReport& report);

}  // namespace gpuvet
