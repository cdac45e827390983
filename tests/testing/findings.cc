// Finding lookups for assertions (see findings.h). OnlyFinding reports a wrong count through
// EXPECT so a test shows every missing or doubled finding, not just the first.
#include "testing/findings.h"

#include <gtest/gtest.h>

namespace gpuvet::test {

namespace {

Finding OnlyOf(const std::vector<Finding>& matches, const std::string& what) {
  EXPECT_EQ(matches.size(), 1u) << "findings with " << what;
  return matches.empty() ? Finding{} : matches.front();
}

}  // namespace

std::vector<Finding> FindingsWithId(const std::vector<Finding>& findings, std::string_view id) {
  std::vector<Finding> out;
  for (const Finding& f : findings) {
    if (f.id == id) out.push_back(f);
  }
  return out;
}

int CountFindings(const std::vector<Finding>& findings, std::string_view id) {
  int n = 0;
  for (const Finding& f : findings) n += f.id == id;
  return n;
}

Finding OnlyFinding(const std::vector<Finding>& findings, std::string_view id) {
  return OnlyOf(FindingsWithId(findings, id), "id " + std::string(id));
}

Finding OnlyFinding(const std::vector<Finding>& findings, std::string_view id,
                    std::string_view subject) {
  std::vector<Finding> matches;
  for (const Finding& f : findings) {
    if (f.id == id && f.subject == subject) matches.push_back(f);
  }
  return OnlyOf(matches, "id " + std::string(id) + " about " + std::string(subject));
}

std::string EvidenceValue(const Finding& finding, std::string_view name) {
  for (const Evidence& e : finding.evidence) {
    if (e.name == name) return e.value;
  }
  return "<absent>";
}

}  // namespace gpuvet::test
