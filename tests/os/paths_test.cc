#include "libagtcore/os/paths.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

namespace agt::core {
namespace {

/// An environment made of a map, so tests never read the real one.
EnvFn MapEnv(const std::map<std::string, std::string>& vars) {
  auto copy = std::make_shared<std::map<std::string, std::string>>(vars);
  return [copy](const char* name) -> const char* {
    auto it = copy->find(name);
    return it == copy->end() ? nullptr : it->second.c_str();
  };
}

TEST(PathsTest, DefaultsFollowHome) {
  Result<Paths> p = ResolvePaths(MapEnv({{"HOME", "/home/u"}}));
  ASSERT_TRUE(p.ok()) << p.error().ToString();
  EXPECT_EQ(p->state_dir, "/home/u/.local/state/agtmux");
  EXPECT_EQ(p->config_dir, "/home/u/.config/agtmux");
  EXPECT_EQ(p->socket_path, "/home/u/.local/state/agtmux/agtmuxd.sock");
  EXPECT_EQ(p->socket_dir, "/home/u/.local/state/agtmux");
  EXPECT_EQ(p->db_path, "/home/u/.local/state/agtmux/agtmux.db");
  EXPECT_EQ(p->log_path, "/home/u/.local/state/agtmux/agtmuxd.log");
  EXPECT_EQ(p->spool_dir, "/home/u/.local/state/agtmux/spool");
  EXPECT_EQ(p->config_file, "/home/u/.config/agtmux/config.toml");
  EXPECT_EQ(p->user_patterns_dir, "/home/u/.config/agtmux/patterns");
}

TEST(PathsTest, XdgVariablesWinOverHome) {
  Result<Paths> p = ResolvePaths(MapEnv({{"HOME", "/home/u"},
                                         {"XDG_RUNTIME_DIR", "/run/user/1000"},
                                         {"XDG_STATE_HOME", "/s"},
                                         {"XDG_CONFIG_HOME", "/c"}}));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->socket_path, "/run/user/1000/agtmux/agtmuxd.sock");
  EXPECT_EQ(p->socket_dir, "/run/user/1000/agtmux");
  EXPECT_EQ(p->state_dir, "/s/agtmux");
  EXPECT_EQ(p->config_file, "/c/agtmux/config.toml");
}

TEST(PathsTest, RelativeOrEmptyXdgValuesAreIgnored) {
  Result<Paths> p = ResolvePaths(MapEnv(
      {{"HOME", "/home/u"}, {"XDG_STATE_HOME", "rel"}, {"XDG_CONFIG_HOME", ""},
       {"XDG_RUNTIME_DIR", "run"}}));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->state_dir, "/home/u/.local/state/agtmux");
  EXPECT_EQ(p->config_dir, "/home/u/.config/agtmux");
  EXPECT_EQ(p->socket_path, "/home/u/.local/state/agtmux/agtmuxd.sock");
}

TEST(PathsTest, AgtmuxOverridesWinOverEverything) {
  Result<Paths> p = ResolvePaths(MapEnv({{"XDG_RUNTIME_DIR", "/run/user/1"},
                                         {"AGTMUX_SOCKET", "/t/x/d.sock"},
                                         {"AGTMUX_STATE_DIR", "/t/state"},
                                         {"AGTMUX_CONFIG_DIR", "/t/conf"}}));
  ASSERT_TRUE(p.ok()) << p.error().ToString();  // no HOME needed
  EXPECT_EQ(p->socket_path, "/t/x/d.sock");
  EXPECT_EQ(p->socket_dir, "/t/x");
  EXPECT_EQ(p->db_path, "/t/state/agtmux.db");
  EXPECT_EQ(p->config_file, "/t/conf/config.toml");
}

TEST(PathsTest, ErrorsWithoutHomeOrOverrides) {
  Result<Paths> p = ResolvePaths(MapEnv({}));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, Err::kConfigInvalid);
  EXPECT_NE(p.error().message.find("HOME"), std::string::npos);
  EXPECT_FALSE(ResolvePaths(MapEnv({{"AGTMUX_STATE_DIR", "/s"}})).ok());  // config dir?
}

TEST(PathsTest, RejectsASocketPathTooLongForSunPath) {
  Result<Paths> p =
      ResolvePaths(MapEnv({{"HOME", "/h"}, {"AGTMUX_SOCKET", "/" + std::string(200, 'x')}}));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("at most 107"), std::string::npos) << p.error().message;
}

TEST(PathsTest, RealEnvReadsTheProcessEnvironment) {
  EnvFn env = RealEnv();
  const char* path = std::getenv("PATH");
  ASSERT_NE(path, nullptr);
  EXPECT_STREQ(env("PATH"), path);
  EXPECT_EQ(env("AGTMUX_SURELY_UNSET_VARIABLE_1234"), nullptr);
}

class EnsureDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/agtmux-paths-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  unsigned Mode(const std::string& p) {
    struct stat st {};
    EXPECT_EQ(stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
  }
  std::string root_;
};

TEST_F(EnsureDirTest, CreatesEachComponentWithTheModeDespiteUmask) {
  mode_t old = umask(077);
  std::string deep = root_ + "/a/b/c";
  Status st = EnsureDir(deep, 0755);
  umask(old);
  ASSERT_TRUE(st.ok()) << st.error().ToString();
  EXPECT_EQ(Mode(root_ + "/a"), 0755u);
  EXPECT_EQ(Mode(deep), 0755u);
  EXPECT_TRUE(EnsureDir(deep, 0755).ok());  // idempotent
  EXPECT_TRUE(EnsureDir(deep + "/", 0755).ok());
}

TEST_F(EnsureDirTest, NarrowsAWiderExistingDirectory) {
  std::string sock_dir = root_ + "/sock";
  ASSERT_EQ(mkdir(sock_dir.c_str(), 0700), 0);
  ASSERT_EQ(chmod(sock_dir.c_str(), 0777), 0);
  ASSERT_TRUE(EnsureDir(sock_dir, 0700).ok());
  EXPECT_EQ(Mode(sock_dir), 0700u);
  // A narrower directory is left alone.
  ASSERT_EQ(chmod(sock_dir.c_str(), 0500), 0);
  ASSERT_TRUE(EnsureDir(sock_dir, 0700).ok());
  EXPECT_EQ(Mode(sock_dir), 0500u);
  chmod(sock_dir.c_str(), 0700);
}

TEST_F(EnsureDirTest, FailsWhenAComponentIsAFile) {
  std::string file = root_ + "/file";
  FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  Status st = EnsureDir(file + "/sub", 0700);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, Err::kIo);
  EXPECT_NE(st.error().message.find("not a directory"), std::string::npos);
  EXPECT_FALSE(EnsureDir("", 0700).ok());
}

}  // namespace
}  // namespace agt::core
