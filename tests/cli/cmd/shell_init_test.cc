// Runs the functions of `agtmux shell-init` in real bash, zsh and fish, with
// a recording stand-in for `agtmux` and for the agent binaries on PATH, and
// checks who received which argv, byte for byte.
#include "cli/cmd/shell_init.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace agt::cli {
namespace {

std::string MakeTempDir() {
  char tmpl[] = "/tmp/agtmux-shellinit-XXXXXX";
  const char* d = mkdtemp(tmpl);
  EXPECT_NE(d, nullptr);
  return d ? d : "";
}

void WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path, std::ios::binary) << text;
  chmod(path.c_str(), mode);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fixture with bin/agtmux and bin/claude that append "<who>\0arg\0arg\0\n"
// to a log, so the test sees exactly which program ran with which argv.
class ShellInitTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    mkdir((dir_ + "/bin").c_str(), 0755);
    log_ = dir_ + "/calls.log";
    const std::string recorder =
        "#!/bin/sh\n"
        "{ printf '%s\\0' \"$(basename \"$0\")\"; for a in \"$@\"; do printf '%s\\0' \"$a\"; done;"
        " printf '\\n'; } >> \"" + log_ + "\"\n";
    WriteFile(dir_ + "/bin/agtmux", recorder, 0755);
    WriteFile(dir_ + "/bin/claude", recorder, 0755);
    WriteFile(dir_ + "/bin/gemini", recorder, 0755);
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir_ + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }

  bool HaveShell(const std::string& shell) {
    std::string cmd = "command -v " + shell + " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
  }

  // Runs `body` in `shell` after loading the init script; `env` is a list of
  // NAME=VALUE set for the shell (PATH is set to the fixture's bin first).
  void Run(const std::string& shell, const std::string& body,
           const std::vector<std::string>& env, bool with_agtmux = true) {
    auto script = ShellInitScript(shell, {"claude", "codex", "gemini"});
    ASSERT_TRUE(script.ok()) << script.error().ToString();
    WriteFile(dir_ + "/init." + shell, *script, 0644);
    if (!with_agtmux) unlink((dir_ + "/bin/agtmux").c_str());
    std::string prog = (shell == "fish" ? "source " : ". ") + dir_ + "/init." + shell +
                       "\n" + body + "\n";
    WriteFile(dir_ + "/body." + shell, prog, 0644);

    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::vector<std::string> envs = {"PATH=" + dir_ + "/bin:/usr/bin:/bin",
                                       "HOME=" + dir_, "XDG_CONFIG_HOME=" + dir_ + "/cfg",
                                       "XDG_DATA_HOME=" + dir_ + "/data"};
      for (const auto& e : env) envs.push_back(e);
      std::vector<char*> envp;
      for (auto& e : envs) envp.push_back(e.data());
      envp.push_back(nullptr);
      std::string path = "/usr/bin/" + shell;
      if (access(path.c_str(), X_OK) != 0) path = "/bin/" + shell;
      std::string file = dir_ + "/body." + shell;
      std::string arg0 = shell;
      std::vector<char*> argv = {arg0.data(), file.data(), nullptr};
      execve(path.c_str(), argv.data(), envp.data());
      _exit(127);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0) << shell << " failed running:\n" << body;
  }

  // Each logged call as its argv vector.
  std::vector<std::vector<std::string>> Calls() {
    std::vector<std::vector<std::string>> calls;
    std::string text = ReadFile(log_);
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find("\0\n", pos, 2);
      if (nl == std::string::npos) break;
      std::vector<std::string> argv;
      std::string rec = text.substr(pos, nl + 1 - pos);
      size_t p = 0;
      while (p < rec.size()) {
        size_t z = rec.find('\0', p);
        argv.push_back(rec.substr(p, z - p));
        p = z + 1;
      }
      calls.push_back(argv);
      pos = nl + 2;
    }
    return calls;
  }

  std::string dir_, log_;
};

// Arguments with spaces, quotes, an empty string, a glob, UTF-8 and a newline.
const char* kBashArgs = "claude 'a b' '' 'it'\"'\"'s' '*' '日本 語' \"$(printf 'x\\ny')\"";
const char* kFishArgs = "claude 'a b' '' 'it\\'s' '*' '日本 語' (printf 'x\\ny' | string collect)";
const std::vector<std::string> kExpectedArgs = {"a b", "", "it's", "*", "日本 語", "x\ny"};

TEST_P(ShellInitTest, WrapsInsideTmuxWithExactArguments) {
  const std::string shell = GetParam();
  if (!HaveShell(shell)) GTEST_FAIL() << shell << " is not installed (scripts/install-deps.sh installs it)";
  Run(shell, shell == "fish" ? kFishArgs : kBashArgs, {"TMUX=/tmp/fake,1,0"});
  auto calls = Calls();
  ASSERT_EQ(calls.size(), 1u);
  std::vector<std::string> expected = {"agtmux", "wrap", "claude"};
  expected.insert(expected.end(), kExpectedArgs.begin(), kExpectedArgs.end());
  EXPECT_EQ(calls[0], expected);
}

TEST_P(ShellInitTest, FallsThroughOutsideTmux) {
  const std::string shell = GetParam();
  if (!HaveShell(shell)) GTEST_FAIL() << shell << " is not installed";
  Run(shell, shell == "fish" ? kFishArgs : kBashArgs, {});
  auto calls = Calls();
  ASSERT_EQ(calls.size(), 1u);
  std::vector<std::string> expected = {"claude"};
  expected.insert(expected.end(), kExpectedArgs.begin(), kExpectedArgs.end());
  EXPECT_EQ(calls[0], expected);
}

TEST_P(ShellInitTest, DoesNotWrapTwice) {
  const std::string shell = GetParam();
  if (!HaveShell(shell)) GTEST_FAIL() << shell << " is not installed";
  Run(shell, "gemini -p hi", {"TMUX=/tmp/fake,1,0", "AGTMUX_WRAPPED=1"});
  auto calls = Calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"gemini", "-p", "hi"}));
}

TEST_P(ShellInitTest, AutowrapZeroFallsThrough) {
  const std::string shell = GetParam();
  if (!HaveShell(shell)) GTEST_FAIL() << shell << " is not installed";
  Run(shell, "claude x", {"TMUX=/tmp/fake,1,0", "AGTMUX_AUTOWRAP=0"});
  auto calls = Calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"claude", "x"}));
}

TEST_P(ShellInitTest, MissingAgtmuxFallsThrough) {
  const std::string shell = GetParam();
  if (!HaveShell(shell)) GTEST_FAIL() << shell << " is not installed";
  Run(shell, "claude x", {"TMUX=/tmp/fake,1,0"}, /*with_agtmux=*/false);
  auto calls = Calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"claude", "x"}));
}

TEST_P(ShellInitTest, CommandBypassesTheWrapper) {
  const std::string shell = GetParam();
  if (!HaveShell(shell)) GTEST_FAIL() << shell << " is not installed";
  Run(shell, "command claude y", {"TMUX=/tmp/fake,1,0"});
  auto calls = Calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"claude", "y"}));
}

INSTANTIATE_TEST_SUITE_P(Shells, ShellInitTest,
                         ::testing::Values("bash", "zsh", "fish"));

TEST(ShellInitScriptTest, RejectsUnknownShellAndBadNames) {
  auto bad_shell = ShellInitScript("tcsh", {"claude"});
  ASSERT_FALSE(bad_shell.ok());
  EXPECT_NE(bad_shell.error().message.find("tcsh"), std::string::npos);
  auto bad_name = ShellInitScript("bash", {"rm -rf"});
  ASSERT_FALSE(bad_name.ok());
  EXPECT_NE(bad_name.error().message.find("rm -rf"), std::string::npos);
}

}  // namespace
}  // namespace agt::cli
