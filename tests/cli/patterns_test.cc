// `agtmux patterns` end to end, with the real binaries and a private tmux
// server:
// - a user pattern file fixes a screen the built-in claude set cannot read
//   (issue 15: Claude Code 2.1.168's bypass-mode footer), with no rebuild:
//   in `patterns test` and in the real wrapper in a tmux pane (extending the
//   built-in set), and with mode = "replace";
// - a pane showing a screen no rule reads under `agtmux wrap` has that
//   screen kept (redacted) in the state dir, `patterns doctor` lists it with
//   the closest rule, `patterns test --save` makes it a fixture, and the
//   fixture checks a user's fix.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "libagtcore/event_codec.h"
#include "libagtcore/net/spool.h"
#include "tests/agg/daemon_harness.h"

namespace agt::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBypassFooter =
    "  ⏵⏵ bypass permissions on (shift+tab to cycle) · gh auth login · esc to interrupt";

// A user extension of the claude set: one rule the built-in set lacks.
constexpr const char* kUserBypassRule = R"(format = 1
agent = "claude"
version = "user-1"
verified_on = ["2.1.168"]
notes = "Claude Code 2.1.168 in bypass mode puts the mode and a hint before esc to interrupt."

[[rule]]
id = "user.claude.footer.bypass"
state = "running"
region = "after_last_rule"
regex = 'bypass permissions on .*· esc to interrupt'
confidence = "high"
)";

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A Claude Code 2.1.168 working screen in bypass mode: the first recorded
// 2.1.197 working screen (long_tool_run), whose footer row is replaced by
// the bypass footer of the issue (the layout around it is the same).
std::string BypassScreen() {
  const std::string path =
      std::string(AGTMUX_FIXTURES) + "/claude/2.1.197/long_tool_run/snapshots.jsonl";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string line;
  while (std::getline(in, line)) {
    rapidjson::Document d;
    d.Parse(line.c_str());
    if (!d.IsObject() || !d.HasMember("lines")) continue;
    std::vector<std::string> rows;
    for (const auto& r : d["lines"].GetArray()) rows.emplace_back(r.GetString());
    auto footer = std::find_if(rows.begin(), rows.end(), [](const std::string& r) {
      return r.rfind("  esc to interrupt", 0) == 0;
    });
    if (footer == rows.end()) continue;
    *footer = kBypassFooter;
    while (!rows.empty() && rows.back().empty()) rows.pop_back();
    std::string out;
    for (const auto& r : rows) out += r + "\n";
    return out;
  }
  ADD_FAILURE() << "no working screen in " << path;
  return "";
}

class PatternsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tmux_name_ = "agtmux-test-" + std::to_string(getpid()) + "-patterns";
    user_dir_ = env_.root + "/config/agtmux/patterns";
  }
  void TearDown() override {
    env_.Run({"/usr/bin/tmux", "-L", tmux_name_, "kill-server"});
  }
  RunResult Agtmux(std::vector<std::string> args) {
    args.insert(args.begin(), AGTMUX_BIN);
    return env_.Run(args);
  }
  void WriteUserSet(const std::string& text) {
    fs::create_directories(user_dir_);
    std::ofstream(user_dir_ + "/claude.toml") << text;
  }
  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string p = env_.root + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
  /// Runs `command` under `agtmux wrap --agent claude` in a 120x40 pane of a
  /// private tmux server (no daemon: the wrapper's events go to its spool).
  void WrapInTmux(const std::string& command) {
    auto r = env_.Run({"/usr/bin/tmux", "-L", tmux_name_, "-f", "/dev/null", "new-session", "-d",
                       "-x", "120", "-y", "40",
                       std::string(AGTMUX_BIN) + " wrap --agent claude -- sh -c '" + command + "'"});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  /// The wrapper's state_changed signals from its spool.
  std::vector<core::Signal> SpooledSignals() {
    std::vector<core::Signal> out;
    auto files = net::ListSpool(env_.state_dir() + "/spool");
    if (!files.ok()) return out;
    for (const auto& f : *files) {
      auto events = net::ReadSpoolEvents(f.path);
      if (!events.ok()) continue;
      for (const auto& e : *events)
        if (e.signal) out.push_back(*e.signal);
    }
    return out;
  }

  TestEnv env_;
  std::string tmux_name_;
  std::string user_dir_;
};

TEST_F(PatternsTest, AUserFileExtendsTheBuiltInSetWithoutARebuild) {
  const std::string screen = WriteFile("bypass.txt", BypassScreen());
  auto before = Agtmux({"patterns", "test", screen, "--agent", "claude"});
  ASSERT_EQ(before.status, 0) << before.err;
  EXPECT_EQ(before.out.find("user.claude.footer.bypass"), std::string::npos) << before.out;
  std::printf("built-in set alone: %s", before.out.substr(before.out.find('\n') + 1).c_str());

  WriteUserSet(kUserBypassRule);
  auto after = Agtmux({"patterns", "test", screen, "--agent", "claude", "--expect", "running"});
  EXPECT_EQ(after.status, 0) << after.out << after.err;
  EXPECT_NE(after.out.find("running  high  user.claude.footer.bypass"), std::string::npos) << after.out;
  // The merged set lists the user rule first and keeps every built-in rule.
  auto list = Agtmux({"patterns", "list", "--agent", "claude"});
  EXPECT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("user.claude.footer.bypass"), std::string::npos);
  EXPECT_NE(list.out.find("claude.footer.interrupt"), std::string::npos);
  EXPECT_NE(list.out.find("2.1.168"), std::string::npos) << "the user file's verified_on adds to the set's\n"
                                                         << list.out;

  // The real wrapper, in a real tmux pane, loads the same file at start.
  WrapInTmux("cat " + screen + "; sleep 3");
  ASSERT_TRUE(PollUntil([&] {
    for (const auto& s : SpooledSignals())
      if (s.rule_id == "user.claude.footer.bypass" && s.state == core::State::kRunning) return true;
    return false;
  }, 15000)) << "the wrapper never read the user rule";
}

TEST_F(PatternsTest, AUserFileInReplaceModeReplacesTheBuiltInSet) {
  const std::string screen = WriteFile("bypass.txt", BypassScreen());
  std::string replace = kUserBypassRule;
  replace.insert(0, "mode = \"replace\"\n");
  WriteUserSet(replace);
  auto r = Agtmux({"patterns", "test", screen, "--agent", "claude"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("running  high  user.claude.footer.bypass"), std::string::npos) << r.out;
  auto list = Agtmux({"patterns", "list", "--agent", "claude"});
  EXPECT_EQ(list.out.find("claude.footer.interrupt"), std::string::npos)
      << "replace mode keeps no built-in rule\n" << list.out;
  // A screen only a built-in rule reads (the idle prompt) is unknown now.
  std::string idle = BypassScreen();
  idle.replace(idle.find(kBypassFooter), std::string(kBypassFooter).size(), "  ? for shortcuts");
  auto i = Agtmux({"patterns", "test", WriteFile("idle.txt", idle), "--agent", "claude"});
  EXPECT_NE(i.out.find("unknown"), std::string::npos) << i.out;
}

TEST_F(PatternsTest, AnUnreadableWrappedScreenIsKeptListedAndMadeAFixture) {
  // A screen no claude rule reads, with a secret on it.
  const std::string screen = WriteFile(
      "odd.txt",
      "✻ Something agtmux has never seen\n"
      "export ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD\n"
      "  ⟡⟡ a footer from a release nobody recorded\n");
  WrapInTmux("cat " + screen + "; sleep 30");
  // Beside it, the same screen under `agtmux wrap -- sh`: no pattern set of
  // its own reads a plain command, and its screen (the user's files) is
  // never kept.
  ASSERT_EQ(env_.Run({"/usr/bin/tmux", "-L", tmux_name_, "new-window", "-d",
                      std::string(AGTMUX_BIN) + " wrap -- sh -c 'cat " + screen + "; sleep 30'"})
                .status,
            0);
  const std::string kept_dir = env_.state_dir() + "/screens";
  auto kept_files = [&] {
    std::vector<std::string> out;
    if (fs::exists(kept_dir))
      for (const auto& e : fs::directory_iterator(kept_dir))
        if (e.path().extension() == ".json") out.push_back(e.path().string());
    return out;
  };
  ASSERT_TRUE(PollUntil([&] { return !kept_files().empty(); }, 20000)) << "no screen kept in " << kept_dir;
  EXPECT_FALSE(PollUntil([&] { return kept_files().size() > 1; }, 1500)) << "the sh pane's screen was kept";
  const std::string kept = kept_files().front();
  const std::string bytes = ReadAll(kept);
  EXPECT_EQ(bytes.find("sk-ant-api03-abcdefghijklmnopqrstuvwxyz"), std::string::npos) << bytes;
  EXPECT_NE(bytes.find("Something agtmux has never seen"), std::string::npos) << bytes;

  auto doctor = Agtmux({"patterns", "doctor"});
  ASSERT_EQ(doctor.status, 0) << doctor.err;
  EXPECT_NE(doctor.out.find("claude"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("PTY"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("no_rule_matched"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("closest rule: "), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("a footer from a release nobody recorded"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("1 kept screen in"), std::string::npos) << doctor.out;

  const std::string id = fs::path(kept).stem().string();
  const std::string fixture = env_.root + "/fixture";
  auto save = Agtmux({"patterns", "test", id, "--expect", "running", "--save", fixture});
  EXPECT_EQ(save.status, 1) << "it reads unknown, not running\n" << save.out << save.err;
  EXPECT_NE(save.out.find("expected running: reads unknown"), std::string::npos) << save.out;
  ASSERT_TRUE(fs::exists(fixture + "/screen.txt"));
  ASSERT_TRUE(fs::exists(fixture + "/fixture.json"));
  EXPECT_NE(ReadAll(fixture + "/screen.txt").find("⟡⟡ a footer"), std::string::npos);
  // Private until the user sends it (issue 25): 0600 files in a 0700 directory.
  for (const char* name : {"/screen.txt", "/fixture.json"})
    EXPECT_EQ(fs::status(fixture + name).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write)
        << name;
  EXPECT_EQ(fs::status(fixture).permissions() & fs::perms::all, fs::perms::owner_all);
  rapidjson::Document f;
  f.Parse(ReadAll(fixture + "/fixture.json").c_str());
  ASSERT_TRUE(f.IsObject());
  EXPECT_STREQ(f["agent_type"].GetString(), "claude");
  EXPECT_STREQ(f["expected_state"].GetString(), "running");
  EXPECT_STREQ(f["read_state"].GetString(), "unknown");
  EXPECT_STREQ(f["mode"].GetString(), "PTY");

  // The fixture is a test: it fails until a rule reads the screen...
  auto check = Agtmux({"patterns", "test", fixture});
  EXPECT_EQ(check.status, 1) << check.out;
  // ...and passes with the maintainer's (here: the user's) fix.
  WriteUserSet(R"toml(format = 1
agent = "claude"
[[rule]]
id = "user.claude.footer.odd"
state = "running"
region = "bottom_lines(3)"
regex = '⟡⟡ a footer'
confidence = "high"
)toml");
  auto fixed = Agtmux({"patterns", "test", fixture});
  EXPECT_EQ(fixed.status, 0) << fixed.out << fixed.err;
  EXPECT_NE(fixed.out.find("user.claude.footer.odd"), std::string::npos) << fixed.out;
  auto doctor2 = Agtmux({"patterns", "doctor"});
  EXPECT_NE(doctor2.out.find("reads now: running by user.claude.footer.odd"), std::string::npos)
      << doctor2.out;
}

}  // namespace
}  // namespace agt::test
