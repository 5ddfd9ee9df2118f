// The ssh executor against a real OpenSSH sshd on 127.0.0.1 with keys this
// test generates (never the user's): argv quoting through the remote shell,
// one persistent session, tmux on a private socket over ssh, host-key and
// auth refusals, and retries when the server is gone.
#include "aggregator/ssh_executor.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <spawn.h>

#include "tests/tmux/tmux_fixture.h"

extern char** environ;

namespace agt::agg {
namespace {

using testing::TempDir;

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

/// sshd -D on a free loopback port, with generated host and user keys.
/// As root, sshd insists on /run/sshd; it then runs in a private mount
/// namespace with a tmpfs on /run, so the host's /run is never touched.
class Sshd {
 public:
  explicit Sshd(const std::string& dir) : dir_(dir), port_(FreePort()) {
    LocalExecutor ex;
    for (const char* k : {"host_key", "id_ed25519", "other_key"})
      EXPECT_EQ(ex.Run({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir + "/" + k}, {})->exit_code, 0);
    std::ifstream pub(dir + "/id_ed25519.pub");
    std::string key((std::istreambuf_iterator<char>(pub)), {});
    std::ofstream(dir + "/authorized_keys") << key;
    std::ifstream hpub(dir + "/host_key.pub");
    std::string host((std::istreambuf_iterator<char>(hpub)), {});
    std::ofstream(dir + "/known_hosts") << "[127.0.0.1]:" << port_ << " " << host;
    std::ofstream cfg(dir + "/sshd_config");
    cfg << "Port " << port_ << "\nListenAddress 127.0.0.1\nHostKey " << dir << "/host_key\n"
        << "AuthorizedKeysFile " << dir << "/authorized_keys\nStrictModes no\nPidFile " << dir
        << "/sshd.pid\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        << "PermitRootLogin prohibit-password\nLogLevel ERROR\n";
    cfg.close();
    Start();
  }
  ~Sshd() { Stop(); }
  void Start() {
    const std::string sshd = "/usr/sbin/sshd -f '" + dir_ + "/sshd_config' -D -e";
    std::vector<std::string> argv;
    if (getuid() == 0)
      argv = {"unshare", "-m", "sh", "-c",
              "mount -t tmpfs none /run && mkdir -m 755 /run/sshd && exec " + sshd};
    else
      argv = {"sh", "-c", "exec " + sshd};
    std::vector<char*> a;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, (dir_ + "/sshd.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ASSERT_EQ(posix_spawnp(&pid_, a[0], &fa, nullptr, a.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    // Ready when the port accepts.
    for (int i = 0; i < 300; ++i) {
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in sa{};
      sa.sin_family = AF_INET;
      sa.sin_port = htons(uint16_t(port_));
      sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      bool ok = connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
      close(fd);
      if (ok) return;
      usleep(10000);
    }
    FAIL() << "sshd did not start; see " << dir_ << "/sshd.log";
  }
  /// Stops the listener and the per-connection processes it forked (by
  /// pid, found through /proc), so established sessions break too.
  void Stop() {
    if (pid_ <= 0) return;
    for (pid_t child : Children(pid_)) kill(child, SIGTERM);
    kill(pid_, SIGTERM);
    int st;
    waitpid(pid_, &st, 0);
    pid_ = -1;
  }
  int port() const { return port_; }
  static std::vector<pid_t> Children(pid_t parent) {
    std::vector<pid_t> out;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
      const std::string name = e.path().filename();
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream f(e.path() / "stat");
      std::string stat((std::istreambuf_iterator<char>(f)), {});
      size_t paren = stat.rfind(')');
      if (paren == std::string::npos) continue;
      int ppid = 0;
      char state = 0;
      if (sscanf(stat.c_str() + paren + 1, " %c %d", &state, &ppid) != 2) continue;
      if (ppid == parent) {
        pid_t pid = pid_t(std::stoi(name));
        for (pid_t g : Children(pid)) out.push_back(g);
        out.push_back(pid);
      }
    }
    return out;
  }
  SshOptions Options() const {
    SshOptions o;
    o.host = "127.0.0.1";
    o.port = port_;
    o.user = getpwuid_name();
    o.known_hosts = dir_ + "/known_hosts";
    o.identity_files = {dir_ + "/id_ed25519"};
    o.use_agent = false;
    return o;
  }
  static std::string getpwuid_name() {
    const char* u = getenv("USER");
    return getuid() == 0 ? "root" : (u ? u : "");
  }

 private:
  std::string dir_;
  int port_;
  pid_t pid_ = -1;
};

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
