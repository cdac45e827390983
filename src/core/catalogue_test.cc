#include "core/catalogue.h"

#include <gtest/gtest.h>

#include <set>

#include "core/bottleneck.h"

namespace gpuvet {
namespace {

TEST(CatalogueTest, SortedUniqueAndComplete) {
  auto cat = Catalogue();
  ASSERT_FALSE(cat.empty());
  for (size_t i = 1; i < cat.size(); ++i) {
    EXPECT_LT(cat[i - 1].id, cat[i].id) << "catalogue must stay sorted by id";
  }
  for (const CatalogueEntry& e : cat) {
    EXPECT_EQ(e.id.substr(0, e.id.find('.')), e.area) << e.id << ": id must start with its area";
    EXPECT_FALSE(e.title.empty()) << e.id;
    EXPECT_GT(e.meaning.size(), 40u) << e.id;
    EXPECT_GT(e.decision.size(), 20u) << e.id;
  }
}

TEST(CatalogueTest, Lookup) {
  ASSERT_NE(FindCatalogueEntry("pcie.link_width_reduced"), nullptr);
  EXPECT_EQ(FindCatalogueEntry("pcie.nope"), nullptr);
  EXPECT_TRUE(IsCatalogueArea("ecc"));
  EXPECT_FALSE(IsCatalogueArea("ec"));
}

// A decision that depends on the severity prints only the severity's part.
TEST(CatalogueTest, DecisionPerSeverity) {
  std::string_view whole = FindCatalogueEntry("pcie.link_width_reduced")->decision;
  std::string_view warn = CatalogueDecision("pcie.link_width_reduced", Severity::kWarn);
  EXPECT_NE(warn, whole);
  EXPECT_EQ(warn.find("fail"), std::string_view::npos);
  EXPECT_EQ(CatalogueDecision("pcie.replay_counter", Severity::kWarn),
            FindCatalogueEntry("pcie.replay_counter")->decision);
  EXPECT_EQ(CatalogueDecision("nope.nope", Severity::kWarn), "");
}

// `gpuvet explain X` and `gpuvet explain trace.X` give one answer: the finding is the label's row.
TEST(CatalogueTest, TraceLabelFindingsAreTheLabelsRow) {
  int generated = 0;
  for (const BottleneckInfo& b : Bottlenecks()) {
    if (b.subcase != Subcase::kNone || TraceFindingId(b.label).empty()) continue;
    const CatalogueEntry* e = FindCatalogueEntry(TraceFindingId(b.label));
    ASSERT_NE(e, nullptr) << b.id;
    EXPECT_EQ(e->area, "trace");
    EXPECT_EQ(e->title, b.title);
    EXPECT_EQ(e->meaning, b.meaning);
    EXPECT_EQ(e->decision, b.decision);
    ++generated;
  }
  EXPECT_GE(generated, 8);
  // The trace findings that are not a label keep their own text.
  EXPECT_NE(FindCatalogueEntry("trace.sync_stalls"), nullptr);
  EXPECT_EQ(FindCatalogueEntry("trace.memory_bound"), nullptr);
}

}  // namespace
}  // namespace gpuvet
