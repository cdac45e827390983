// The bottleneck table: sorted, unique, every enum value named, every sub-case under one label,
// lookups by "label" and "label/subcase", and decisions falling back to the label's row.
#include "core/bottleneck.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

namespace gpuvet {
namespace {

TEST(BottleneckTest, SortedUniqueAndWritten) {
  auto rows = Bottlenecks();
  ASSERT_FALSE(rows.empty());
  std::set<std::string_view> ids;
  for (size_t i = 0; i < rows.size(); ++i) {
    const BottleneckInfo& b = rows[i];
    EXPECT_TRUE(ids.insert(b.id).second) << "duplicate id " << b.id;
    if (i > 0) {
      EXPECT_LT(rows[i - 1].id, b.id) << "table must stay sorted by id";
    }
    EXPECT_FALSE(b.title.empty()) << b.id;
    EXPECT_GT(b.meaning.size(), 40u) << b.id;
    EXPECT_GT(b.evidence.size(), 20u) << b.id;
    EXPECT_GT(b.decision.size(), 20u) << b.id;
    EXPECT_FALSE(b.emitted_by.empty()) << b.id;
    // The id is the label's name, then "/" and the sub-case's for a sub-case row.
    std::string want(BottleneckName(b.label));
    if (b.subcase != Subcase::kNone) want += "/" + std::string(SubcaseName(b.subcase));
    EXPECT_EQ(b.id, want);
    EXPECT_EQ(FindBottleneckRow(b.label, b.subcase), &b) << b.id;
  }
}

TEST(BottleneckTest, EveryLabelAndSubcaseHasARow) {
  for (int i = 0; i < kBottleneckCount; ++i) {
    Bottleneck label = static_cast<Bottleneck>(i);
    const BottleneckInfo* row = FindBottleneckRow(label, Subcase::kNone);
    ASSERT_NE(row, nullptr) << "label " << i << " has no row of its own";
    EXPECT_EQ(row->id.find('/'), std::string_view::npos) << row->id;
  }
  for (int i = 1; i < kSubcaseCount; ++i) {
    Subcase sub = static_cast<Subcase>(i);
    int labels = 0;
    for (const BottleneckInfo& b : Bottlenecks()) labels += b.subcase == sub;
    EXPECT_EQ(labels, 1) << "sub-case " << i << " must belong to exactly one label";
    EXPECT_FALSE(SubcaseName(sub).empty()) << i;
    EXPECT_EQ(FindSubcase(SubcaseName(sub)), sub);
  }
  EXPECT_EQ(SubcaseName(Subcase::kNone), "");
  EXPECT_EQ(FindSubcase(""), Subcase::kNone);
  EXPECT_EQ(FindSubcase("nope"), std::nullopt);
}

TEST(BottleneckTest, LookupByIdAndPair) {
  const BottleneckInfo* label = FindBottleneck("host_cpu_bound");
  ASSERT_NE(label, nullptr);
  EXPECT_EQ(label->label, Bottleneck::kHostCpuBound);
  EXPECT_EQ(label->subcase, Subcase::kNone);
  const BottleneckInfo* sub = FindBottleneck("host_cpu_bound/cpu_quota");
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->subcase, Subcase::kCpuQuota);
  EXPECT_EQ(FindBottleneck("host_cpu_bound/nope"), nullptr);
  EXPECT_EQ(FindBottleneck("cpu_quota"), nullptr);
  EXPECT_EQ(FindBottleneckRow(Bottleneck::kHostCpuBound, Subcase::kThermal), nullptr);
  EXPECT_EQ(BottleneckName(Bottleneck::kPeriodicStall), "periodic_stall");
  EXPECT_EQ(SubcaseName(Subcase::kSingleThreadFeeder), "single_thread_feeder");
  std::ostringstream os;
  os << Bottleneck::kHostIoBound << "/" << Subcase::kSmallFiles;
  EXPECT_EQ(os.str(), "host_io_bound/small_files");
}

TEST(BottleneckTest, DecisionFallsBackToTheLabel) {
  EXPECT_EQ(DecisionFor(Bottleneck::kHostCpuBound, Subcase::kCpuQuota),
            FindBottleneck("host_cpu_bound/cpu_quota")->decision);
  // A pair outside the table (and a label without sub-case) takes the label's own decision.
  EXPECT_EQ(DecisionFor(Bottleneck::kThrottled, Subcase::kSmallFiles),
            FindBottleneck("throttled")->decision);
  EXPECT_EQ(DecisionFor(Bottleneck::kHostCpuBound), FindBottleneck("host_cpu_bound")->decision);
}

// The severity column is the one answer to "is this label a problem?": the analysis (IsBottleneck)
// and every screen read it; a sub-case row carries its label's severity unless it says otherwise.
TEST(BottleneckTest, SeverityIsTheOneAnswer) {
  EXPECT_EQ(LabelSeverity(Bottleneck::kNone), Severity::kOk);
  EXPECT_EQ(LabelSeverity(Bottleneck::kComputeBound), Severity::kOk);
  EXPECT_EQ(LabelSeverity(Bottleneck::kIdle), Severity::kInfo);
  EXPECT_EQ(LabelSeverity(Bottleneck::kHostCpuBound, Subcase::kCpuQuota), Severity::kWarn);
  EXPECT_EQ(LabelSeverity(Bottleneck::kMemoryLeak, Subcase::kHostRss), Severity::kFail);
  EXPECT_EQ(LabelSeverity("memory_leak/gpu_memory"), Severity::kFail);
  EXPECT_EQ(LabelSeverity("idle/not_a_subcase"), Severity::kInfo);
  EXPECT_EQ(LabelSeverity("not_a_label"), Severity::kUnknown);
  EXPECT_FALSE(IsBottleneck(Bottleneck::kIdle));
  EXPECT_FALSE(IsBottleneck(Bottleneck::kNone));
  EXPECT_FALSE(IsBottleneck(Bottleneck::kComputeBound));
  EXPECT_TRUE(IsBottleneck(Bottleneck::kHostIoBound));
  EXPECT_TRUE(IsBottleneck(Bottleneck::kMemoryLeak));
  for (const BottleneckInfo& b : Bottlenecks()) {
    EXPECT_GE(b.chart_colour, 0) << b.id;
    EXPECT_LE(b.chart_colour, 7) << b.id;
    if (b.subcase == Subcase::kNone) continue;
    const BottleneckInfo* label = FindBottleneckRow(b.label, Subcase::kNone);
    EXPECT_EQ(b.severity, label->severity) << b.id;
    EXPECT_EQ(b.chart_colour, label->chart_colour) << b.id;
  }
}

// A trace finding that restates a label is named after it and exists only for labels trace emits.
TEST(BottleneckTest, TraceFindingsFollowTheirLabel) {
  EXPECT_EQ(TraceFindingId(Bottleneck::kLaunchBound), "trace.launch_bound");
  EXPECT_EQ(TraceFindingId(Bottleneck::kMemoryLeak), "");
  for (int i = 0; i < kBottleneckCount; ++i) {
    Bottleneck label = static_cast<Bottleneck>(i);
    std::string_view id = TraceFindingId(label);
    if (id.empty()) continue;
    EXPECT_EQ(id, "trace." + std::string(BottleneckName(label)));
    EXPECT_NE(FindBottleneckRow(label, Subcase::kNone)->emitted_by.find("trace"),
              std::string_view::npos)
        << id;
  }
}

}  // namespace
}  // namespace gpuvet
