#include "libagtcore/detect/identify.h"

#include <gtest/gtest.h>

#include "libagtcore/detect/log_classifier.h"
#include "libagtcore/detect/pattern_library.h"

namespace agt::detect {
namespace {

class IdentifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string path = DefaultPatternsDir() + "/identify.toml";
    auto text = ReadTextFile(path);
    ASSERT_TRUE(text.ok()) << text.error().message;
    auto r = ParseIdentifyRules(*text, path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    rules_ = std::move(r).value();
  }
  std::string Id(std::string_view proc, std::string_view cmd = {},
                 std::string_view title = {}) {
    auto id = Identify(rules_, proc, cmd, title);
    return id ? id->agent + "/" + id->via : "none";
  }
  IdentifyRules rules_;
};

TEST_F(IdentifyTest, ProcessNamesIncludingClaudesVersionNumber) {
  EXPECT_EQ(Id("claude"), "claude/process");
  EXPECT_EQ(Id("2.1.197"), "claude/process");
  EXPECT_EQ(Id("codex"), "codex/process");
  EXPECT_EQ(Id("gemini"), "gemini/process");
  EXPECT_EQ(Id("2.1"), "none");
}

// A NUL-separated /proc cmdline from a literal, NULs included.
template <size_t N>
std::string Cmdline(const char (&bytes)[N]) {
  return std::string(bytes, N - 1);
}

TEST_F(IdentifyTest, NodeAndBunNeedTheChildsCmdline) {
  std::string codex =
      Cmdline("node\0/home/u/.cache/agtmux/agents/node_modules/.bin/codex\0--no-daemon\0");
  EXPECT_EQ(Id("node", codex), "codex/cmdline");
  std::string gemini = Cmdline("node\0/usr/lib/node_modules/@google/gemini-cli/dist/index.js\0");
  EXPECT_EQ(Id("node", gemini), "gemini/cmdline");
  EXPECT_EQ(Id("bun", "bun /opt/@anthropic-ai/claude-code/cli.js"), "claude/cmdline");
  EXPECT_EQ(Id("node", "node server.js --port 3000"), "none");
  // Only interpreters have their cmdline read.
  EXPECT_EQ(Id("make", "make codex"), "none");
}

TEST_F(IdentifyTest, EditorsPagersFileManagersAndShellsAreExcluded) {
  for (const char* p : {"vim", "nvim", "emacs", "nano", "less", "more", "man", "ranger",
                        "nnn", "lf", "mc", "bash", "zsh"}) {
    EXPECT_EQ(Id(p, std::string(p) + " src/codex.rs", "✳ Claude Code"), "none") << p;
  }
  // A file named after an agent, opened in an editor through node, is not the agent.
  EXPECT_EQ(Id("node", "node /usr/bin/some-editor codex.rs"), "none");
}

TEST_F(IdentifyTest, TitleGlyphsAreTheWeakestHint) {
  EXPECT_EQ(Id("2.0-beta", "", "✳ Lab session"), "claude/title");
  EXPECT_EQ(Id("node", "node x.js", "◇  Ready (work)"), "gemini/title");
  EXPECT_EQ(Id("python3", "python3 train.py", "training"), "none");
}

TEST(IdentifyRulesParse, BrokenFileNamesFieldAndPcre2Error) {
  auto r = ParseIdentifyRules("[[agent]]\nname = \"x\"\nprocess = ['(']\n",
                              "/u/identify.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/u/identify.toml agent 'x'"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("at offset 1"), std::string::npos)
      << r.error().message;
  EXPECT_FALSE(ParseIdentifyRules("[[agent]]\nprocess = ['a']\n", "f").ok());
  EXPECT_FALSE(ParseIdentifyRules("[[agent]]\nname = \"a\"\nproc = ['a']\n", "f").ok());
}

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string path = DefaultPatternsDir() + "/analyze.toml";
    auto text = ReadTextFile(path);
    ASSERT_TRUE(text.ok());
    auto r = ParseLogRules(*text, path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    rules_ = std::move(r).value();
  }
  LogRules rules_;
};

TEST_F(LogTest, FailuresWarningsAndSuccess) {
  struct Case {
    const char* text;
    LogClass want;
    const char* rule;
  };
  const Case cases[] = {
      {"src/a.cc:12:3: error: 'x' was not declared in this scope", LogClass::kFailure,
       "build.compile_error"},
      {"[  FAILED  ] Menu.Prose (0 ms)", LogClass::kFailure, "test.failed"},
      {"CONFLICT (content): Merge conflict in README.md", LogClass::kFailure,
       "git.conflict"},
      {"thread 'main' panicked at src/main.rs:2:5:", LogClass::kFailure, "runtime.panic"},
      {"FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of "
       "memory",
       LogClass::kFailure, "runtime.oom"},
      {"src/a.cc:3:1: warning: unused variable 'y'", LogClass::kWarning, "build.warning"},
      {"===== 12 passed in 0.31s =====", LogClass::kSuccess, "test.passed"},
      {"just some text", LogClass::kUnknown, nullptr},
  };
  for (const auto& c : cases) {
    LogReport r = ClassifyLog(rules_, c.text);
    EXPECT_EQ(r.verdict, c.want) << c.text;
    if (c.rule != nullptr) {
      ASSERT_FALSE(r.findings.empty()) << c.text;
      EXPECT_EQ(r.findings[0].rule_id, c.rule) << c.text;
    }
  }
}

TEST_F(LogTest, TheWorstClassWinsAndLinesAreNumbered) {
  LogReport r =
      ClassifyLog(rules_, "12 passed\nsrc/x.c:1:1: warning: w\nok\n3 failed, 9 passed\n");
  EXPECT_EQ(r.verdict, LogClass::kFailure);
  ASSERT_GE(r.findings.size(), 3u);
  EXPECT_EQ(r.findings.back().line_no, 4);
  EXPECT_EQ(LogClassName(r.verdict), "failure");
}

TEST(LogRulesParse, BrokenRuleIsNamed) {
  auto r = ParseLogRules("[[rule]]\nid = \"b\"\nclass = \"failure\"\nregex = 'a{2,1}'\n",
                         "/p/analyze.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/p/analyze.toml:1: rule 'b'"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("at offset"), std::string::npos) << r.error().message;
  EXPECT_FALSE(
      ParseLogRules("[[rule]]\nid = \"b\"\nclass = \"bad\"\nregex = 'a'\n", "f").ok());
}

}  // namespace
}  // namespace agt::detect
