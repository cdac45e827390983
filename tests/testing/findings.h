// Lookups over the findings a rule emitted, for assertions: the findings with an id, the only one
// (failing the test when there is not exactly one), and an evidence value by name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"

namespace gpuvet::test {

// The findings with `id`, in emission order.
std::vector<Finding> FindingsWithId(const std::vector<Finding>& findings, std::string_view id);

// How many findings have `id`.
int CountFindings(const std::vector<Finding>& findings, std::string_view id);

// The only finding with `id`; adds a gtest failure (and returns the first, or an empty Finding)
// when there is not exactly one.
Finding OnlyFinding(const std::vector<Finding>& findings, std::string_view id);

// The only finding with `id` about `subject` ("gpu0 (0000:3b:00.0)"); as above otherwise.
Finding OnlyFinding(const std::vector<Finding>& findings, std::string_view id,
                    std::string_view subject);

// The value of the evidence named `name`, or "<absent>" when the finding has none.
std::string EvidenceValue(const Finding& finding, std::string_view name);

}  // namespace gpuvet::test
