// The CLI against the real daemon: refs are accepted as tmux users type
// them and filter mistakes are explained (the binaries as built, end to
// end). Usage, help, completion, the man page and config check run
// in-process in usage_unit_test.cc.
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
