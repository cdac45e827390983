// Tests for the validating pull reader: it accepts exactly the texts nlohmann::json::accept
// accepts (hand-picked grammar corners, every cut of a real report, fixed-seed byte mutations),
// types and converts numbers as nlohmann does, decodes escapes to nlohmann's strings, and walks
// members and elements in order.
#include "sources/fleet/json_cursor.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

namespace gpuvet {
namespace {

using nlohmann::json;

// Whether the cursor takes `text` as one JSON value.
bool CursorAccepts(std::string_view text) {
  JsonCursor c(text);
  return c.Skip() && c.AtEnd();
}

// nlohmann's verdict, the reference (a leading byte-order mark aside, which the cursor refuses).
bool NlohmannAccepts(std::string_view text) { return json::accept(text); }

// A real report, cut to its first 4 KiB of findings and closed again (every cut of it and the
// mutations below stay quick under ASan), with escapes and non-ASCII text added.
std::string RealReport() {
  std::ifstream in(std::string(GPUVET_SOURCE_DIR) +
                   "/tests/fixtures/fleet/day/reports/gpu-node-04/check-2026-01-01T230000Z.json");
  std::stringstream s;
  s << in.rdbuf();
  json doc = json::parse(s.str());
  json findings = json::array();
  for (const json& f : doc["findings"]) {
    if (findings.dump().size() > 4096) break;
    findings.push_back(f);
  }
  doc["findings"] = findings;
  doc["gpus"].erase(doc["gpus"].begin() + 1, doc["gpus"].end());
  doc["notes"] = {"caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80", "tab\tquote\"slash\\", 1e-5, -0.0,
                  1e300};
  return doc.dump(1);
}

TEST(JsonCursorTest, GrammarCornersAsNlohmann) {
  const std::vector<std::string> cases = {
      "{}",
      "[]",
      " {\"a\" : [1, 2.5, -0, 1e5, 1E-5, 1e+5, true, false, null]} ",
      "\"x\"",
      "0",
      "-0.0",
      "{\"a\":{}}",
      "[[[]]]",
      "{",
      "}",
      "[",
      "]",
      "{,}",
      "[,]",
      "[1,]",
      "{\"a\":1,}",
      "{\"a\" 1}",
      "{1:2}",
      "{\"a\":}",
      "01",
      "1.",
      ".5",
      "-",
      "+1",
      "1e",
      "1e+",
      "--1",
      "0x10",
      "tru",
      "truex",
      "nul",
      "NaN",
      "Infinity",
      "[1 2]",
      "{\"a\":1 \"b\":2}",
      "\"\\u00e9\"",
      "\"\\ud83d\\ude00\"",
      "\"\\ud83d\"",
      "\"\\ude00\"",
      "\"\\ud83d\\u0041\"",
      "\"\\x\"",
      "\"\\u12\"",
      "\"\\u12G4\"",
      "\"a\tb\"",
      "\"a\nb\"",
      std::string("\"a\0b\"", 5),
      "\"\x7f\"",
      "\"\xc3\xa9\"",
      "\"\xc3\"",
      "\"\xc0\x80\"",
      "\"\xe0\x80\x80\"",
      "\"\xed\xa0\x80\"",
      "\"\xf4\x90\x80\x80\"",
      "\"\xf0\x9f\x98\x80\"",
      "\"\xff\"",
      "\"unterminated",
      "1e999999",
      "-1e999999",
      "1e-999999",
      "123456789012345678901234567890",
      "[1]x",
      "{} {}",
      "\v1",
      "\f1",
      "1 ",
      "",
      " ",
      "[\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"]",
  };
  for (const std::string& text : cases) {
    EXPECT_EQ(CursorAccepts(text), NlohmannAccepts(text)) << text;
  }
  // nlohmann skips a UTF-8 byte-order mark; the cursor refuses it (its callers fall back).
  EXPECT_FALSE(CursorAccepts("\xef\xbb\xbf{}"));
}

TEST(JsonCursorTest, EveryCutOfARealReportAsNlohmann) {
  const std::string doc = RealReport();
  ASSERT_GT(doc.size(), 3000u) << "fixture missing";
  ASSERT_TRUE(CursorAccepts(doc));
  for (size_t cut = 0; cut < doc.size(); ++cut) {
    const std::string_view text = std::string_view(doc).substr(0, cut);
    ASSERT_EQ(CursorAccepts(text), NlohmannAccepts(text)) << "cut at " << cut;
  }
}

TEST(JsonCursorTest, MutationsAsNlohmann) {
  const std::string doc = RealReport();
  ASSERT_GT(doc.size(), 1000u);
  std::mt19937 rng(1507);
  const std::string alphabet = "{}[]:,\"\\ 0123456789.eE+-tfnul\x80\xc3\xa9\xff\x01\t\n/u";
  int accepted = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string text = doc;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1 + rng() % 3);
          break;
        default:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
      }
      if (text.empty()) text.assign(1, 'x');
    }
    const bool expected = NlohmannAccepts(text);
    accepted += expected;
    ASSERT_EQ(CursorAccepts(text), expected) << "mutation " << i;
  }
  EXPECT_GT(accepted, 100);  // both outcomes are exercised
  EXPECT_LT(accepted, 1900);
}

// The 16-byte blocks of the whitespace and string scans and the inline whitespace cases: runs
// of every length up to three blocks, at every offset from the start of the text, with a value
// (or a stray byte) right after them, and strings of every length with the byte that ends the
// plain run (quote, escape, control, non-ASCII, invalid UTF-8) at each position of a block.
TEST(JsonCursorTest, BlockBoundariesAsNlohmann) {
  int checked = 0;
  for (size_t lead = 0; lead < 17; ++lead) {
    for (size_t run = 0; run < 36; ++run) {
      for (const char* after : {"1]", "\"a\"]", "]", "x]", "\x01]", " ]", "\n\t\r]", ""}) {
        for (const char* space : {" ", "\n", "\t", "\r", "\n "}) {
          std::string text = "[" + std::string(lead, ' ') + "0,";
          while (text.size() < lead + 3 + run) text += space;
          text.resize(lead + 3 + run);
          text += after;
          ASSERT_EQ(CursorAccepts(text), NlohmannAccepts(text)) << ::testing::PrintToString(text);
          ++checked;
        }
      }
    }
  }
  const std::vector<std::string> specials = {"\"",
                                             "\\\\",
                                             "\\\"",
                                             "\\u00e9",
                                             "\\ud83d\\ude00",
                                             "\\x",
                                             "\x1f",
                                             "\x7f",
                                             "\xc3\xa9",
                                             "\xc3",
                                             "\xc3(",
                                             "\xe2\x82\xac",
                                             "\xe2\x82",
                                             "\xed\xa0\x80",
                                             "\xf0\x9f\x98\x80",
                                             "\xf0\x9f\x98",
                                             "\xf4\x90\x80\x80",
                                             "\xff",
                                             "\x80",
                                             "\xc0\xaf"};
  for (size_t len = 0; len < 34; ++len) {
    for (size_t at = 0; at <= len; ++at) {
      for (const std::string& special : specials) {
        std::string body(len, 'a');
        body.insert(at, special);
        for (const std::string& text : {"\"" + body + "\"", "[\"" + body + "\", 1]",
                                        "{\"" + body + "\": \"" + body + "\"}", "\"" + body}) {
          ASSERT_EQ(CursorAccepts(text), NlohmannAccepts(text)) << ::testing::PrintToString(text);
          ++checked;
        }
      }
    }
  }
  // Literals cut and misspelt at every byte.
  for (const std::string word : {"true", "false", "null"}) {
    for (size_t cut = 0; cut <= word.size(); ++cut) {
      for (const std::string& text : {word.substr(0, cut), "[" + word.substr(0, cut) + "]",
                                      "[" + word.substr(0, cut) + "x]"}) {
        ASSERT_EQ(CursorAccepts(text), NlohmannAccepts(text)) << text;
      }
    }
  }
  EXPECT_GT(checked, 60000);
}

TEST(JsonCursorTest, NumbersTypedAndConvertedAsNlohmann) {
  for (const char* text :
       {"0", "-0", "7", "-7", "9223372036854775807", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "123456789012345678901234567890", "0.1",
        "-2.5e-3", "1e308", "4.9e-324", "1e-400", "97", "1.0", "2E2"}) {
    JsonCursor c(text);
    JsonNumber n;
    ASSERT_TRUE(c.ReadNumber(n)) << text;
    const json j = json::parse(text);
    EXPECT_EQ(n.value, j.get<double>()) << text;
    if (j.is_number_unsigned()) {
      EXPECT_EQ(n.kind, JsonNumber::Kind::kUnsigned) << text;
      EXPECT_EQ(n.unsigned_integer, j.get<uint64_t>()) << text;
    } else if (j.is_number_integer()) {
      EXPECT_EQ(n.kind, JsonNumber::Kind::kInteger) << text;
      EXPECT_EQ(n.integer, j.get<int64_t>()) << text;
    } else {
      EXPECT_EQ(n.kind, JsonNumber::Kind::kFloat) << text;
    }
  }
  JsonCursor overflow("1e999999");
  JsonNumber n;
  EXPECT_FALSE(overflow.ReadNumber(n));
  EXPECT_TRUE(overflow.failed());
}

TEST(JsonCursorTest, StringsDecodedAsNlohmann) {
  for (const char* text : {R"("plain")", R"("a\"b\\c\/d")", R"("\b\f\n\r\t")", R"("\u00e9\u4e2d")",
                           R"("\ud83d\ude00 and \u0000")", "\"\xc3\xa9t\xc3\xa9\"",
                           R"("mixed \u0041 long enough to pass the eight-byte scan")"}) {
    JsonCursor c(text);
    std::string_view v;
    ASSERT_TRUE(c.ReadString(v)) << text;
    EXPECT_EQ(std::string(v), json::parse(text).get<std::string>()) << text;
  }
}

TEST(JsonCursorTest, WalksMembersAndElementsInOrder) {
  JsonCursor c(R"({"a": [1, {"x": "y"}, [2]], "b\u0041": "v", "c": {}})");
  ASSERT_TRUE(c.BeginObject());
  bool first = true;
  std::string_view key;
  ASSERT_TRUE(c.NextMember(first, key));
  EXPECT_EQ(key, "a");
  ASSERT_TRUE(c.BeginArray());
  bool first_element = true;
  ASSERT_TRUE(c.NextElement(first_element));
  JsonNumber n;
  ASSERT_TRUE(c.ReadNumber(n));
  EXPECT_EQ(n.value, 1);
  ASSERT_TRUE(c.NextElement(first_element));
  EXPECT_EQ(c.Peek(), JsonCursor::Type::kObject);
  ASSERT_TRUE(c.Skip());
  ASSERT_TRUE(c.NextElement(first_element));
  ASSERT_TRUE(c.Skip());
  EXPECT_FALSE(c.NextElement(first_element));
  EXPECT_FALSE(c.failed());
  ASSERT_TRUE(c.NextMember(first, key));
  EXPECT_EQ(key, "bA");
  std::string_view v;
  ASSERT_TRUE(c.ReadString(v));
  EXPECT_EQ(v, "v");
  ASSERT_TRUE(c.NextMember(first, key));
  EXPECT_EQ(key, "c");
  EXPECT_EQ(c.Peek(), JsonCursor::Type::kObject);
  ASSERT_TRUE(c.Skip());
  EXPECT_FALSE(c.NextMember(first, key));
  EXPECT_TRUE(c.AtEnd());
  EXPECT_FALSE(c.failed());
}

TEST(JsonCursorTest, DeepNestingIsSkippedWithoutRecursion) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  EXPECT_TRUE(CursorAccepts(deep));
  EXPECT_FALSE(CursorAccepts(deep.substr(0, deep.size() - 1)));
}

}  // namespace
}  // namespace gpuvet
