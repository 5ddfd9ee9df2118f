// A real OpenSSH sshd on 127.0.0.1 for the ssh tests, with host
// and user keys the test generates (never the user's).
#pragma once

#include <gtest/gtest.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "aggregator/targets/ssh_executor.h"
#include "aggregator/targets/target_executor.h"
#include "libagtcore/os/file.h"

extern char** environ;

namespace agt::agg::testing {

inline int FreePort() {
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
  /// `extra_host_keys`: key types (ssh-keygen -t) the server also offers,
  /// in host_key_<type>; known_hosts lists only the ed25519 host_key.
  explicit Sshd(const std::string& dir, std::vector<std::string> extra_host_keys = {})
      : dir_(dir), port_(FreePort()) {
    LocalExecutor ex;
    for (const char* k : {"host_key", "id_ed25519", "other_key"})
      EXPECT_EQ(ex.Run({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir + "/" + k}, {})->exit_code, 0);
    std::string extra_lines;
    for (const std::string& t : extra_host_keys) {
      const std::string f = dir + "/host_key_" + t;
      EXPECT_EQ(ex.Run({"ssh-keygen", "-q", "-t", t, "-N", "", "-f", f}, {})->exit_code, 0);
      extra_lines += "HostKey " + f + "\n";
    }
    std::ifstream pub(dir + "/id_ed25519.pub");
    std::string key((std::istreambuf_iterator<char>(pub)), {});
    std::ofstream(dir + "/authorized_keys") << key;
    std::ifstream hpub(dir + "/host_key.pub");
    std::string host((std::istreambuf_iterator<char>(hpub)), {});
    std::ofstream(dir + "/known_hosts") << "[127.0.0.1]:" << port_ << " " << host;
    std::ofstream cfg(dir + "/sshd_config");
    cfg << "Port " << port_ << "\nListenAddress 127.0.0.1\nHostKey " << dir << "/host_key\n" << extra_lines
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
  pid_t pid() const { return pid_; }
  /// "<type> <base64>" of a public key file in the fixture's directory.
  std::string PublicKey(const std::string& file) const {
    std::ifstream f(dir_ + "/" + file);
    std::string type, key;
    f >> type >> key;
    return type + " " + key;
  }
  /// The known_hosts host field for this server.
  std::string HostField() const { return "[127.0.0.1]:" + std::to_string(port_); }
  static std::vector<pid_t> Children(pid_t parent) {
    std::vector<pid_t> out;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
      const std::string name = e.path().filename();
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      // A process can exit between the listing and the read (ESRCH), which
      // an ifstream reports by throwing; ReadWholeFile returns an error.
      auto read = core::ReadWholeFile(e.path() / "stat");
      if (!read.ok()) continue;
      const std::string& stat = *read;
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
    o.ssh_config = "none";  // never the user's ~/.ssh/config
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

}  // namespace agt::agg::testing
