// Edit distance and command suggestions for mistyped subcommands.
#include "cli/common/command_suggest.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

const std::vector<std::string> kNames = {"check",  "checks", "explain",  "bench",
                                         "trace",  "debug",  "exporter", "import",
                                         "record", "watch",  "analyze",  "fleet"};

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("", "check"), 5u);
  EXPECT_EQ(EditDistance("check", ""), 5u);
  EXPECT_EQ(EditDistance("chek", "check"), 1u);    // deletion
  EXPECT_EQ(EditDistance("checkk", "check"), 1u);  // insertion
  EXPECT_EQ(EditDistance("chack", "check"), 1u);   // substitution
  EXPECT_EQ(EditDistance("chekc", "check"), 1u);   // adjacent swap
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("trace", "trace"), 0u);
}

TEST(SuggestCommand, NamesTheClosestCommand) {
  EXPECT_EQ(SuggestCommand("chek", kNames), "check");
  EXPECT_EQ(SuggestCommand("chekc", kNames), "check");
  EXPECT_EQ(SuggestCommand("exproter", kNames), "exporter");
  EXPECT_EQ(SuggestCommand("analyse", kNames), "analyze");
  EXPECT_EQ(SuggestCommand("recrod", kNames), "record");
  EXPECT_EQ(SuggestCommand("flet", kNames), "fleet");
  EXPECT_EQ(SuggestCommand("benc", kNames), "bench");
  EXPECT_EQ(SuggestCommand("anal", kNames), "analyze");  // unique prefix
}

TEST(SuggestCommand, SaysNothingWhenNothingIsClose) {
  EXPECT_EQ(SuggestCommand("", kNames), std::nullopt);
  EXPECT_EQ(SuggestCommand("zzzz", kNames), std::nullopt);
  EXPECT_EQ(SuggestCommand("kubernetes", kNames), std::nullopt);
  EXPECT_EQ(SuggestCommand("ch", kNames), std::nullopt);
  EXPECT_EQ(SuggestCommand("x", {}), std::nullopt);
}

}  // namespace
}  // namespace gpuvet
