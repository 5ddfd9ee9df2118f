// UnifiedDiff against GNU diff: the same texts through `diff -u` (diffutils
// is Essential on Debian, so it is always there to compare with) must give
// the same hunks, line for line.
#include "cli/setup/text_diff.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace agt::cli {
namespace {

// `diff -u` of the two texts, without its two header lines.
std::string GnuDiff(const std::string& a, const std::string& b) {
  char dir[] = "/tmp/agtmux-diff-XXXXXX";
  if (!mkdtemp(dir)) return "mkdtemp failed";
  const std::string pa = std::string(dir) + "/a", pb = std::string(dir) + "/b";
  std::ofstream(pa, std::ios::binary) << a;
  std::ofstream(pb, std::ios::binary) << b;
  std::string out;
  FILE* p = popen(("diff -u '" + pa + "' '" + pb + "'").c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  unlink(pa.c_str());
  unlink(pb.c_str());
  rmdir(dir);
  for (int i = 0; i < 2; ++i) out.erase(0, out.find('\n') + 1);
  return out;
}

std::string OursWithoutHeader(const std::string& a, const std::string& b) {
  std::string out = UnifiedDiff(a, b, "a", "b");
  EXPECT_EQ(out.rfind("--- a\n+++ b\n", 0), 0u) << out;
  return out.substr(12);
}

std::string Numbered(int from, int to, const std::string& tag = "line") {
  std::string s;
  for (int i = from; i <= to; ++i) s += tag + " " + std::to_string(i) + "\n";
  return s;
}

TEST(UnifiedDiffTest, EqualTextsGiveNothing) {
  EXPECT_EQ(UnifiedDiff("a\nb\n", "a\nb\n", "x", "y"), "");
  EXPECT_EQ(UnifiedDiff("", "", "x", "y"), "");
}

TEST(UnifiedDiffTest, MatchesGnuDiff) {
  const std::string base = Numbered(1, 40);
  struct Case {
    const char* name;
    std::string a, b;
  } cases[] = {
      {"insert in the middle", base, Numbered(1, 20) + "new\n" + Numbered(21, 40)},
      {"insert at the start", base, "new\n" + base},
      {"append", base, base + "new 1\nnew 2\n"},
      {"delete", base, Numbered(1, 9) + Numbered(12, 40)},
      {"change", base, Numbered(1, 9) + "ten\n" + Numbered(11, 40)},
      {"two hunks", base,
       Numbered(1, 4) + "x\n" + Numbered(5, 35) + "y\n" + Numbered(36, 40)},
      {"hunks that merge", base,
       Numbered(1, 10) + "x\n" + Numbered(11, 15) + "y\n" + Numbered(16, 40)},
      {"from nothing", "", "a\nb\n"},
      {"to nothing", "a\nb\n", ""},
      {"no newline at the end, kept", "a\nb", "a\nx\nb"},
      {"no newline at the end, added", "a\nb", "a\nb\n"},
      {"no newline at the end, lost", "a\nb\n", "a\nb"},
      {"one line files", "{}", "{\n  \"hooks\": {}\n}\n"},
      {"short", "a\n", "b\n"},
  };
  for (const Case& c : cases)
    EXPECT_EQ(OursWithoutHeader(c.a, c.b), GnuDiff(c.a, c.b)) << c.name;
}

TEST(UnifiedDiffTest, NamesAFileThatDoesNotExist) {
  EXPECT_EQ(UnifiedDiff("", "x\n", "/dev/null", "/h/.claude/settings.json"),
            "--- /dev/null\n+++ /h/.claude/settings.json\n@@ -0,0 +1 @@\n+x\n");
}

}  // namespace
}  // namespace agt::cli
