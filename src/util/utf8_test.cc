// utf8: validity per RFC 3629 and U+FFFD substitution of maximal subparts (Unicode §3.9).
#include "util/utf8.h"

#include <gtest/gtest.h>

#include <random>

namespace gpuvet {
namespace {

constexpr std::string_view kFffd = "\xEF\xBF\xBD";

TEST(Utf8, ValidTextIsUnchanged) {
  for (std::string_view s : {"", "plain ascii", "Grüße 温度 😀", "\x7F", "\xF4\x8F\xBF\xBF"}) {
    EXPECT_TRUE(IsValidUtf8(s)) << s;
    EXPECT_EQ(MakeValidUtf8(s), s);
  }
}

TEST(Utf8, FindsTheFirstInvalidByte) {
  EXPECT_EQ(FindInvalidUtf8("ab\xFF"
                            "cd"),
            2u);
  EXPECT_EQ(FindInvalidUtf8("ok \xC3"), 3u);           // cut at the end
  EXPECT_EQ(FindInvalidUtf8("\xC0\xAF"), 0u);          // overlong '/'
  EXPECT_EQ(FindInvalidUtf8("x\xED\xA0\x80"), 1u);     // a surrogate (U+D800)
  EXPECT_EQ(FindInvalidUtf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
}

TEST(Utf8, ReplacesEachMaximalSubpartOnce) {
  // Unicode 15 Table 3-8: "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64" becomes
  // a FFFD FFFD FFFD b FFFD c FFFD FFFD d.
  std::string in = "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64";
  std::string want = std::string("a") + std::string(kFffd) + std::string(kFffd) +
                     std::string(kFffd) + "b" + std::string(kFffd) + "c" + std::string(kFffd) +
                     std::string(kFffd) + "d";
  EXPECT_EQ(MakeValidUtf8(in), want);
  // A stray Latin-1 byte in a process name, as real kernel logs carry.
  EXPECT_EQ(MakeValidUtf8("comm=pyth\xF6n pid=7"), "comm=pyth" + std::string(kFffd) + "n pid=7");
}

TEST(Utf8, SanitizeInPlace) {
  std::string s = "a\x80";
  SanitizeUtf8(s);
  EXPECT_EQ(s, "a" + std::string(kFffd));
}

TEST(Utf8, RandomBytesAlwaysComeOutValid) {
  std::mt19937 rng(16);
  for (int round = 0; round < 20000; ++round) {
    std::string s(rng() % 24, '\0');
    for (char& c : s) c = static_cast<char>(rng() & 0xFF);
    std::string out = MakeValidUtf8(s);
    ASSERT_TRUE(IsValidUtf8(out));
    if (IsValidUtf8(s)) {
      ASSERT_EQ(out, s);
    }
  }
}

}  // namespace
}  // namespace gpuvet
