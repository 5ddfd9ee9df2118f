#include "libagtcore/base/utf8.h"

#include <gtest/gtest.h>

namespace agt::core {
namespace {

TEST(Utf8Test, AcceptsWellFormedText) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("作業 🚀 é"));
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
}

TEST(Utf8Test, RejectsIllFormedTextWithOffset) {
  struct Case {
    std::string s;
    size_t offset;
  };
  const Case cases[] = {
      {"ab\xFF", 2},           {"\xC0\xAF", 0},       // overlong '/'
      {"x\xED\xA0\x80", 1},    // surrogate
      {"\xF4\x90\x80\x80", 0},  // above U+10FFFF
      {"\xE4\xBD", 0},         // truncated
      {"ok\x80", 2},           // stray continuation
  };
  for (const Case& c : cases) {
    size_t at = 99;
    EXPECT_FALSE(IsValidUtf8(c.s, &at));
    EXPECT_EQ(at, c.offset);
  }
}

TEST(Utf8Test, SanitizeReplacesOnlyBadBytes) {
  EXPECT_EQ(SanitizeUtf8("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(SanitizeUtf8("作業"), "作業");
  EXPECT_TRUE(IsValidUtf8(SanitizeUtf8("\xE4\xBD\xC0\xAF\x80")));
}

}  // namespace
}  // namespace agt::core

namespace agt::core {
namespace {

TEST(Utf8Test, NextCodePointWalksGlyphsAndReplacesBadBytes) {
  const std::string s = "a\xE2\xA0\x8B\xF0\x9F\x98\x80\xFF\xE2\xA0";  // a ⠋ 😀 bad, cut
  size_t i = 0;
  EXPECT_EQ(NextCodePoint(s, &i), U'a');
  EXPECT_EQ(NextCodePoint(s, &i), U'\u280B');
  EXPECT_EQ(i, 4u);
  EXPECT_EQ(NextCodePoint(s, &i), U'\U0001F600');
  EXPECT_EQ(NextCodePoint(s, &i), U'\uFFFD');  // 0xFF starts nothing
  EXPECT_EQ(i, 9u);
  EXPECT_EQ(NextCodePoint(s, &i), U'\uFFFD');  // a sequence cut at the end
  EXPECT_EQ(i, 10u);
}

}  // namespace
}  // namespace agt::core
