// Tests of the streaming JSON tokenizer: escapes, values split across chunk boundaries, skipping,
// the depth limit and error offsets.
#include "util/json_stream.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace gpuvet {
namespace {

// Hands out `data` `step` bytes at a time, so every token crosses chunk boundaries.
class SlicedSource : public ChunkSource {
 public:
  SlicedSource(std::string data, size_t step) : data_(std::move(data)), step_(step) {}
  std::string_view Next() override {
    std::string_view out = std::string_view(data_).substr(pos_, step_);
    pos_ += out.size();
    return out;
  }
  const Status& status() const override { return status_; }

 private:
  std::string data_;
  size_t step_;
  size_t pos_ = 0;
  Status status_;
};

std::string ReadOneString(const std::string& json, size_t step, bool* ok) {
  SlicedSource src(json, step);
  JsonStream js(&src, "t.json");
  std::string out;
  *ok = js.ReadString(&out);
  return out;
}

TEST(KinetoJsonStreamTest, StringEscapes) {
  for (size_t step : {1, 2, 3, 1000}) {
    bool ok = false;
    EXPECT_EQ(ReadOneString(R"("a\"b\\c\/d\n\t\r\b\f")", step, &ok), "a\"b\\c/d\n\t\r\b\f");
    EXPECT_TRUE(ok);
    EXPECT_EQ(ReadOneString(R"("\u00e9\u20AC")", step, &ok), "\xC3\xA9\xE2\x82\xAC");
    EXPECT_TRUE(ok);
    // U+1F600 as a surrogate pair.
    EXPECT_EQ(ReadOneString(R"("x\uD83D\uDE00y")", step, &ok), "x\xF0\x9F\x98\x80y");
    EXPECT_TRUE(ok);
    // Lone surrogates become U+FFFD; what follows is kept.
    EXPECT_EQ(ReadOneString(R"("\uD83Dz")", step, &ok), "\xEF\xBF\xBDz");
    EXPECT_TRUE(ok);
    EXPECT_EQ(ReadOneString(R"("\uDE00")", step, &ok), "\xEF\xBF\xBD");
    EXPECT_EQ(ReadOneString(R"("\uD83D\n")", step, &ok), "\xEF\xBF\xBD\n");
    EXPECT_TRUE(ok);
    EXPECT_EQ(ReadOneString(R"("\uD83D\u0041")", step, &ok),
              "\xEF\xBF\xBD"
              "A");
    EXPECT_TRUE(ok);
  }
}

TEST(KinetoJsonStreamTest, BadStrings) {
  SlicedSource src(R"("ab\x")", 2);
  JsonStream js(&src, "t.json");
  std::string out;
  EXPECT_FALSE(js.ReadString(&out));
  EXPECT_EQ(js.status().message(), "t.json: byte 4: bad escape in a string");
  EXPECT_FALSE(js.failed_at_end());

  SlicedSource src2("\"a\x01\"", 1);
  JsonStream js2(&src2, "t.json");
  EXPECT_FALSE(js2.ReadString(&out));
  EXPECT_EQ(js2.status().message(), "t.json: byte 2: control character inside a string");

  SlicedSource src3(R"("\u12G4")", 1);
  JsonStream js3(&src3, "t.json");
  EXPECT_FALSE(js3.ReadString(&out));
  EXPECT_EQ(js3.status().message(), "t.json: byte 5: bad \\u escape: expected 4 hex digits");

  SlicedSource src4(R"("abc)", 1);
  JsonStream js4(&src4, "t.json");
  EXPECT_FALSE(js4.ReadString(&out));
  EXPECT_TRUE(js4.failed_at_end());
  EXPECT_EQ(js4.status().message(), "t.json: byte 4: input ends early");
}

TEST(KinetoJsonStreamTest, ObjectWalkAcrossChunks) {
  const std::string doc = R"( { "a" : 1.25e3 , "b":[true,false,null,{"x":"y"}], "c" : "s" } )";
  for (size_t step = 1; step <= doc.size(); ++step) {
    SlicedSource src(doc, step);
    JsonStream js(&src, "t.json");
    ASSERT_EQ(js.Peek(), '{');
    js.Advance();
    bool first = true;
    std::string key, text;
    std::vector<std::string> keys;
    while (js.NextMember(&first, &key)) {
      keys.push_back(key);
      if (key == "a") {
        ASSERT_TRUE(js.ReadScalarText(&text));
        EXPECT_EQ(text, "1.25e3");
      } else if (key == "c") {
        ASSERT_TRUE(js.ReadString(&text));
        EXPECT_EQ(text, "s");
      } else {
        ASSERT_TRUE(js.SkipValue());
      }
    }
    ASSERT_FALSE(js.failed()) << js.status().message();
    EXPECT_EQ(keys, (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(js.Peek(), JsonStream::kEnd);
    EXPECT_EQ(js.bytes_received(), doc.size());
  }
}

TEST(KinetoJsonStreamTest, SkipValueChecksStructure) {
  struct Case {
    const char* doc;
    const char* error;  // empty when the skip succeeds
  };
  const Case cases[] = {
      {R"({"a":[1,{"b":"\"}"}],"c":{}})", ""},
      {R"([])", ""},
      {R"("x")", ""},
      {R"(-12.5e+3)", ""},
      {R"({"a" 1})", "t.json: byte 5: expected ':' after an object key"},
      {R"({"a":1 "b":2})", "t.json: byte 7: expected ',' or '}' after an object member"},
      {R"([1 2])", "t.json: byte 3: expected ',' or ']' after an array element"},
      {R"([1,])", "t.json: byte 3: expected a value"},
      {R"({"a":1,})", "t.json: byte 7: expected a string key"},
      {R"({1:2})", "t.json: byte 1: expected a string key"},
      {R"([tru])", "t.json: byte 4: expected a value"},
      {R"([1,{"a":)", "t.json: byte 8: input ends early"},
      {R"(})", "t.json: byte 0: expected a value"},
  };
  for (const Case& c : cases) {
    SlicedSource src(c.doc, 3);
    JsonStream js(&src, "t.json");
    bool ok = js.SkipValue();
    if (c.error[0] == '\0') {
      EXPECT_TRUE(ok) << c.doc << ": " << js.status().message();
    } else {
      EXPECT_FALSE(ok) << c.doc;
      EXPECT_EQ(js.status().message(), c.error) << c.doc;
    }
  }
}

TEST(KinetoJsonStreamTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep(1000000, '[');
  SlicedSource src(deep, 4096);
  JsonStream js(&src, "t.json");
  EXPECT_FALSE(js.SkipValue());
  EXPECT_EQ(js.status().message(), "t.json: byte 512: nesting deeper than 512 levels");

  std::string ok_depth = std::string(100, '[') + std::string(100, ']');
  SlicedSource src2(ok_depth, 7);
  JsonStream js2(&src2, "t.json");
  EXPECT_TRUE(js2.SkipValue());
}

TEST(KinetoJsonStreamTest, LongStringsAreCutNotStored) {
  std::string doc = "\"" + std::string(JsonStream::kMaxKeptString + 100, 'k') + "\"";
  SlicedSource src(doc, 1000);
  JsonStream js(&src, "t.json");
  std::string out;
  EXPECT_TRUE(js.ReadString(&out));
  EXPECT_EQ(out.size(), JsonStream::kMaxKeptString);
}

TEST(KinetoJsonStreamTest, ErrorsAreSticky) {
  SlicedSource src("[1 2] [3]", 100);
  JsonStream js(&src, "t.json");
  EXPECT_FALSE(js.SkipValue());
  std::string s;
  EXPECT_FALSE(js.ReadString(&s));
  EXPECT_FALSE(js.SkipValue());
  EXPECT_EQ(js.status().message(), "t.json: byte 3: expected ',' or ']' after an array element");
}

}  // namespace
}  // namespace gpuvet
