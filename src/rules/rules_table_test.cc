// The rule table's columns: every check area of the catalogue belongs to a rule, and the areas
// that run on a capture from another machine are the gpu_only rules' areas.
#include <gtest/gtest.h>

#include <string_view>

#include "core/catalogue.h"
#include "rules/rules.h"

namespace gpuvet {
namespace {

TEST(RulesTableTest, EveryCheckAreaBelongsToARule) {
  for (const CatalogueEntry& e : Catalogue()) {
    if (e.area == "trace" || e.area == "bench") continue;  // other commands' findings
    bool listed = false;
    for (const Rule& r : Rules()) {
      for (std::string_view a : r.areas) listed |= a == e.area;
    }
    EXPECT_TRUE(listed) << e.id << ": add its area to its rule's row in rules.cc";
    EXPECT_EQ(AreaOf(e.id), e.area);
  }
}

TEST(RulesTableTest, GpuOnlyAreas) {
  for (std::string_view a : {"driver", "gpu", "pcie", "clocks", "throttle", "thermal", "power",
                             "ecc", "settings", "mig", "nvlink"}) {
    EXPECT_TRUE(IsGpuOnlyArea(a)) << a;
  }
  for (std::string_view a :
       {"xid", "kernel", "host", "cpu", "cgroup", "container", "ib", "trace"}) {
    EXPECT_FALSE(IsGpuOnlyArea(a)) << a;
  }
}

}  // namespace
}  // namespace gpuvet
