#include "core/catalogue.h"

#include <gtest/gtest.h>

#include <set>

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

}  // namespace
}  // namespace gpuvet
