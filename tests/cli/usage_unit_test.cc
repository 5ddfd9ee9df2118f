// The CLI helps as a user meets it, run in-process (in_process.h):
// mistyped commands and options get a suggestion and exit 2 (the documented
// usage-error code, not CLI11's internal 106/109), `help` works, completions
// are generated from the command table and complete in a real bash, the man
// page lists every command, `config check` names the line.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/cli/in_process.h"

namespace agt::test {
namespace {

struct RunResult {
  int status;
  std::string out, err;
};

class UsageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/agtmux-usage-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  RunResult Agtmux(std::vector<std::string> args) {
    auto r = RunMain(args, {{"HOME", root_}, {"XDG_CONFIG_HOME", root_ + "/config"},
                            {"XDG_STATE_HOME", root_ + "/state"}, {"XDG_RUNTIME_DIR", root_ + "/run"},
                            {"PATH", "/usr/bin:/bin"}});
    return {r.status, r.out, r.err};
  }
  RunResult Bash(const std::string& cmd) {
    RunResult r{-1, "", ""};
    FILE* p = popen(("/bin/bash --noprofile --norc -c '" + cmd + "'").c_str(), "r");
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    r.status = pclose(p);
    return r;
  }
  std::string root_;
};

TEST_F(UsageTest, MistypedCommandsGetASuggestionAndExitTwo) {
  auto r = Agtmux({"lsit"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown command 'lsit' (did you mean 'list'?)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("respond"), std::string::npos) << "the valid commands are listed\n" << r.err;

  r = Agtmux({"list", "pane"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("agtmux list: unknown command 'pane' (did you mean 'panes'?)"), std::string::npos) << r.err;

  r = Agtmux({"target", "ad"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("did you mean 'add'?"), std::string::npos) << r.err;

  r = Agtmux({"list", "panes", "--jsn"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("did you mean '--json'?"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Run 'agtmux list panes --help'"), std::string::npos) << r.err;

  r = Agtmux({"view-output", "%1", "--lines", "many"});
  EXPECT_EQ(r.status, 2) << r.err;
}

TEST_F(UsageTest, HelpDocumentsExitCodesAndExamples) {
  auto r = Agtmux({"help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("Exit codes: 0 done"), std::string::npos) << r.out;
  r = Agtmux({"help", "respond"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Usage: agtmux respond"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("agtmux respond %4 yes"), std::string::npos) << "examples in the help\n" << r.out;
  r = Agtmux({"respond", "--help"});
  EXPECT_EQ(r.status, 0);
}

TEST_F(UsageTest, BashCompletesCommandsSubcommandsAndOptions) {
  auto script = Agtmux({"completion", "bash"});
  ASSERT_EQ(script.status, 0) << script.err;
  const std::string file = root_ + "/agtmux.bash";
  std::ofstream(file) << script.out;
  auto complete = [&](const std::string& words, int cword) {
    std::ofstream(root_ + "/complete.sh") << "source " + file + "; COMP_WORDS=(" + words +
                                                 "); COMP_CWORD=" + std::to_string(cword) +
                                                 "; _agtmux; printf '%s\\n' \"${COMPREPLY[@]}\"\n";
    return Bash("source " + root_ + "/complete.sh").out;
  };
  EXPECT_EQ(complete("agtmux li", 1), "list\n");
  EXPECT_EQ(complete("agtmux list pa", 2), "panes\n");
  EXPECT_EQ(complete("agtmux list panes --nee", 3), "--needs-action\n");
  EXPECT_EQ(complete("agtmux config ch", 2), "check\n");
  EXPECT_NE(complete("agtmux ''", 1).find("completion\n"), std::string::npos);

  auto zsh = Agtmux({"completion", "zsh"});
  EXPECT_EQ(zsh.status, 0);
  EXPECT_NE(zsh.out.find("bashcompinit"), std::string::npos);
  auto fish = Agtmux({"completion", "fish"});
  EXPECT_EQ(fish.status, 0);
  EXPECT_NE(fish.out.find("-a 'panes'"), std::string::npos) << fish.out;
  EXPECT_NE(fish.out.find("-l needs-action"), std::string::npos) << fish.out;
  EXPECT_EQ(Agtmux({"completion", "tcsh"}).status, 2);
}

TEST_F(UsageTest, TheManPageHasEveryCommandAndOption) {
  auto man = Agtmux({"manpage"});
  ASSERT_EQ(man.status, 0);
  EXPECT_EQ(man.out.rfind(".TH AGTMUX 1", 0), 0u);
  for (const char* c : {"list panes", "respond", "send", "attach", "config check", "completion", "wrap"})
    EXPECT_NE(man.out.find(std::string(".SS \"agtmux ") + c + "\""), std::string::npos) << c;
  EXPECT_NE(man.out.find("\\-\\-needs\\-action"), std::string::npos);
  EXPECT_NE(man.out.find(".SH EXIT STATUS"), std::string::npos);
  EXPECT_EQ(Agtmux({"--help"}).out.find("manpage"), std::string::npos) << "the build's command is hidden";
}

TEST_F(UsageTest, ConfigCheckNamesTheFileAndLine) {
  const std::string bad = root_ + "/bad.toml";
  std::ofstream(bad) << "[poller]\nactive_intervall = \"200ms\"\n";
  auto r = Agtmux({"config", "check", bad});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(bad + ":2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean"), std::string::npos) << r.err;
  const std::string good = root_ + "/good.toml";
  std::ofstream(good) << "[poller]\nactive_interval = \"200ms\"\n";
  r = Agtmux({"config", "check", good});
  EXPECT_EQ(r.status, 0) << r.err;
  r = Agtmux({"config", "check"});
  EXPECT_EQ(r.status, 0) << "no config file is the defaults\n" << r.err;
  EXPECT_NE(r.out.find("no config file"), std::string::npos);
}

}  // namespace
}  // namespace agt::test
