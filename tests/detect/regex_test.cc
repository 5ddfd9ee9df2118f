#include "libagtcore/detect/regex.h"

#include <gtest/gtest.h>

namespace agt::detect {
namespace {

TEST(Regex, MatchesWithGroups) {
  auto r = Regex::Compile(R"(Retrying in (\d+)s)");
  ASSERT_TRUE(r.ok()) << r.error().message;
  RegexMatch m;
  std::string s = "✻ API error · Retrying in 12s · attempt 1/2";
  ASSERT_TRUE(r->Search(s, &m));
  EXPECT_EQ(m.Group(s, 1), "12");
  EXPECT_FALSE(r->Search("all good"));
}

TEST(Regex, CompileErrorCarriesPcre2MessageAndOffset) {
  auto r = Regex::Compile("ab(c");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kPatternInvalid);
  EXPECT_NE(r.error().message.find("missing closing parenthesis"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("at offset 4"), std::string::npos)
      << r.error().message;
}

TEST(Regex, UcpMakesWordAndSpaceClassesUnicodeAware) {
  auto r = Regex::Compile(R"(^\w+…$)");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->Search("Überlegen…"));
  auto glyph = Regex::Compile(R"(^[\x{2800}-\x{28FF}] )");
  ASSERT_TRUE(glyph.ok());
  EXPECT_TRUE(glyph->Search("⠂ Lab session"));
  EXPECT_FALSE(glyph->Search("✳ Lab session"));
  // One code point, not one byte: '.' eats the whole glyph.
  auto dot = Regex::Compile("^.$");
  ASSERT_TRUE(dot.ok());
  EXPECT_TRUE(dot->Search("❯"));
}

TEST(Regex, MultilineAnchorsWorkPerRow) {
  auto r = Regex::Compile("^esc to interrupt");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->Search("row one\nesc to interrupt · x"));
}

TEST(Regex, InvalidUtf8SubjectNeverMatchesAndNeverCrashes) {
  auto r = Regex::Compile("a.c");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(
      r->Search(std::string("a\xff"
                            "c")));
}

TEST(Regex, JitAndInterpreterAgree) {
  const char* patterns[] = {R"(^[✢✳✶✻✽·*] \S+… ?(?:\(|$))",
                            R"(Do you want to (?:proceed|make this edit to .*)\?)",
                            R"((?i)esc to (?:interrupt|cancel))",
                            R"(^\s*(\d+)\.\s+(.*?)(?:\s+\((?:esc|[a-z])\))?$)"};
  const char* subjects[] = {"✢ Razzmatazzing…",
                            "✻ Baked for 2s",
                            "Do you want to proceed?",
                            "Do you want to make this edit to a.py?",
                            "  esc to interrupt · ← for agents",
                            "❯ 1. Yes",
                            "  3. No, and tell Claude what to do differently (esc)",
                            "ESC TO CANCEL",
                            "",
                            "plain"};
  for (const char* p : patterns) {
    RegexOptions nojit;
    nojit.jit = false;
    auto a = Regex::Compile(p);
    auto b = Regex::Compile(p, nojit);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_FALSE(b->jit());
    for (const char* s : subjects) {
      RegexMatch ma, mb;
      bool ra = a->Search(s, &ma);
      bool rb = b->Search(s, &mb);
      EXPECT_EQ(ra, rb) << p << " on " << s;
      if (ra && rb) {
        EXPECT_EQ(ma.groups, mb.groups) << p << " on " << s;
      }
    }
  }
}

}  // namespace
}  // namespace agt::detect
