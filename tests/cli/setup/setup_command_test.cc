// `agtmux setup` as a user runs it (cli::Main in-process; the concurrent
// test runs the binary), on a sandbox HOME: permissions kept, a
// timestamped backup, idempotent, --dry-run writes nothing, a malformed
// file is refused and left untouched, --remove restores the original.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <map>
#include <vector>

#include "tests/cli/in_process.h"

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
    // The binary the hooks name; the test that runs several setups at once runs it.
    bin_ = AGTMUX_BIN;
    agt::cli::SetSelfPath(bin_);
    char tmpl[] = "/tmp/agtmux-setup-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    home_ = tmpl;
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + home_ + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }

  // `env -i HOME=<sandbox> XDG_STATE_HOME=<sandbox>/state PATH=/usr/bin:/bin
  // [env] agtmux args... 2>&1`, run in-process (tests/cli/in_process.h).
  CmdResult Agtmux(const std::vector<std::string>& args, const std::string& env = "") {
    std::map<std::string, std::string> vars = {
        {"HOME", home_}, {"XDG_STATE_HOME", home_ + "/state"}, {"PATH", "/usr/bin:/bin"}};
    if (const size_t eq = env.find('='); eq != std::string::npos) vars[env.substr(0, eq)] = env.substr(eq + 1);
    auto r = agt::test::RunMain(args, vars, /*merge_stderr=*/true);
    return {r.status, r.out};
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

// --- Leaving no trace (issue 16) ------------------------------------------

// Setup's own text must be minimal edits, so a file written in a style no
// serializer reproduces (4-space indent, `"k" : v`, escapes, a number
// written 1.50, an array on one line) is the fixture.
const char* kOddSettings =
    "{\n"
    "    \"model\" : \"opus\",\n"
    "    \"env\": {\"A\": \"caf\\u00e9\", \"PATH_EXTRA\": \"\\/opt\\/bin\"},\n"
    "    \"hooks\": {\n"
    "        \"PreToolUse\": [\n"
    "            {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit.sh\"}]}\n"
    "        ]\n"
    "    },\n"
    "    \"cleanupPeriodDays\": 1.50,\n"
    "    \"permissions\": {\"allow\": [\"Bash(ls:*)\", \"Read\"]}\n"
    "}";

// Names in a directory, sorted.
std::vector<std::string> List(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (!d) return names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

mode_t ModeOf(const std::string& path) {
  struct stat st{};
  if (lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

bool Exists(const std::string& path) {
  struct stat st{};
  return lstat(path.c_str(), &st) == 0;
}

// Applies a unified diff to `text` the way patch(1) would, strictly: every
// context and removed line must match. Returns false (with `why`) if not.
bool ApplyUnifiedDiff(const std::string& text, const std::string& diff, std::string* out,
                      std::string* why) {
  std::vector<std::string> lines;  // each with its '\n' (the last may lack it)
  for (size_t i = 0; i < text.size();) {
    size_t nl = text.find('\n', i);
    size_t end = nl == std::string::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(i, end - i));
    i = end;
  }
  std::vector<std::string> dl;
  for (size_t i = 0; i < diff.size();) {
    size_t nl = diff.find('\n', i);
    size_t end = nl == std::string::npos ? diff.size() : nl;
    dl.push_back(diff.substr(i, end - i));
    i = end + 1;
  }
  std::vector<std::string> result;
  size_t at = 0;  // next unconsumed line of `lines`
  size_t i = 0;
  while (i < dl.size() && dl[i].rfind("@@", 0) != 0) ++i;  // the --- / +++ header
  if (i == dl.size()) {
    *why = "no hunk";
    return false;
  }
  while (i < dl.size()) {
    int old_start = 0, old_count = 1, new_start = 0, new_count = 1;
    const std::string& h = dl[i];
    if (std::sscanf(h.c_str(), "@@ -%d,%d +%d,%d @@", &old_start, &old_count, &new_start,
                    &new_count) != 4) {
      old_count = new_count = 1;
      if (std::sscanf(h.c_str(), "@@ -%d +%d,%d @@", &old_start, &new_start, &new_count) != 3 &&
          std::sscanf(h.c_str(), "@@ -%d,%d +%d @@", &old_start, &old_count, &new_start) != 3 &&
          std::sscanf(h.c_str(), "@@ -%d +%d @@", &old_start, &new_start) != 2) {
        *why = "bad hunk header: " + h;
        return false;
      }
    }
    size_t first = old_count == 0 ? static_cast<size_t>(old_start) : old_start - 1;
    while (at < first && at < lines.size()) result.push_back(lines[at++]);
    ++i;
    int seen_old = 0, seen_new = 0;
    std::string* last = nullptr;  // the line a "\ No newline" marker applies to
    bool last_is_new = false;
    while (i < dl.size() && dl[i].rfind("@@", 0) != 0) {
      const std::string& l = dl[i++];
      if (l.empty()) continue;
      if (l[0] == '\\') {
        if (last && !last->empty() && last->back() == '\n') last->pop_back();
        if (!last_is_new && at > 0 && lines[at - 1] != *last) {
          *why = "no-newline marker on a line that has one";
          return false;
        }
        continue;
      }
      std::string body = l.substr(1) + "\n";
      if (l[0] == ' ' || l[0] == '-') {
        std::string have = at < lines.size() ? lines[at] : "";
        std::string want = body;
        // The original's last line may lack its newline; the marker follows.
        if (have != want && !(have + "\n" == want)) {
          *why = "line " + std::to_string(at + 1) + " is \"" + have + "\", the diff says \"" +
                 l.substr(1) + "\"";
          return false;
        }
        ++at;
        ++seen_old;
        if (l[0] == ' ') {
          result.push_back(have);
          last = &result.back();
          last_is_new = true;
          // A context line without newline stays without.
          if (have.back() != '\n') last = nullptr;
          ++seen_new;
        } else {
          static std::string removed;
          removed = have;
          last = &removed;
          last_is_new = false;
        }
      } else if (l[0] == '+') {
        result.push_back(body);
        last = &result.back();
        last_is_new = true;
        ++seen_new;
      }
    }
    if (seen_old != old_count || seen_new != new_count) {
      *why = "hunk counts do not match its header " + h;
      return false;
    }
  }
  while (at < lines.size()) result.push_back(lines[at++]);
  out->clear();
  for (const auto& l : result) *out += l;
  return true;
}

// Waits for the clock to enter a new second, so that the next commands run
// within one second (they take milliseconds).
void StartOfASecond() {
  std::time_t t0 = std::time(nullptr);
  for (int i = 0; i < 3000 && std::time(nullptr) == t0; ++i) usleep(1000);
}

TEST_F(SetupCommandTest, SetupAndRemoveInOneSecondKeepEveryBackup) {
  const std::string path = home_ + "/.claude/settings.json";
  const std::string original = "{\n  \"model\": \"opus\"\n}\n";
  Write(path, original, 0644);
  StartOfASecond();
  ASSERT_EQ(Agtmux({"setup", "claude"}).status, 0);
  // The user changes something else, so remove cannot simply restore.
  std::string edited = ReadFile(path);
  edited.replace(edited.find("\"opus\""), 6, "\"sonnet\"");
  std::ofstream(path, std::ios::binary) << edited;
  CmdResult removed = Agtmux({"setup", "claude", "--remove"});
  ASSERT_EQ(removed.status, 0) << removed.out;
  std::vector<std::string> backups;
  for (const auto& n : List(home_ + "/.claude"))
    if (n.find(".agtmux-backup-") != std::string::npos) backups.push_back(n);
  ASSERT_EQ(backups.size(), 2u) << removed.out;
  std::vector<std::string> contents = {ReadFile(home_ + "/.claude/" + backups[0]),
                                       ReadFile(home_ + "/.claude/" + backups[1])};
  EXPECT_NE(std::find(contents.begin(), contents.end(), original), contents.end())
      << "the original is in no backup";
  EXPECT_NE(std::find(contents.begin(), contents.end(), edited), contents.end());
  EXPECT_EQ(ReadFile(path), "{\n  \"model\": \"sonnet\"\n}\n");
}

TEST_F(SetupCommandTest, RemoveRestoresTheOriginalExactlyAndLeavesNoTrace) {
  const std::string dir = home_ + "/.claude";
  const std::string path = dir + "/settings.json";
  Write(path, kOddSettings, 0640);
  ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
  const auto before = List(dir);
  ASSERT_EQ(Agtmux({"setup", "claude"}).status, 0);
  EXPECT_EQ(ModeOf(dir), 0755u);
  EXPECT_EQ(ModeOf(path), 0640u);
  CmdResult removed = Agtmux({"setup", "claude", "--remove"});
  ASSERT_EQ(removed.status, 0) << removed.out;
  EXPECT_EQ(ReadFile(path), kOddSettings);
  EXPECT_EQ(ModeOf(path), 0640u);
  EXPECT_EQ(ModeOf(dir), 0755u);
  EXPECT_EQ(List(dir), before) << removed.out;
}

TEST_F(SetupCommandTest, RemoveAfterAUserEditTakesOnlyTheHooks) {
  const std::string path = home_ + "/.claude/settings.json";
  Write(path, kOddSettings, 0600);
  ASSERT_EQ(Agtmux({"setup", "claude"}).status, 0);
  std::string edited = ReadFile(path);
  edited.replace(edited.find("\"opus\""), 6, "\"haiku\"");
  std::ofstream(path, std::ios::binary) << edited;
  CmdResult removed = Agtmux({"setup", "claude", "--remove"});
  ASSERT_EQ(removed.status, 0) << removed.out;
  std::string expected = kOddSettings;
  expected.replace(expected.find("\"opus\""), 6, "\"haiku\"");
  EXPECT_EQ(ReadFile(path), expected);
}

TEST_F(SetupCommandTest, SetupEditsOnlyTheHooks) {
  const std::string path = home_ + "/.claude/settings.json";
  const std::string original = kOddSettings;
  Write(path, original, 0600);
  ASSERT_EQ(Agtmux({"setup", "claude"}).status, 0);
  const std::string merged = ReadFile(path);
  // Everything up to the user's own PreToolUse group, and everything from
  // the end of the hooks object on, keeps its bytes.
  const size_t head = original.find("\"audit.sh\"}]}") + 13;
  EXPECT_EQ(merged.substr(0, head), original.substr(0, head)) << merged;
  const std::string tail = original.substr(original.find("\n    },\n    \"cleanupPeriodDays\""));
  ASSERT_GE(merged.size(), tail.size());
  EXPECT_EQ(merged.substr(merged.size() - tail.size()), tail) << merged;
  EXPECT_NE(merged.find(bin_ + " hook claude"), std::string::npos);
}

TEST_F(SetupCommandTest, SetupAgainAfterAMoveStillRestoresTheOriginal) {
  const std::string path = home_ + "/.claude/settings.json";
  Write(path, kOddSettings, 0600);
  ASSERT_EQ(Agtmux({"setup", "claude"}).status, 0);
  // agtmux moved: the second setup rewrites the hook commands.
  const std::string moved = home_ + "/bin/agtmux";
  ASSERT_EQ(std::system(("mkdir -p '" + home_ + "/bin' && cp '" + bin_ + "' '" + moved + "'").c_str()), 0);
  const std::string first = ReadFile(path);
  agt::cli::SetSelfPath(moved);
  CmdResult again = Agtmux({"setup", "claude"});
  agt::cli::SetSelfPath(bin_);
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_NE(ReadFile(path), first);
  EXPECT_NE(ReadFile(path).find(moved + " hook claude"), std::string::npos);
  EXPECT_EQ(CountBackups(home_ + "/.claude"), 1) << again.out;
  CmdResult removed = Agtmux({"setup", "claude", "--remove"});
  ASSERT_EQ(removed.status, 0) << removed.out;
  EXPECT_EQ(ReadFile(path), kOddSettings);
  EXPECT_EQ(List(home_ + "/.claude"), std::vector<std::string>{"settings.json"});
}

TEST_F(SetupCommandTest, ExistingDirectoriesKeepTheirModes) {
  Write(home_ + "/.claude/settings.json", "{}\n", 0644);
  Write(home_ + "/.codex/config.toml", "model = \"o3\"\n", 0644);
  ASSERT_EQ(chmod((home_ + "/.claude").c_str(), 0755), 0);
  ASSERT_EQ(chmod((home_ + "/.codex").c_str(), 0750), 0);
  ASSERT_EQ(Agtmux({"setup", "claude"}).status, 0);
  ASSERT_EQ(Agtmux({"setup", "codex"}).status, 0);
  EXPECT_EQ(ModeOf(home_ + "/.claude"), 0755u);
  EXPECT_EQ(ModeOf(home_ + "/.codex"), 0750u);
  EXPECT_EQ(ModeOf(home_ + "/.claude/settings.json"), 0644u);
  EXPECT_EQ(ModeOf(home_ + "/.codex/config.toml"), 0644u);
  ASSERT_EQ(Agtmux({"setup", "claude", "--remove"}).status, 0);
  ASSERT_EQ(Agtmux({"setup", "codex", "--remove"}).status, 0);
  EXPECT_EQ(ModeOf(home_ + "/.claude"), 0755u);
  EXPECT_EQ(ModeOf(home_ + "/.codex"), 0750u);
  EXPECT_EQ(ReadFile(home_ + "/.codex/config.toml"), "model = \"o3\"\n");
  EXPECT_EQ(List(home_ + "/.codex"), std::vector<std::string>{"config.toml"});
}

TEST_F(SetupCommandTest, WhatSetupCreatesIsPrivateAndRemoveTakesItAway) {
  ASSERT_FALSE(Exists(home_ + "/.gemini"));
  CmdResult r = Agtmux({"setup", "gemini"});
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(ModeOf(home_ + "/.gemini"), 0700u);
  EXPECT_EQ(ModeOf(home_ + "/.gemini/settings.json"), 0600u);
  CmdResult removed = Agtmux({"setup", "gemini", "--remove"});
  ASSERT_EQ(removed.status, 0) << removed.out;
  EXPECT_FALSE(Exists(home_ + "/.gemini")) << removed.out;
}

TEST_F(SetupCommandTest, DryRunIsAUnifiedDiffOfWhatSetupWrites) {
  const std::string path = home_ + "/.claude/settings.json";
  Write(path, kOddSettings, 0600);
  CmdResult dry = Agtmux({"setup", "claude", "--dry-run"});
  ASSERT_EQ(dry.status, 0) << dry.out;
  EXPECT_EQ(dry.out.rfind("--- " + path + "\n+++ " + path + "\n@@ ", 0), 0u) << dry.out;
  EXPECT_EQ(ReadFile(path), kOddSettings);
  EXPECT_EQ(List(home_ + "/.claude"), std::vector<std::string>{"settings.json"});
  ASSERT_EQ(Agtmux({"setup", "claude"}).status, 0);
  std::string patched, why;
  ASSERT_TRUE(ApplyUnifiedDiff(kOddSettings, dry.out, &patched, &why)) << why << "\n" << dry.out;
  EXPECT_EQ(patched, ReadFile(path));

  // And the same for --remove.
  const std::string merged = ReadFile(path);
  CmdResult dry_remove = Agtmux({"setup", "claude", "--remove", "--dry-run"});
  ASSERT_EQ(dry_remove.status, 0) << dry_remove.out;
  EXPECT_EQ(ReadFile(path), merged);
  ASSERT_TRUE(ApplyUnifiedDiff(merged, dry_remove.out, &patched, &why)) << why;
  EXPECT_EQ(patched, kOddSettings);
}

TEST_F(SetupCommandTest, DryRunWorksWhereSetupDoes) {
  // No directory at all: a diff from /dev/null, nothing created.
  CmdResult fresh = Agtmux({"setup", "claude", "--dry-run"});
  ASSERT_EQ(fresh.status, 0) << fresh.out;
  EXPECT_EQ(fresh.out.rfind("--- /dev/null\n+++ " + home_ + "/.claude/settings.json\n@@ -0,0 +1,", 0),
            0u)
      << fresh.out;
  EXPECT_FALSE(Exists(home_ + "/.claude"));
  EXPECT_FALSE(Exists(home_ + "/state"));
  // Codex without a config or a state directory.
  CmdResult codex = Agtmux({"setup", "codex", "--dry-run"});
  ASSERT_EQ(codex.status, 0) << codex.out;
  EXPECT_NE(codex.out.find("+notify = ["), std::string::npos) << codex.out;
  EXPECT_FALSE(Exists(home_ + "/.codex"));
  // A Gemini settings file with comments (Gemini CLI allows them): setup
  // keeps them, and --dry-run shows it.
  const std::string gpath = home_ + "/.gemini/settings.json";
  const std::string commented = "{\n  // my theme\n  \"ui\": {\"theme\": \"GitHub\"} /* keep */\n}\n";
  Write(gpath, commented, 0600);
  CmdResult g = Agtmux({"setup", "gemini", "--dry-run"});
  ASSERT_EQ(g.status, 0) << g.out;
  ASSERT_EQ(Agtmux({"setup", "gemini"}).status, 0);
  std::string patched, why;
  ASSERT_TRUE(ApplyUnifiedDiff(commented, g.out, &patched, &why)) << why << "\n" << g.out;
  EXPECT_EQ(patched, ReadFile(gpath));
  EXPECT_NE(patched.find("// my theme"), std::string::npos);
  EXPECT_NE(patched.find("/* keep */"), std::string::npos);
  // Removing from a file that has no hooks: nothing to do, no error.
  Write(home_ + "/.claude/settings.json", "{\"model\": \"opus\"}", 0600);
  CmdResult none = Agtmux({"setup", "claude", "--remove", "--dry-run"});
  EXPECT_EQ(none.status, 0) << none.out;
}

TEST_F(SetupCommandTest, MalformedSettingsAreRefusedWithFileAndLine) {
  const std::string path = home_ + "/.claude/settings.json";
  const std::string broken = "{\n  \"model\": \"opus\"\n  \"theme\": \"dark\"\n}\n";
  Write(path, broken, 0644);
  for (const char* flag : {"", "--dry-run", "--remove"}) {
    std::vector<std::string> args = {"setup", "claude"};
    if (*flag) args.push_back(flag);
    CmdResult r = Agtmux(args);
    EXPECT_EQ(r.status, 1) << flag;
    EXPECT_NE(r.out.find(path + ":3:"), std::string::npos) << r.out;
    EXPECT_EQ(ReadFile(path), broken);
    EXPECT_EQ(List(home_ + "/.claude"), std::vector<std::string>{"settings.json"});
  }
}

TEST_F(SetupCommandTest, ASymlinkedSettingsFileStaysALink) {
  // Dotfiles kept in a repository and linked into place.
  const std::string real = home_ + "/dotfiles/claude-settings.json";
  Write(real, "{\n  \"model\": \"opus\"\n}\n", 0644);
  ASSERT_EQ(std::system(("mkdir -p '" + home_ + "/.claude'").c_str()), 0);
  const std::string link = home_ + "/.claude/settings.json";
  ASSERT_EQ(symlink(real.c_str(), link.c_str()), 0);
  ASSERT_EQ(Agtmux({"setup", "claude"}).status, 0);
  struct stat st{};
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_NE(ReadFile(real).find("hook claude"), std::string::npos);
  ASSERT_EQ(Agtmux({"setup", "claude", "--remove"}).status, 0);
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(ReadFile(real), "{\n  \"model\": \"opus\"\n}\n");
}

// Four `agtmux setup` processes at once (the binary, suite e2e): the lock
// on the settings file lets one install.
TEST_F(SetupCommandTest, ConcurrentSetupsInstallOnce) {
  const std::string path = home_ + "/.claude/settings.json";
  const std::string original = "{\n  \"model\": \"opus\"\n}\n";
  Write(path, original, 0600);
  std::string cmd = "cd '" + home_ + "' && for i in 1 2 3 4; do env -i HOME='" + home_ +
                    "' XDG_STATE_HOME='" + home_ + "/state' '" + bin_ +
                    "' setup claude >/dev/null 2>&1 & done; wait";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::string merged = ReadFile(path);
  size_t count = 0;
  for (size_t at = 0; (at = merged.find("hook claude\"", at)) != std::string::npos; ++at) ++count;
  EXPECT_EQ(count, 13u) << merged;  // one per event
  ASSERT_EQ(Agtmux({"setup", "claude", "--remove"}).status, 0);
  EXPECT_EQ(ReadFile(path), original);
  EXPECT_EQ(List(home_ + "/.claude"), std::vector<std::string>{"settings.json"});
}

// In tmux, setup and shell-init say how to open the ui in a popup (the
// binding of docs/ui.md), until a tmux.conf has it; outside tmux they do not.
TEST_F(SetupCommandTest, InTmuxSetupAndShellInitPrintThePopupBinding) {
  const std::string binding = "bind-key a display-popup -E -w 90% -h 80% agtmux ui";
  const std::string in_tmux = "TMUX=/tmp/tmux-1000/default,123,0";
  CmdResult setup = Agtmux({"setup", "claude"}, in_tmux);
  ASSERT_EQ(setup.status, 0) << setup.out;
  EXPECT_NE(setup.out.find("add to ~/.tmux.conf:\n    " + binding + "\n"), std::string::npos) << setup.out;
  CmdResult init = Agtmux({"shell-init", "bash"}, in_tmux);
  ASSERT_EQ(init.status, 0) << init.out;
  EXPECT_NE(init.out.find("#     " + binding + "\n"), std::string::npos) << init.out;

  CmdResult outside = Agtmux({"shell-init", "bash"});
  EXPECT_EQ(outside.out.find(binding), std::string::npos) << outside.out;
  CmdResult removed = Agtmux({"setup", "claude", "--remove"}, in_tmux);
  EXPECT_EQ(removed.out.find(binding), std::string::npos) << removed.out;

  Write(home_ + "/.tmux.conf", "set -g mouse on\n" + binding + "\n", 0644);
  CmdResult again = Agtmux({"setup", "claude"}, in_tmux);
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_EQ(again.out.find(binding), std::string::npos) << again.out;
}

}  // namespace
