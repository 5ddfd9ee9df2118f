// `agtmux setup` as a user runs it, on a sandbox HOME: permissions kept, a
// timestamped backup, idempotent, --dry-run writes nothing, a malformed
// file is refused and left untouched, --remove restores the original.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct CmdResult {
  int status = -1;
  std::string out;
};

class SetupCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("AGTMUX_BIN");
    ASSERT_NE(bin, nullptr) << "AGTMUX_BIN must name the agtmux binary";
    bin_ = bin;
    char tmpl[] = "/tmp/agtmux-setup-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    home_ = tmpl;
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + home_ + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }

  CmdResult Agtmux(const std::vector<std::string>& args) {
    std::string cmd = "env -i HOME='" + home_ + "' XDG_STATE_HOME='" + home_ +
                      "/state' PATH=/usr/bin:/bin '" + bin_ + "'";
    for (const auto& a : args) cmd += " '" + a + "'";
    cmd += " 2>&1";
    CmdResult r;
    FILE* p = popen(cmd.c_str(), "r");
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
  }

  int CountBackups(const std::string& dir) {
    int n = 0;
    DIR* d = opendir(dir.c_str());
    if (!d) return 0;
    while (dirent* e = readdir(d))
      if (std::string(e->d_name).find(".agtmux-backup-") != std::string::npos) ++n;
    closedir(d);
    return n;
  }

  void Write(const std::string& path, const std::string& text, mode_t mode) {
    std::string dir = path.substr(0, path.rfind('/'));
    std::string cmd = "mkdir -p '" + dir + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    std::ofstream(path, std::ios::binary) << text;
    ASSERT_EQ(chmod(path.c_str(), mode), 0);
  }

  std::string bin_, home_;
};

TEST_F(SetupCommandTest, ClaudeCycleKeepsModeBacksUpAndRestores) {
  const std::string path = home_ + "/.claude/settings.json";
  const std::string original = "{\n  \"model\": \"opus\"\n}\n";
  Write(path, original, 0600);

  CmdResult dry = Agtmux({"setup", "claude", "--dry-run"});
  EXPECT_EQ(dry.status, 0) << dry.out;
  EXPECT_NE(dry.out.find("hook claude"), std::string::npos);
  EXPECT_EQ(ReadFile(path), original);
  EXPECT_EQ(CountBackups(home_ + "/.claude"), 0);

  CmdResult first = Agtmux({"setup", "claude"});
  ASSERT_EQ(first.status, 0) << first.out;
  std::string merged = ReadFile(path);
  EXPECT_NE(merged.find(bin_ + " hook claude"), std::string::npos) << merged;
  struct stat st{};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(CountBackups(home_ + "/.claude"), 1);

  CmdResult second = Agtmux({"setup", "claude"});
  ASSERT_EQ(second.status, 0) << second.out;
  EXPECT_NE(second.out.find("already set up"), std::string::npos) << second.out;
  EXPECT_EQ(ReadFile(path), merged);
  EXPECT_EQ(CountBackups(home_ + "/.claude"), 1);

  CmdResult removed = Agtmux({"setup", "claude", "--remove"});
  ASSERT_EQ(removed.status, 0) << removed.out;
  EXPECT_EQ(ReadFile(path), original);
}

TEST_F(SetupCommandTest, MalformedFileIsRefusedAndUntouched) {
  const std::string path = home_ + "/.gemini/settings.json";
  const std::string broken = "{\n  \"a\": 1,\n}\n";
  Write(path, broken, 0644);
  CmdResult r = Agtmux({"setup", "gemini"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find(path + ":3:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("terminate"), std::string::npos) << r.out;  // no crash text
  EXPECT_EQ(ReadFile(path), broken);
  EXPECT_EQ(CountBackups(home_ + "/.gemini"), 0);
}

TEST_F(SetupCommandTest, CodexChainsAndRemoveRestoresBytes) {
  const std::string path = home_ + "/.codex/config.toml";
  const std::string original = "# mine\nnotify = [\"my-notifier\"]\n\n[tui]\nanimations = false\n";
  Write(path, original, 0640);
  CmdResult first = Agtmux({"setup", "codex"});
  ASSERT_EQ(first.status, 0) << first.out;
  std::string merged = ReadFile(path);
  EXPECT_NE(merged.find("\"codex-notify\", \"--chain\", \"my-notifier\"]"), std::string::npos)
      << merged;
  EXPECT_NE(merged.find("notification_method = \"osc9\""), std::string::npos);
  CmdResult second = Agtmux({"setup", "codex"});
  EXPECT_EQ(ReadFile(path), merged);
  CmdResult removed = Agtmux({"setup", "codex", "--remove"});
  ASSERT_EQ(removed.status, 0) << removed.out;
  EXPECT_EQ(ReadFile(path), original);
  struct stat st{};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST_F(SetupCommandTest, UnknownAgentIsAnError) {
  CmdResult r = Agtmux({"setup", "cursor"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("unknown agent \"cursor\""), std::string::npos) << r.out;
}

}  // namespace
