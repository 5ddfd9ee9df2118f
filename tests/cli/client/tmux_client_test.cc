// FindCallingClient (cli/client/tmux_client.h) against a fake runner: which
// tmux it asks, and how each answer reads.
#include "cli/client/tmux_client.h"

#include <gtest/gtest.h>

#include "tests/os/fake_argv_runner.h"

namespace agt::cli {
namespace {

TEST(FindCallingClient, AsksTheServerOfTmuxForTheClientOfThisPane) {
  test::FakeArgvRunner run;
  run.script = {core::RunResult{0, "/dev/pts/7\n", ""}};
  auto c = FindCallingClient("/tmp/tmux-0/work,1234,5", run);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->name, "/dev/pts/7");
  EXPECT_EQ(c->socket, "/tmp/tmux-0/work");
  ASSERT_EQ(run.calls.size(), 1u);
  EXPECT_EQ(run.calls[0], (std::vector<std::string>{"tmux", "-S", "/tmp/tmux-0/work", "display-message", "-p",
                                                    "#{client_name}"}));
  EXPECT_EQ(run.options[0].timeout, 2 * core::kNsPerSec) << "a stopped server must not hang attach";
}

TEST(FindCallingClient, OutsideTmuxAsksNothing) {
  test::FakeArgvRunner run;
  EXPECT_EQ(FindCallingClient(nullptr, run).error().code, core::Err::kNotFound);
  EXPECT_EQ(FindCallingClient("", run).error().message, "not inside tmux ($TMUX is not set)");
  EXPECT_TRUE(run.calls.empty());
}

TEST(FindCallingClient, NoClientOrAHungServerIsNotFound) {
  test::FakeArgvRunner run;
  run.script = {core::RunResult{0, "\n", ""}, core::MakeError(core::Err::kTimeout, "tmux: timed out after 2000 ms")};
  for (int i = 0; i < 2; ++i) {
    auto c = FindCallingClient("/s,1,0", run);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().message, "no tmux client shows this pane's session (tmux -S /s)");
  }
}

}  // namespace
}  // namespace agt::cli
