// The CLI helps as a user meets it: mistyped commands and options get a
// suggestion and exit 2 (the documented usage-error code, not CLI11's
// internal 106/109), `help` works, completions are generated from the
// command table and complete in a real bash, the man page lists every
// command, `config check` names the line, refs are accepted as tmux users
// type them, and tables fit 80 columns.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/agg/daemon_harness.h"

namespace agt::test {
namespace {

class UsageTest : public ::testing::Test {
 protected:
  RunResult Agtmux(std::vector<std::string> args) {
    args.insert(args.begin(), AGTMUX_BIN);
    return env_.Run(args);
  }
  TestEnv env_;
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
  const std::string file = env_.root + "/agtmux.bash";
  std::ofstream(file) << script.out;
  auto complete = [&](const std::string& words, int cword) {
    std::string cmd = "source " + file + "; COMP_WORDS=(" + words + "); COMP_CWORD=" + std::to_string(cword) +
                      "; _agtmux; printf '%s\\n' \"${COMPREPLY[@]}\"";
    return env_.Run({"/bin/bash", "--noprofile", "--norc", "-c", cmd}).out;
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
  const std::string bad = env_.root + "/bad.toml";
  std::ofstream(bad) << "[poller]\nactive_intervall = \"200ms\"\n";
  auto r = Agtmux({"config", "check", bad});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(bad + ":2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean"), std::string::npos) << r.err;
  const std::string good = env_.root + "/good.toml";
  std::ofstream(good) << "[poller]\nactive_interval = \"200ms\"\n";
  r = Agtmux({"config", "check", good});
  EXPECT_EQ(r.status, 0) << r.err;
  r = Agtmux({"config", "check"});
  EXPECT_EQ(r.status, 0) << "no config file is the defaults\n" << r.err;
  EXPECT_NE(r.out.find("no config file"), std::string::npos);
}

class UsageDaemonTest : public UsageTest {
 protected:
  void TearDown() override { Agtmux({"daemon", "stop"}); }
};

TEST_F(UsageDaemonTest, RefsAsUsersTypeThemAndFilterMistakesExplained) {
  ASSERT_EQ(Agtmux({"daemon", "start"}).status, 0);
  Daemon view(env_);
  auto r = view.Call("POST", "/v1/events",
                     "{\"events\":[" + Started("01JF0000000000000000000001", "rt-ffffffffffffffff", "%9") + "," +
                         StateEvent("01JF0000000000000000000002", "rt-ffffffffffffffff", "%9", "waiting_input", 1) +
                         "]}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;

  auto ex = Agtmux({"explain", "%9"});
  EXPECT_EQ(ex.status, 0) << ex.err;
  EXPECT_NE(ex.out.find("waiting_input"), std::string::npos) << ex.out;
  auto missing = Agtmux({"explain", "%99"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("no pane matches '%99'"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("%9"), std::string::npos) << "the agent panes there are\n" << missing.err;
  auto prefix = Agtmux({"explain", "rt-ffff"});
  EXPECT_EQ(prefix.status, 0) << "a unique runtime-id prefix\n" << prefix.err;

  auto state = Agtmux({"list", "panes", "--state", "waiting"});
  EXPECT_EQ(state.status, 1);
  EXPECT_NE(state.err.find("did you mean waiting_approval or waiting_input?"), std::string::npos) << state.err;
  auto ssh = Agtmux({"target", "add", "vm1", "--kind", "ssh"});
  EXPECT_EQ(ssh.status, 1);
  EXPECT_NE(ssh.err.find("--ssh-target"), std::string::npos) << "the flag as the user spells it\n" << ssh.err;
  auto status = Agtmux({"daemon", "status"});
  EXPECT_NE(status.out.find("1 pane (1 with an agent), 0 watchers"), std::string::npos) << status.out;
  auto agent = Agtmux({"list", "panes", "--agent", "claud"});
  EXPECT_EQ(agent.status, 0);
  EXPECT_NE(agent.out.find("no claud panes; the agent panes here are claude (did you mean claude?)"),
            std::string::npos)
      << agent.out;
}

}  // namespace
}  // namespace agt::test
