// Subjects of the per-rank analyses (analyze.cc): how a rank is named in findings and output,
// including the process/device parts of a split multi-process Nsight export.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/trace/analyze.h"
#include "testing/trace_builder_for_test.h"

namespace gpuvet {
namespace {

RankTrace Part(int rank, const std::string& part) {
  TraceBuilder b;
  for (int i = 0; i < 100; ++i) b.Launched("ampere_sgemm", i * 20, 2, i * 20 + 3, 15);
  RankTrace t = b.Build();
  t.source = "/runs/job.sqlite";
  t.rank = rank;
  t.part = part;
  return t;
}

std::vector<std::string> Subjects(const TraceReport& r) {
  std::vector<std::string> out;
  for (const RankAnalysis& a : r.ranks) out.push_back(a.subject);
  return out;
}

TEST(AnalyzeSubjectTest, SplitExportPartsNameProcessAndDevice) {
  TraceReport r =
      AnalyzeTraces({Part(-1, "pid 100, device 0"), Part(-1, "pid 200, device 1")}, TraceOptions{});
  EXPECT_EQ(Subjects(r), (std::vector<std::string>{"job.sqlite (pid 100, device 0)",
                                                   "job.sqlite (pid 200, device 1)"}));
  // Every finding names its part, so the two timelines are never merged in the report.
  for (const Finding& f : r.findings) {
    EXPECT_NE(f.subject.find("pid "), std::string::npos) << f.id << ": " << f.subject;
  }
}

TEST(AnalyzeSubjectTest, RankedPartsAndPlainRanks) {
  TraceReport r = AnalyzeTraces({Part(0, ""), Part(1, "device 1")}, TraceOptions{});
  EXPECT_EQ(Subjects(r), (std::vector<std::string>{"rank 0", "rank 1 (device 1)"}));
  // Two inputs claiming one rank: the file and the part both say which is which.
  TraceReport dup = AnalyzeTraces({Part(0, "device 0"), Part(0, "")}, TraceOptions{});
  EXPECT_EQ(Subjects(dup),
            (std::vector<std::string>{"rank 0 (job.sqlite, device 0)", "rank 0 (job.sqlite)"}));
}

}  // namespace
}  // namespace gpuvet
