// The OpenSSH client config reader: Host patterns, first value wins,
// Match, Include, tokens, malformed lines named by file:line, and the
// options an ssh target ends up with (ResolveSshOptions).
#include "aggregator/targets/ssh_config.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "aggregator/targets/ssh_executor.h"

namespace agt::agg {
namespace {

SshHostConfig Parse(std::string_view text, std::string_view host) {
  SshHostConfig cfg;
  auto st = ParseSshConfig(text, "cfg", host, "/nonexistent",
                           [](const std::string& p) -> core::Result<std::string> {
                             return core::MakeError(core::Err::kNotFound, p);
                           },
                           cfg);
  EXPECT_TRUE(st.ok()) << st.error().ToString();
  return cfg;
}

core::Error ParseError(std::string_view text) {
  SshHostConfig cfg;
  auto st = ParseSshConfig(text, "cfg", "vm", "/nonexistent",
                           [](const std::string& p) -> core::Result<std::string> {
                             return core::MakeError(core::Err::kNotFound, p);
                           },
                           cfg);
  EXPECT_FALSE(st.ok()) << text;
  return st.ok() ? core::Error{core::Err::kInternal, "parsed"} : st.error();
}

TEST(SshHostMatches, WildcardsAndNegation) {
  EXPECT_TRUE(SshHostMatches("vm", "vm"));
  EXPECT_TRUE(SshHostMatches("VM", "vm"));  // host names ignore case
  EXPECT_FALSE(SshHostMatches("vm", "vm1"));
  EXPECT_TRUE(SshHostMatches("vm?", "vm1"));
  EXPECT_FALSE(SshHostMatches("vm?", "vm12"));
  EXPECT_TRUE(SshHostMatches("*.lan", "a.b.lan"));
  EXPECT_FALSE(SshHostMatches("*.lan", "lan"));
  EXPECT_TRUE(SshHostMatches("other *", "anything"));
  EXPECT_TRUE(SshHostMatches("*.lan,db", "db"));
  // A negated match excludes the host whatever else matches, in any order.
  EXPECT_FALSE(SshHostMatches("*.lan !bastion.lan", "bastion.lan"));
  EXPECT_FALSE(SshHostMatches("!bastion.lan *.lan", "bastion.lan"));
  EXPECT_TRUE(SshHostMatches("*.lan !bastion.lan", "db.lan"));
  EXPECT_FALSE(SshHostMatches("!bastion.lan", "db.lan"));  // a negation alone matches nothing
  EXPECT_FALSE(SshHostMatches("", "vm"));
}

TEST(SshConfig, FirstValueWinsAndIdentityFilesAccumulate) {
  auto cfg = Parse(
      "# comment\n"
      "Host vm\n"
      "  HostName %h.example.com\n"
      "  Port 2222\n"
      "  IdentityFile ~/.ssh/vm_key\n"
      "Host *\n"
      "  Port 22\n"
      "  User everyone\n"
      "  HostName other\n"
      "  IdentityFile ~/.ssh/id_ed25519\n"
      "  ServerAliveInterval=15\n"
      "  ServerAliveCountMax 2\n"
      "  ConnectTimeout 7\n"
      "  IdentitiesOnly yes\n"
      "  UserKnownHostsFile \"/path with space/kh\" /second\n"
      "  SomeKeywordAgtmuxDoesNotKnow whatever\n",
      "vm");
  EXPECT_EQ(cfg.hostname.value_or("-"), "vm.example.com");
  EXPECT_EQ(cfg.port.value_or(0), 2222);
  EXPECT_EQ(cfg.user.value_or("-"), "everyone");
  EXPECT_EQ(cfg.identity_files, (std::vector<std::string>{"~/.ssh/vm_key", "~/.ssh/id_ed25519"}));
  EXPECT_EQ(cfg.server_alive_interval.value_or(0), 15);
  EXPECT_EQ(cfg.server_alive_count_max.value_or(0), 2);
  EXPECT_EQ(cfg.connect_timeout.value_or(0), 7);
  EXPECT_TRUE(cfg.identities_only.value_or(false));
  EXPECT_EQ(cfg.user_known_hosts_file.value_or("-"), "/path with space/kh");

  auto other = Parse("Host vm\n Port 2222\nHost *\n Port 22\n", "db");
  EXPECT_EQ(other.port.value_or(0), 22);
  auto none = Parse("Host vm\n Port 2222\n", "db");
  EXPECT_FALSE(none.port.has_value());
}

TEST(SshConfig, MatchAllAppliesOtherMatchBlocksAreSkipped) {
  auto cfg = Parse("Match exec \"true\"\n Port 1\nMatch all\n User u\nHost vm\n Port 3\n", "vm");
  EXPECT_EQ(cfg.port.value_or(0), 3);
  EXPECT_EQ(cfg.user.value_or("-"), "u");
}

TEST(SshConfig, MalformedLinesAreNamedByFileAndLine) {
  auto e = ParseError("Host vm\n  Port twenty\n");
  EXPECT_EQ(e.code, core::Err::kConfigInvalid);
  EXPECT_NE(e.message.find("cfg:2"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("Port"), std::string::npos) << e.message;
  e = ParseError("Host vm\n\n  Port 70000\n");
  EXPECT_NE(e.message.find("cfg:3"), std::string::npos) << e.message;
  e = ParseError("User\n");
  EXPECT_NE(e.message.find("cfg:1: user without a value"), std::string::npos) << e.message;
  e = ParseError("Host vm\n IdentityFile \"/unterminated\n");
  EXPECT_NE(e.message.find("cfg:2: unterminated quote"), std::string::npos) << e.message;
  e = ParseError("IdentitiesOnly perhaps\n");
  EXPECT_NE(e.message.find("IdentitiesOnly"), std::string::npos) << e.message;
  // A bad line in a block for another host is still an error (OpenSSH
  // refuses the file too).
  e = ParseError("Host other\n Port x\n");
  EXPECT_NE(e.message.find("cfg:2: Port"), std::string::npos) << e.message;
}

class SshConfigFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/agtmux-sshcfg-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
    return path;
  }
  std::string dir;
};

TEST_F(SshConfigFiles, IncludeIsRelativeToTheConfigsDirectoryAndGlobbed) {
  Write("conf.d/10-vm", "Host vm\n  Port 2201\n");
  Write("conf.d/20-vm", "Host vm\n  Port 2202\n  User second\n");
  const std::string main = Write("config", "Include conf.d/*\nHost *\n  Port 22\n  User last\n");
  auto cfg = ReadSshConfig(main, "vm");
  ASSERT_TRUE(cfg.ok()) << cfg.error().ToString();
  EXPECT_EQ(cfg->port.value_or(0), 2201);  // conf.d/10-vm is read first
  EXPECT_EQ(cfg->user.value_or("-"), "second");

  Write("bad.conf", "Host *\n Port x\n");
  const std::string with_bad = Write("config2", "Include " + dir + "/bad.conf\n");
  auto bad = ReadSshConfig(with_bad, "vm");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("bad.conf:2"), std::string::npos) << bad.error().message;

  auto missing = ReadSshConfig(dir + "/no-such-config", "vm");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->port.has_value());
}

TEST(SshTokens, Expanded) {
  SshTokens t{"/home/me", "me", "vm.example", "dev", 2222, "vm"};
  EXPECT_EQ(*ExpandSshTokens("~/.ssh/id_%h_%r", t), "/home/me/.ssh/id_vm.example_dev");
  EXPECT_EQ(*ExpandSshTokens("%d/k-%u-%p-%n-100%%", t), "/home/me/k-me-2222-vm-100%");
  auto bad = ExpandSshTokens("~/.ssh/%C", t);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("%C"), std::string::npos) << bad.error().message;
}

TEST_F(SshConfigFiles, ResolvedOptionsGivenValuesWinOverTheConfig) {
  const std::string cfg = Write("config",
                                "Host vm\n"
                                "  HostName 10.0.0.5\n"
                                "  User dev\n"
                                "  Port 2222\n"
                                "  IdentityFile %d/keys/%r@%h\n"
                                "  UserKnownHostsFile " + dir + "/kh\n"
                                "  ConnectTimeout 9\n"
                                "  ServerAliveInterval 30\n"
                                "  ProxyJump jumper@bastion:2200\n"
                                "Host bastion\n"
                                "  HostName 10.0.0.1\n"
                                "  IdentityFile /keys/bastion\n");
  // %d and the defaults come from $HOME: this test's own.
  const char* saved = getenv("HOME");
  const std::string saved_home = saved ? saved : "";
  const std::string home = dir + "/home";
  setenv("HOME", home.c_str(), 1);
  struct Restore {
    const char* saved;
    std::string value;
    ~Restore() { saved ? setenv("HOME", value.c_str(), 1) : unsetenv("HOME"); }
  } restore{saved, saved_home};
  SshOptions given;
  given.host = "vm";
  given.ssh_config = cfg;
  auto r = ResolveSshOptions(given);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->host, "10.0.0.5");
  EXPECT_EQ(r->user, "dev");
  EXPECT_EQ(r->port, 2222);
  EXPECT_EQ(r->identity_files, (std::vector<std::string>{home + "/keys/dev@10.0.0.5"}));
  EXPECT_EQ(r->known_hosts, dir + "/kh");
  EXPECT_EQ(r->connect_timeout, 9 * core::kNsPerSec);
  EXPECT_EQ(r->keepalive_interval, 30 * core::kNsPerSec);
  EXPECT_EQ(r->ssh_config, "none");
  ASSERT_EQ(r->proxy_jump.size(), 1u);
  EXPECT_EQ(r->proxy_jump[0].host, "10.0.0.1");  // the hop is read through the config too
  EXPECT_EQ(r->proxy_jump[0].user, "jumper");
  EXPECT_EQ(r->proxy_jump[0].port, 2200);
  EXPECT_EQ(r->proxy_jump[0].identity_files, (std::vector<std::string>{"/keys/bastion"}));

  given.user = "me";
  given.port = 22;
  auto r2 = ResolveSshOptions(given);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->user, "me");  // user@ and :port in the target win, as on ssh's command line
  EXPECT_EQ(r2->port, 22);

  SshOptions plain;
  plain.host = "db";
  plain.ssh_config = cfg;
  auto p = ResolveSshOptions(plain);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->host, "db");
  EXPECT_EQ(p->port, 22);
  EXPECT_EQ(p->known_hosts, home + "/.ssh/known_hosts");
  EXPECT_EQ(p->connect_timeout, 3 * core::kNsPerSec);
  EXPECT_TRUE(p->proxy_jump.empty());
}

TEST_F(SshConfigFiles, ProxyCommandIsRefusedNotIgnored) {
  const std::string cfg = Write("config", "Host vm\n  ProxyCommand nc %h %p\nHost off\n  ProxyCommand none\n");
  SshOptions given;
  given.host = "vm";
  given.ssh_config = cfg;
  auto r = ResolveSshOptions(given);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kUnsupported);
  EXPECT_NE(r.error().message.find("ProxyCommand is not supported"), std::string::npos) << r.error().message;
  given.host = "off";
  EXPECT_TRUE(ResolveSshOptions(given).ok());
}

TEST_F(SshConfigFiles, ProxyJumpOfMoreThanOneHopIsRefusedByName) {
  const std::string cfg = Write("config",
                                "Host two\n  ProxyJump a,b\n"
                                "Host chain\n  ProxyJump hop\n"
                                "Host hop\n  ProxyJump other\n");
  for (const char* host : {"two", "chain"}) {
    SshOptions given;
    given.host = host;
    given.ssh_config = cfg;
    auto r = ResolveSshOptions(given);
    ASSERT_FALSE(r.ok()) << host;
    EXPECT_EQ(r.error().code, core::Err::kUnsupported);
    EXPECT_NE(r.error().message.find("ProxyJump"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("more than one hop"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace agt::agg
