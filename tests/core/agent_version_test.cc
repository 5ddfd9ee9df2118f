// libagtcore/agent_version.h on real files laid out as the agents' npm and
// native installs lay them out, and on real processes (a copied binary, and
// node running a script) read through /proc.
#include "libagtcore/agent_version.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace agt::core {
namespace {

namespace fs = std::filesystem;

class AgentVersionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/agtmux-version-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    for (pid_t pid : children_) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    fs::remove_all(root_);
  }
  fs::path Write(const std::string& rel, const std::string& text) {
    fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
  fs::path Package(const std::string& dir, const std::string& name, const std::string& version) {
    return Write(dir + "/package.json",
                 R"({"name":")" + name + R"(","version":")" + version + R"(","bin":{}})");
  }
  /// Starts argv[0] with argv; the child is killed at TearDown.
  pid_t Start(const std::vector<std::string>& argv) {
    pid_t pid = fork();
    if (pid == 0) {
      std::vector<char*> a;
      for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
      a.push_back(nullptr);
      execv(a[0], a.data());
      _exit(127);
    }
    children_.push_back(pid);
    return pid;
  }
  /// Waits (with a deadline) until /proc/<pid>/exe is `exe`: execv done.
  void WaitExec(pid_t pid, const fs::path& exe) {
    for (int i = 0; i < 500; ++i) {
      std::error_code ec;
      if (fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec) == exe) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL() << "pid " << pid << " never ran " << exe;
  }

  fs::path root_;
  std::vector<pid_t> children_;
};

TEST_F(AgentVersionTest, LooksLikeVersion) {
  for (const char* v : {"2.1.197", "0.61.0", "0.169.0", "1.2", "0.61.0-preview.1", "2.1.330+build"})
    EXPECT_TRUE(LooksLikeVersion(v)) << v;
  for (const char* v : {"", "claude", "2", "2.", ".1", "v2.1.0", "2.1.0 x", "node"})
    EXPECT_FALSE(LooksLikeVersion(v)) << v;
}

TEST_F(AgentVersionTest, NpmNativeBinaryReadsItsPackage) {
  // @anthropic-ai/claude-code: bin/claude.exe, reached through .bin/claude.
  Package("lib/node_modules/@anthropic-ai/claude-code", "@anthropic-ai/claude-code", "2.1.330");
  fs::path exe = Write("lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe", "\x7f" "ELF");
  fs::create_directories(root_ / "bin");
  fs::create_symlink(exe, root_ / "bin/claude");
  auto v = AgentVersionFromProgram((root_ / "bin/claude").string());
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version, "2.1.330");
  EXPECT_EQ(v->source, (root_ / "lib/node_modules/@anthropic-ai/claude-code/package.json").string());
}

TEST_F(AgentVersionTest, NodeScriptsTwoLevelsDown) {
  Package("nm/@google/gemini-cli", "@google/gemini-cli", "0.61.0");
  fs::path g = Write("nm/@google/gemini-cli/bundle/gemini.js", "#!/usr/bin/env node\n");
  EXPECT_EQ(AgentVersionFromProgram(g.string())->version, "0.61.0");
}

TEST_F(AgentVersionTest, NativeInstallerNamesTheBinaryAfterItsVersion) {
  fs::path bin = Write("share/claude/versions/2.1.197", "\x7f" "ELF");
  fs::create_directories(root_ / "local/bin");
  fs::create_symlink(bin, root_ / "local/bin/claude");
  auto v = AgentVersionFromProgram((root_ / "local/bin/claude").string());
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version, "2.1.197");
}

TEST_F(AgentVersionTest, NoPackageNoVersion) {
  fs::path p = Write("a/b/c/d/e/tool", "x");
  Package("a", "too-far-up", "9.9.9");  // more than three directories up
  EXPECT_FALSE(AgentVersionFromProgram(p.string()));
  Write("a/b/c/d/package.json", R"({"version":"1.0.0"})");  // no name: not a package
  EXPECT_FALSE(AgentVersionFromProgram(p.string()));
  Write("a/b/c/d/package.json", "{not json");
  EXPECT_FALSE(AgentVersionFromProgram(p.string()));
  EXPECT_FALSE(AgentVersionFromProgram((root_ / "missing").string()));
  EXPECT_FALSE(AgentVersionFromProgram(""));
}

TEST_F(AgentVersionTest, RunningNativeBinaryThroughProc) {
  Package("nm/@anthropic-ai/claude-code", "@anthropic-ai/claude-code", "2.1.197");
  fs::path exe = root_ / "nm/@anthropic-ai/claude-code/bin/claude.exe";
  fs::create_directories(exe.parent_path());
  fs::copy_file("/bin/sleep", exe);
  fs::permissions(exe, fs::perms::owner_exec, fs::perm_options::add);
  pid_t pid = Start({exe.string(), "30"});
  WaitExec(pid, exe);
  auto v = AgentVersionFromProcess(pid);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version, "2.1.197");
}

// node from PATH (scripts/install-deps.sh installs it: the agent CLIs need it).
fs::path NodeInPath() {
  const char* path = std::getenv("PATH");
  std::string rest = path != nullptr ? path : "";
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    fs::path candidate = fs::path(rest.substr(0, colon)) / "node";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
  }
  return {};
}

TEST_F(AgentVersionTest, RunningNodeScriptThroughProc) {
  const fs::path node = NodeInPath();
  ASSERT_FALSE(node.empty()) << "node is not in PATH";
  Package("nm/@openai/codex", "@openai/codex", "0.169.0");
  fs::path js = Write("nm/@openai/codex/bin/codex.js", "setTimeout(() => {}, 30000);\n");
  pid_t pid = Start({node.string(), "--no-warnings", js.string()});
  WaitExec(pid, fs::canonical(node));
  // The exe link turns to node at the exec; its cmdline can read empty for
  // a moment after (seen once under the sanitizer run's load): poll.
  auto v = AgentVersionFromProcess(pid);
  for (int i = 0; i < 500 && !v; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    v = AgentVersionFromProcess(pid);
  }
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version, "0.169.0");
}

TEST_F(AgentVersionTest, RelativeScriptIsFoundFromTheProcessCwd) {
  // A /proc tree as the kernel shows it: exe and cwd links, NUL-separated cmdline.
  Package("app/gemini-cli", "@google/gemini-cli", "0.61.0");
  Write("app/gemini-cli/bundle/gemini.js", "");
  fs::create_directories(root_ / "proc/77");
  fs::create_symlink("/usr/bin/node", root_ / "proc/77/exe");
  fs::create_symlink(root_ / "app/gemini-cli", root_ / "proc/77/cwd");
  std::ofstream(root_ / "proc/77/cmdline") << std::string("node\0bundle/gemini.js\0--yolo\0", 29);
  auto v = AgentVersionFromProcess(77, (root_ / "proc").string());
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version, "0.61.0");
  EXPECT_FALSE(AgentVersionFromProcess(78, (root_ / "proc").string()));
}

}  // namespace
}  // namespace agt::core
