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
