// core::ParseJson: the depth cap holds whatever the text (strings with
// brackets and escapes do not count, a million '[' is refused with its
// offset and never reaches a recursive parser), and ordinary JSON parses.
#include "libagtcore/base/json.h"

#include <gtest/gtest.h>

#include <string>

namespace agt::core {
namespace {

TEST(JsonTest, ParsesOrdinaryJson) {
  rapidjson::Document d;
  ASSERT_TRUE(ParseJson(R"({"a":[1,{"b":"x"}],"c":null})", &d).ok());
  EXPECT_STREQ(d["a"][1]["b"].GetString(), "x");
  JsonOptions comments;
  comments.comments = true;
  ASSERT_TRUE(ParseJson("{ // hooks\n \"a\": 1 /* x */ }", &d, comments).ok());
  EXPECT_EQ(d["a"].GetInt(), 1);
}

TEST(JsonTest, RefusesNestingPastTheCapWithItsOffset) {
  const std::string deep = std::string(1 << 20, '[') + std::string(1 << 20, ']');
  rapidjson::Document d;
  Status st = ParseJson(deep, &d);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, Err::kPayloadInvalid);
  EXPECT_EQ(st.error().message, "JSON nested deeper than 64 levels (at offset 64)");
  // Objects count too, and the cap is exact.
  std::string at_cap, over;
  for (int i = 0; i < 64; ++i) at_cap += "{\"k\":";
  at_cap += "1" + std::string(64, '}');
  EXPECT_TRUE(ParseJson(at_cap, &d).ok());
  over = "[" + at_cap + "]";
  EXPECT_FALSE(ParseJson(over, &d).ok());
}

TEST(JsonTest, BracketsInStringsAreNotNesting) {
  std::string s = "{\"k\":\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"}";
  rapidjson::Document d;
  ASSERT_TRUE(ParseJson(s, &d).ok());
  EXPECT_EQ(d["k"].GetStringLength(), 2001u);
  EXPECT_EQ(JsonDepthExceeded(R"(["\\", []])", 2), std::string_view::npos);
  EXPECT_EQ(JsonDepthExceeded(R"(["\\", [[]]])", 2), 8u);
}

TEST(JsonTest, InvalidJsonNamesTheOffset) {
  rapidjson::Document d;
  Status st = ParseJson("{\"a\":}", &d);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message.rfind("invalid JSON at offset 5: ", 0), 0u) << st.error().message;
  JsonOptions utf8;
  utf8.validate_utf8 = true;
  EXPECT_FALSE(ParseJson("\"\xff\"", &d, utf8).ok());
  EXPECT_TRUE(ParseJson("\"\xff\"", &d).ok());
}

}  // namespace
}  // namespace agt::core
