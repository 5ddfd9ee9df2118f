// The ssh executor against a real OpenSSH sshd on 127.0.0.1 with keys this
// test generates (never the user's): argv quoting through the remote shell,
// one persistent session, tmux on a private socket over ssh, host-key and
// auth refusals, and retries when the server is gone.
#include "aggregator/targets/ssh_executor.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <spawn.h>

#include "aggregator/observe/collector_ssh.h"
#include "tests/agg/observe/tmux_fixture.h"
#include "tests/agg/targets/sshd_fixture.h"

extern char** environ;

namespace agt::agg {
namespace {

using testing::Sshd;
using testing::TempDir;

class SshTest : public ::testing::Test {
 protected:
  TempDir dir;
  Sshd sshd{dir.path()};
};

TEST_F(SshTest, ArgvSurvivesTheRemoteShellExactly) {
  SshExecutor ex(sshd.Options());
  const std::vector<std::string> hostile = {"a b", "it's", "$HOME", "`id`", "; rm -rf /tmp/x",
                                            "*", "\"q\"", "日本語 🚀", "\t", ""};
  std::vector<std::string> argv = {"printf", "[%s]\\n"};
  argv.insert(argv.end(), hostile.begin(), hostile.end());
  auto r = ex.Run(argv, {});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  std::string expect;
  for (const auto& h : hostile) expect += "[" + h + "]\n";
  EXPECT_EQ(r->out, expect);
  EXPECT_EQ(r->exit_code, 0);
  auto r2 = ex.Run({"sh", "-c", "echo err >&2; exit 3"}, {});
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->exit_code, 3);
  EXPECT_EQ(r2->err, "err\n");
  auto r3 = ex.Run({"cat"}, ExecOptions{5 * core::kNsPerSec, "fed through stdin", 1 << 20});
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(r3->out, "fed through stdin");
  EXPECT_EQ(ex.handshakes(), 1);  // one persistent session for all commands
}

TEST_F(SshTest, RunsTmuxOnAPrivateSocket) {
  SshExecutor ex(sshd.Options());
  const std::string sock = dir.path() + "/remote tmux.sock";
  auto tmux = [&](std::vector<std::string> args) {
    // -u: the ssh session has no UTF-8 locale; without it tmux shows
    // every non-ASCII byte of a name as '_'.
    std::vector<std::string> argv = {"tmux", "-u", "-S", sock, "-f", "/dev/null"};
    argv.insert(argv.end(), args.begin(), args.end());
    return ex.Run(argv, {});
  };
  auto a = tmux({"new-session", "-d", "-s", "リモート 'x'", "-x", "80", "-y", "24"});
  ASSERT_TRUE(a.ok()) << a.error().ToString();
  ASSERT_EQ(a->exit_code, 0) << a->err;
  auto b = tmux({"list-sessions", "-F", "#{session_name}|#{window_width}"});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->out, "リモート 'x'|80\n");
  (void)tmux({"kill-server"});
  EXPECT_EQ(ex.handshakes(), 1);
}

TEST_F(SshTest, UnknownHostKeyAndWrongUserKeyAreRefusedWithoutRetrying) {
  SshOptions o = sshd.Options();
  std::ofstream(dir.path() + "/empty_known_hosts") << "";
  o.known_hosts = dir.path() + "/empty_known_hosts";
  SshExecutor ex(o);
  auto r = ex.Run({"true"}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kTargetUnreachable);
  EXPECT_NE(r.error().message.find("known_hosts"), std::string::npos) << r.error().message;

  SshOptions o2 = sshd.Options();
  o2.identity_files = {dir.path() + "/other_key"};
  SshExecutor ex2(o2);
  auto r2 = ex2.Run({"true"}, {});
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("authentication failed"), std::string::npos) << r2.error().message;
}

// A server that offers ECDSA as well as ed25519 (sshd's default set),
// with known_hosts listing one of them: the known one is asked for and
// matched. Before, libssh2 took ECDSA and compared it with the ed25519
// entry: "possible impersonation" for a correct known_hosts.
TEST(SshHostKeys, TheKnownKeyTypeIsAskedForAndMatched) {
  TempDir dir;
  Sshd sshd(dir.path(), {"ecdsa"});
  SshExecutor ed(sshd.Options());
  auto r = ed.Run({"true"}, {});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->exit_code, 0);

  SshOptions o = sshd.Options();
  o.known_hosts = dir.path() + "/known_hosts_ecdsa";
  std::ofstream(o.known_hosts) << sshd.HostField() << " " << sshd.PublicKey("host_key_ecdsa.pub") << "\n";
  SshExecutor ec(o);
  auto r2 = ec.Run({"true"}, {});
  ASSERT_TRUE(r2.ok()) << r2.error().ToString();
}

TEST(SshHostKeys, AWrongKeyOfTheRightTypeIsAMismatch) {
  TempDir dir;
  Sshd sshd(dir.path(), {"ecdsa"});
  SshOptions o = sshd.Options();
  o.known_hosts = dir.path() + "/known_hosts_wrong";
  std::ofstream(o.known_hosts) << sshd.HostField() << " " << sshd.PublicKey("other_key.pub") << "\n";
  SshExecutor ex(o);
  auto r = ex.Run({"true"}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("ssh-ed25519 key does not match"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("possible impersonation"), std::string::npos) << r.error().message;
}

TEST(SshHostKeys, ARevokedKeyIsRefusedEvenWhenAlsoListedPlainly) {
  TempDir dir;
  Sshd sshd(dir.path());
  SshOptions o = sshd.Options();
  o.known_hosts = dir.path() + "/known_hosts_revoked";
  std::ofstream(o.known_hosts) << sshd.HostField() << " " << sshd.PublicKey("host_key.pub") << "\n"
                               << "@revoked * " << sshd.PublicKey("host_key.pub") << "\n";
  SshExecutor ex(o);
  auto r = ex.Run({"true"}, {});
  ASSERT_FALSE(r.ok()) << "a revoked key was accepted";
  EXPECT_EQ(r.error().code, core::Err::kTargetUnreachable);
  EXPECT_NE(r.error().message.find("marked @revoked"), std::string::npos) << r.error().message;
  EXPECT_EQ(ex.handshakes(), 0);
}

TEST(SshTargets, OptionsAndShellWordsAreRefused) {
  for (const char* bad : {"-oProxyCommand=id", "-p22", "host;id", "host id", "user@-oX", "-@host", "h$(id)",
                          "h`id`", "a|b", "a&b", "h\nx", "h'x", "h\"x", "h\\x", "h*", "h?", "h~"}) {
    auto p = ParseSshTarget(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.error().code, core::Err::kTargetInvalid) << bad;
    EXPECT_NE(p.error().message.find("ssh_target"), std::string::npos) << p.error().message;
  }
  auto dash = ParseSshTarget("-oProxyCommand=id");
  EXPECT_NE(dash.error().message.find("may not begin with '-'"), std::string::npos) << dash.error().message;
  for (const char* good : {"devbox", "me@devbox.lan", "me@10.0.0.2:2222", "[::1]:22", "dev-box_1.example.com"})
    EXPECT_TRUE(ParseSshTarget(good).ok()) << good;
}

TEST_F(SshTest, ServerGoneIsUnreachableAfterRetriesAndBackIsReconnected) {
  SshExecutor ex(sshd.Options());
  ASSERT_TRUE(ex.Run({"true"}, {}).ok());
  sshd.Stop();
  auto r = ex.Run({"true"}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kTargetUnreachable);
  EXPECT_NE(r.error().message.find("connect"), std::string::npos) << r.error().message;
  sshd.Start();
  auto back = ex.Run({"echo", "back"}, {});
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_EQ(back->out, "back\n");
  EXPECT_EQ(ex.handshakes(), 2);
}

TEST_F(SshTest, CommandTimeout) {
  SshOptions o = sshd.Options();
  o.retry_delays = {};
  SshExecutor ex(o);
  ExecOptions eo;
  eo.timeout = 300 * core::kNsPerMs;
  auto r = ex.Run({"sleep", "5"}, eo);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kTimeout);
  auto ok = ex.Run({"echo", "fine"}, {});  // a fresh session after the timeout
  ASSERT_TRUE(ok.ok()) << ok.error().ToString();
  EXPECT_EQ(ok->out, "fine\n");
}

}  // namespace
}  // namespace agt::agg
