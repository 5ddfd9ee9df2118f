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
  EXPECT_EQ(SshFailureReason(r.error().message), "host_key_unknown");

  SshOptions o2 = sshd.Options();
  o2.identity_files = {dir.path() + "/other_key"};
  SshExecutor ex2(o2);
  auto r2 = ex2.Run({"true"}, {});
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("authentication failed"), std::string::npos) << r2.error().message;
  EXPECT_EQ(SshFailureReason(r2.error().message), "auth_failed");
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
  EXPECT_EQ(SshFailureReason(r.error().message), "host_key_mismatch");
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
  EXPECT_EQ(SshFailureReason(r.error().message), "host_key_revoked");
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
  SshOptions o = sshd.Options();
  o.reconnect_backoff = 2 * core::kNsPerSec;
  o.jitter = 0;
  SshExecutor ex(o);
  ASSERT_TRUE(ex.Run({"true"}, {}).ok());
  sshd.Stop();
  auto r = ex.Run({"true"}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kTargetUnreachable);
  EXPECT_NE(r.error().message.find("connect"), std::string::npos) << r.error().message;
  EXPECT_EQ(SshFailureReason(r.error().message), "refused");
  sshd.Start();
  // Backoff: within 2 s of the failure no connect is tried; the answer is
  // the last failure, saying when the next attempt is.
  auto held = ex.Run({"echo", "back"}, {});
  ASSERT_FALSE(held.ok());
  EXPECT_NE(held.error().message.find("next attempt in"), std::string::npos) << held.error().message;
  EXPECT_EQ(SshFailureReason(held.error().message), "refused");
  core::Result<ExecResult> back = held;
  for (int i = 0; i < 100 && !back.ok(); ++i) {
    usleep(50000);
    back = ex.Run({"echo", "back"}, {});
  }
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
  EXPECT_EQ(SshFailureReason(r.error().message), "timeout");
  auto ok = ex.Run({"echo", "fine"}, {});  // a fresh session after the timeout
  ASSERT_TRUE(ok.ok()) << ok.error().ToString();
  EXPECT_EQ(ok->out, "fine\n");
}

// ~/.ssh/config as users write it: the alias, with HostName, Port, User,
// IdentityFile (tokens) and UserKnownHostsFile, reaches the fixture.
TEST_F(SshTest, AConfigAliasResolvesToTheHostPortUserAndKey) {
  const std::string cfg = dir.path() + "/ssh_config";
  std::ofstream(cfg) << "Host elsewhere\n  Port 1\n"
                     << "Host vm !db\n  HostName 127.0.0.1\n  Port " << sshd.port() << "\n  User "
                     << Sshd::getpwuid_name() << "\n  IdentityFile " << dir.path() << "/id_%r\n"
                     << "  IdentitiesOnly yes\n  UserKnownHostsFile " << dir.path()
                     << "/known_hosts\n  ServerAliveInterval 5\n"
                     << "Host *\n  Port 1\n  IdentityFile " << dir.path() << "/other_key\n";
  std::filesystem::copy_file(dir.path() + "/id_ed25519", dir.path() + "/id_" + Sshd::getpwuid_name());
  auto target = ParseSshTarget("vm");
  ASSERT_TRUE(target.ok());
  target->ssh_config = cfg;
  target->use_agent = false;
  SshExecutor ex(*target);
  auto r = ex.Run({"echo", "via alias"}, {});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->out, "via alias\n");
  EXPECT_EQ(ex.Describe(), "ssh:vm");

  // A config agtmux cannot read is refused at once, naming file:line.
  std::ofstream(cfg, std::ios::app) << "  ConnectTimeout soon\n";
  SshExecutor bad(*target);
  auto e = bad.Run({"true"}, {});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, core::Err::kTargetUnreachable);
  EXPECT_NE(e.error().message.find(cfg + ":14: ConnectTimeout"), std::string::npos) << e.error().message;
  EXPECT_EQ(SshFailureReason(e.error().message), "config_invalid");
}

// known_hosts as `ssh-keygen -H` leaves it: every name hashed
// (|1|salt|HMAC-SHA1 of "[127.0.0.1]:port").
TEST_F(SshTest, HashedKnownHostsAreAcceptedAndStillChecked) {
  const std::string kh = dir.path() + "/known_hosts_hashed";
  std::filesystem::copy_file(dir.path() + "/known_hosts", kh);
  LocalExecutor local;
  auto h = local.Run({"ssh-keygen", "-q", "-H", "-f", kh}, {});
  ASSERT_TRUE(h.ok());
  ASSERT_EQ(h->exit_code, 0) << h->err;
  auto text = core::ReadWholeFile(kh);
  ASSERT_TRUE(text.ok());
  ASSERT_EQ(text->rfind("|1|", 0), 0u) << *text;
  ASSERT_EQ(text->find("127.0.0.1"), std::string::npos) << *text;
  SshOptions o = sshd.Options();
  o.known_hosts = kh;
  SshExecutor ex(o);
  auto r = ex.Run({"true"}, {});
  ASSERT_TRUE(r.ok()) << r.error().ToString();

  // The same hashed name with another key is a mismatch, not a pass.
  const std::string salted = text->substr(0, text->find(' '));
  const std::string wrong = dir.path() + "/known_hosts_hashed_wrong";
  std::ofstream(wrong) << salted << " " << sshd.PublicKey("other_key.pub") << "\n";
  o.known_hosts = wrong;
  SshExecutor ex2(o);
  auto r2 = ex2.Run({"true"}, {});
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("possible impersonation"), std::string::npos) << r2.error().message;
}

TEST_F(SshTest, CertAuthorityLinesAreSaidToBeUnsupported) {
  SshOptions o = sshd.Options();
  o.known_hosts = dir.path() + "/known_hosts_ca";
  std::ofstream(o.known_hosts) << "@cert-authority * " << sshd.PublicKey("other_key.pub") << "\n";
  SshExecutor ex(o);
  auto r = ex.Run({"true"}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("@cert-authority lines are not supported"), std::string::npos)
      << r.error().message;
}

// Two sshds, "bastion" and "inner", and the options of a target reached
// through the first: ProxyJump in an ssh_config of the test's own, with
// `bastion_extra` (ssh_config lines) for the jump host.
struct JumpPair {
  explicit JumpPair(const std::string& bastion_extra) {
    const std::string cfg = tdir.path() + "/ssh_config";
    std::ofstream(cfg) << "Host bastion\n  HostName 127.0.0.1\n  Port " << jump.port() << "\n  IdentityFile "
                       << jdir.path() << "/id_ed25519\n  UserKnownHostsFile " << jdir.path() << "/known_hosts\n"
                       << bastion_extra << "Host inner\n  HostName 127.0.0.1\n  Port " << target.port()
                       << "\n  IdentityFile " << tdir.path() << "/id_ed25519\n  UserKnownHostsFile "
                       << tdir.path() << "/known_hosts\n  ProxyJump " << Sshd::getpwuid_name() << "@bastion\n";
    options.host = "inner";
    options.ssh_config = cfg;
    options.use_agent = false;
  }
  TempDir jdir, tdir;
  Sshd jump{jdir.path()};
  Sshd target{tdir.path()};
  SshOptions options;
};

// ProxyJump through a second sshd: the target's session runs over a
// direct-tcpip channel on the jump host's session.
TEST(SshProxyJump, OneHopThroughASecondSshd) {
  JumpPair hosts("  ServerAliveInterval 1\n");
  Sshd& jump = hosts.jump;
  const SshOptions o = hosts.options;
  SshExecutor ex(o);
  auto r = ex.Run({"echo", "through the jump"}, {});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->out, "through the jump\n");
  // Enough bytes both ways to fill the relay's and the channels' windows.
  std::string big(3 << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 4096) big[i] = char('a' + i / 4096 % 26);
  auto echo = ex.Run({"cat"}, ExecOptions{20 * core::kNsPerSec, big, 8 << 20});
  ASSERT_TRUE(echo.ok()) << echo.error().ToString();
  EXPECT_TRUE(echo->out == big) << echo->out.size();
  EXPECT_EQ(ex.handshakes(), 1);

  // With the jump host gone (the target's sshd still up), the target is
  // unreachable and the reason names the ProxyJump.
  jump.Stop();
  SshExecutor again(o);
  auto down = again.Run({"true"}, {});
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.error().code, core::Err::kTargetUnreachable);
  EXPECT_NE(down.error().message.find("proxy failed: ProxyJump 127.0.0.1:" + std::to_string(jump.port())),
            std::string::npos)
      << down.error().message;
  EXPECT_EQ(SshFailureReason(down.error().message), "proxy_failed");
  // The established session through it broke too; the reconnect says why.
  auto broken = ex.Run({"true"}, {});
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("proxy failed"), std::string::npos) << broken.error().message;
}

// A jump host that freezes under an established session (its connection's
// sshd stopped, not killed: nothing closes) is found silent by the relay's
// keepalives, and the command fails as unreachable instead of waiting out
// its own timeout.
TEST(SshProxyJump, AFrozenJumpHostIsDeclaredDeadByItsKeepalives) {
  JumpPair hosts("  ServerAliveInterval 1\n  ServerAliveCountMax 2\n");
  Sshd& jump = hosts.jump;
  SshOptions o = hosts.options;
  o.retry_delays = {};
  SshExecutor ex(o);
  auto r = ex.Run({"echo", "up"}, {});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  const std::vector<pid_t> frozen = Sshd::Children(jump.pid());
  ASSERT_FALSE(frozen.empty());
  for (pid_t p : frozen) kill(p, SIGSTOP);
  auto stuck = ex.Run({"sleep", "1"}, ExecOptions{30 * core::kNsPerSec, {}, 1 << 20});
  for (pid_t p : frozen) kill(p, SIGCONT);
  ASSERT_FALSE(stuck.ok());
  EXPECT_NE(stuck.error().code, core::Err::kTimeout) << stuck.error().ToString();
}

// A passphrase-protected key: refused with the reason without an agent,
// used through the agent (our own ssh-agent, ended by its pid).
TEST_F(SshTest, AnEncryptedKeyWorksThroughTheAgentOnly) {
  LocalExecutor local;
  const std::string key = dir.path() + "/locked_key";
  ASSERT_EQ(local.Run({"ssh-keygen", "-q", "-t", "ed25519", "-N", "sesame", "-f", key}, {})->exit_code, 0);
  {
    std::ifstream pub(key + ".pub");
    std::string line((std::istreambuf_iterator<char>(pub)), {});
    std::ofstream(dir.path() + "/authorized_keys", std::ios::app) << line;
  }
  SshOptions o = sshd.Options();
  o.identity_files = {key};
  SshExecutor without(o);
  auto refused = without.Run({"true"}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("authentication failed"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("passphrase-protected"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("ssh-agent"), std::string::npos) << refused.error().message;
  EXPECT_EQ(SshFailureReason(refused.error().message), "auth_failed");

  const std::string sock = dir.path() + "/agent.sock";
  std::vector<std::string> argv = {"ssh-agent", "-D", "-a", sock};
  std::vector<char*> a;
  for (auto& s : argv) a.push_back(s.data());
  a.push_back(nullptr);
  pid_t agent = -1;
  ASSERT_EQ(posix_spawnp(&agent, "ssh-agent", nullptr, nullptr, a.data(), environ), 0);
  for (int i = 0; i < 300 && !std::filesystem::exists(sock); ++i) usleep(10000);
  const std::string askpass = dir.path() + "/askpass";
  std::ofstream(askpass) << "#!/bin/sh\necho sesame\n";
  std::filesystem::permissions(askpass, std::filesystem::perms::owner_all);
  auto added = local.Run({"env", "SSH_AUTH_SOCK=" + sock, "SSH_ASKPASS=" + askpass, "SSH_ASKPASS_REQUIRE=force",
                          "ssh-add", key},
                         {});
  const char* saved = getenv("SSH_AUTH_SOCK");
  const std::string saved_value = saved ? saved : "";
  setenv("SSH_AUTH_SOCK", sock.c_str(), 1);
  o.use_agent = true;
  SshExecutor with(o);
  auto r = with.Run({"echo", "agent"}, {});
  if (saved) setenv("SSH_AUTH_SOCK", saved_value.c_str(), 1);
  else unsetenv("SSH_AUTH_SOCK");
  kill(agent, SIGTERM);
  waitpid(agent, nullptr, 0);
  ASSERT_TRUE(added.ok());
  ASSERT_EQ(added->exit_code, 0) << added->err;
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->out, "agent\n");
}

}  // namespace
}  // namespace agt::agg
