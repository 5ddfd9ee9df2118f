// Shell quoting (libagtcore/base/shell.h), checked against a real shell.
#include "libagtcore/base/shell.h"

#include <gtest/gtest.h>
#include <stdio.h>

#include <string>

namespace agt::core {
namespace {

std::string ThroughShell(const std::vector<std::string>& argv) {
  std::string cmd = "printf '[%s]' " + ShellJoin(argv);
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[256];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(ShellQuote, PlainWordsStayAndEverythingElseIsQuoted) {
  EXPECT_EQ(ShellQuote("tmux"), "tmux");
  EXPECT_EQ(ShellQuote("/usr/bin/agtmux"), "/usr/bin/agtmux");
  EXPECT_EQ(ShellQuote("%7"), "%7");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("a b"), "'a b'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("$(x)`y`"), "'$(x)`y`'");
  EXPECT_EQ(ShellQuote("a=b"), "'a=b'");  // not an assignment at the start of a command
  EXPECT_EQ(ShellQuote("~"), "'~'");
  EXPECT_EQ(ShellJoin({"tmux", "-S", "/t/s k", "list-panes"}), "tmux -S '/t/s k' list-panes");
}

TEST(ShellQuote, TheRealShellGetsTheWordsBack) {
  const std::vector<std::string> hostile = {"it's", "$HOME", "a\nb", "", "*", "; rm -rf /tmp/x", "`id`",
                                            "\"q\"", "\t", "日本語 🚀", "\\", "!", "#c"};
  std::string want;
  for (const auto& h : hostile) want += "[" + h + "]";
  EXPECT_EQ(ThroughShell(hostile), want);
}

}  // namespace
}  // namespace agt::core
