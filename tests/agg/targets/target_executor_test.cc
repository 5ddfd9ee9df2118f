// The local executor against real processes, the fake's recording, and
// shell quoting for the ssh executor.
#include "aggregator/targets/target_executor.h"
#include "tests/agg/targets/fake_executor.h"

#include <gtest/gtest.h>

#include "aggregator/targets/known_hosts.h"
#include "aggregator/targets/ssh_executor.h"

namespace agt::agg {
namespace {

TEST(LocalExecutor, ArgvIsNotAShellString) {
  LocalExecutor ex;
  auto r = ex.Run({"printf", "[%s]", "a b; echo no", "$HOME", "*"}, {});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->out, "[a b; echo no][$HOME][*]");
  EXPECT_EQ(r->exit_code, 0);
}

TEST(LocalExecutor, ExitCodesStderrStdinAndSignals) {
  LocalExecutor ex;
  auto r = ex.Run({"sh", "-c", "cat; echo oops >&2; exit 4"}, ExecOptions{core::kNsPerSec * 5, "in", 1 << 20});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out, "in");
  EXPECT_EQ(r->err, "oops\n");
  EXPECT_EQ(r->exit_code, 4);
  auto k = ex.Run({"sh", "-c", "kill -TERM $$"}, {});
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->exit_code, 128 + 15);
}

TEST(LocalExecutor, TimeoutKillsTheChild) {
  LocalExecutor ex;
  ExecOptions o;
  o.timeout = 200 * core::kNsPerMs;
  auto r = ex.Run({"sleep", "10"}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kTimeout);
}

TEST(LocalExecutor, MissingProgramIsAnIoError) {
  LocalExecutor ex;
  auto r = ex.Run({"/nonexistent/agtmux-no-such-tool"}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kIo);
  EXPECT_NE(r.error().message.find("agtmux-no-such-tool"), std::string::npos);
}

TEST(FakeExecutor, RecordsAndAnswersInOrder) {
  FakeExecutor f;
  f.script.push_back(ExecResult{0, "one", ""});
  f.script.push_back(core::MakeError(core::Err::kTimeout, "slow"));
  EXPECT_EQ(f.Run({"tmux", "a"}, {})->out, "one");
  EXPECT_FALSE(f.Run({"tmux", "b"}, {}).ok());
  EXPECT_TRUE(f.Run({"tmux", "c"}, {}).ok());
  ASSERT_EQ(f.calls.size(), 3u);
  EXPECT_EQ(f.calls[1], (std::vector<std::string>{"tmux", "b"}));
}

}  // namespace
}  // namespace agt::agg

namespace agt::agg {
namespace {

// libssh2 1.10 removes a method it does not support from a preference with
// an overlapping memcpy (AddressSanitizer aborted every ssh test): it is
// only given methods it lists as supported, in the preference's order.
TEST(KeepSupportedMethods, KeepsOnlySupportedMethodsInPreferenceOrder) {
  const std::vector<std::string> supported = {"ssh-rsa", "ecdsa-sha2-nistp256", "ssh-ed25519"};
  EXPECT_EQ(KeepSupportedMethods("ssh-ed25519,sk-ssh-ed25519@openssh.com,rsa-sha2-512,ssh-rsa", supported),
            "ssh-ed25519,ssh-rsa");
  EXPECT_EQ(KeepSupportedMethods("rsa-sha2-256", supported), "");
  EXPECT_EQ(KeepSupportedMethods("", supported), "");
}

}  // namespace
}  // namespace agt::agg
