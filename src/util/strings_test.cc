#include "util/strings.h"

#include <gtest/gtest.h>

namespace gpuvet {
namespace {

TEST(StringsTest, TrimAndSplit) {
  EXPECT_EQ(Trim("  a b \n"), "a b");
  EXPECT_EQ(Split("a,,b", ',').size(), 3u);
  EXPECT_EQ(SplitWhitespace("  x  y\tz ").size(), 3u);
}

TEST(StringsTest, ParseNumbers) {
  EXPECT_EQ(ParseInt(" -42 "), -42);
  EXPECT_FALSE(ParseInt("4x2").has_value());
  EXPECT_FALSE(ParseInt("").has_value());
  EXPECT_EQ(ParseUint("0x10de"), 0x10deu);
  EXPECT_FALSE(ParseUint("-1").has_value());
  EXPECT_FALSE(ParseUint("99999999999999999999999").has_value());
  EXPECT_DOUBLE_EQ(*ParseDouble("16.0"), 16.0);
  EXPECT_FALSE(ParseDouble("16 GT/s").has_value());
}

TEST(StringsTest, CpuLists) {
  auto r = ParseCpuList("0-3,8,10-11");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), 7u);
  EXPECT_EQ(FormatCpuList(*r), "0-3,8,10-11");
  EXPECT_TRUE(ParseCpuList("").ok());
  EXPECT_FALSE(ParseCpuList("3-1").ok());
  EXPECT_FALSE(ParseCpuList("a").ok());
  EXPECT_FALSE(ParseCpuList("0-999999999").ok());
}

TEST(StringsTest, Glob) {
  EXPECT_TRUE(GlobMatch("550.*", "550.90.07"));
  EXPECT_TRUE(GlobMatch("5?0.90.07", "550.90.07"));
  EXPECT_FALSE(GlobMatch("535.*", "550.90.07"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_FALSE(GlobMatch("12.4", "12.40"));
}

}  // namespace
}  // namespace gpuvet
