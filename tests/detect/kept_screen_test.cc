// Kept screens (libagtcore/detect/kept_screen.h): written redacted and
// bounded, read back equal, listed newest first; the stuck-unknown watch;
// and the closest rule (closest_rule.h) on a Claude Code 2.1.330 working
// screen that the 2.1.197 set cannot read.
#include "libagtcore/detect/kept_screen.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "libagtcore/detect/closest_rule.h"
#include "libagtcore/detect/pattern_library.h"
#include "libagtcore/detect/pattern_set.h"
#include "libagtcore/detect/verified.h"
#include "libagtcore/os/file.h"

namespace agt::detect {
namespace {

namespace fs = std::filesystem;

constexpr core::TimeNs kT = 1'800'000'000LL * core::kNsPerSec;

class KeptScreenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/agtmux-kept-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    auto r = core::Redactor::LoadBuiltin();
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    redactor_.emplace(std::move(*r));
  }
  void TearDown() override { fs::remove_all(root_); }

  static KeptScreen Sample(core::TimeNs at) {
    KeptScreen k;
    k.kept_at = at;
    k.reason = std::string(kKeptNoRule);
    k.mode = "PTY";
    k.agent_type = "claude";
    k.agent_version = "2.1.330";
    k.pattern_set_version = "2026.11.22-1";
    k.target_id = "host";
    k.pane_id = "%3";
    k.state = core::State::kUnknown;
    k.reason_code = "no_rule_matched";
    k.title = "⠂ Fix the build";
    k.screen.rows = 6;
    k.screen.cols = 80;
    k.screen.cursor_row = 3;
    k.screen.lines = {"❯ fix the build", "", "✢ Hatching…", "─────────────────",
                      "❯\u00a0", "  ⏸ manual mode on · esc to interrupt · ← for agents"};
    return k;
  }

  fs::path root_;
  std::optional<core::Redactor> redactor_;
};

TEST_F(KeptScreenTest, RoundTripsRedactedAndPrivate) {
  KeptScreen k = Sample(kT);
  k.screen.lines.push_back("export ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD");
  auto path = KeepScreen(root_ / "screens", k, *redactor_);
  ASSERT_TRUE(path.ok()) << path.error().ToString();
  struct stat st {};
  ASSERT_EQ(::stat(path->c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((root_ / "screens").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto bytes = core::ReadWholeFile(*path);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->find("sk-ant-api03-abcdefghijklmnopqrstuvwxyz"), std::string::npos) << *bytes;
  std::vector<std::string> problems;
  auto list = ListKeptScreens((root_ / "screens").string(), &problems);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_TRUE(problems.empty());
  const KeptScreen& got = list[0];
  EXPECT_EQ(got.path, *path);
  EXPECT_EQ(got.agent_version, "2.1.330");
  EXPECT_EQ(got.kept_at, kT);
  EXPECT_EQ(got.title, k.title);
  EXPECT_EQ(got.screen.rows, 6);
  ASSERT_EQ(got.screen.lines.size(), k.screen.lines.size());
  EXPECT_EQ(got.screen.lines[5], k.screen.lines[5]);
  EXPECT_NE(got.screen.lines.back(), k.screen.lines.back()) << "the key must be redacted";
}

TEST_F(KeptScreenTest, BoundedInNumberAndSize) {
  KeepLimits limits;
  limits.max_files = 3;
  limits.max_bytes = 2000;
  std::vector<std::string> paths;
  for (int i = 0; i < 5; ++i) {
    KeptScreen k = Sample(kT + i * core::kNsPerSec);
    for (int row = 0; row < 200; ++row) k.screen.lines.insert(k.screen.lines.begin(), "transcript row " + std::to_string(row));
    auto p = KeepScreen(root_.string(), k, *redactor_, limits);
    ASSERT_TRUE(p.ok()) << p.error().ToString();
    paths.push_back(*p);
    EXPECT_LE(fs::file_size(*p), 2000u);
  }
  std::vector<std::string> problems;
  auto list = ListKeptScreens(root_.string(), &problems);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].path, paths[4]) << "newest first";
  EXPECT_EQ(list[2].path, paths[2]);
  // The bottom of the screen, which the rules read, is what was kept.
  EXPECT_EQ(list[0].screen.lines.back(), "  ⏸ manual mode on · esc to interrupt · ← for agents");
  EXPECT_LT(list[0].screen.lines.size(), 206u);
}

TEST_F(KeptScreenTest, ABrokenFileIsReportedAndSkipped) {
  ASSERT_TRUE(KeepScreen(root_.string(), Sample(kT), *redactor_).ok());
  std::ofstream(root_ / "01BROKEN.json") << "{\"format\":1";
  std::ofstream(root_ / "notes.txt") << "not a kept screen";
  std::vector<std::string> problems;
  EXPECT_EQ(ListKeptScreens(root_.string(), &problems).size(), 1u);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("01BROKEN.json"), std::string::npos);
  EXPECT_TRUE(ListKeptScreens((root_ / "missing").string(), &problems).empty());
  auto bad = DecodeKeptScreen(R"({"format":1,"kept_at":"2026-11-24T08:00:00Z","reason":"x","mode":"PTY","agent_type":"claude","verdict":{"state":"bogus"}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("verdict.state"), std::string::npos);
}

TEST(StuckUnknownWatch, KeepsOncePerSpellAfterItsTime) {
  StuckUnknownWatch w(3 * core::kNsPerSec);
  core::Signal unknown;
  unknown.state = core::State::kUnknown;
  unknown.reason_code = "no_rule_matched";
  core::Signal running;
  running.state = core::State::kRunning;
  EXPECT_FALSE(w.Observe(unknown, kT));
  EXPECT_EQ(w.deadline(), kT + 3 * core::kNsPerSec);
  EXPECT_FALSE(w.Observe(unknown, kT + 2 * core::kNsPerSec));
  EXPECT_TRUE(w.Observe(unknown, kT + 3 * core::kNsPerSec));
  EXPECT_FALSE(w.Observe(unknown, kT + 9 * core::kNsPerSec)) << "once per spell";
  EXPECT_EQ(w.deadline(), 0);
  EXPECT_FALSE(w.Observe(running, kT + 10 * core::kNsPerSec));
  EXPECT_FALSE(w.Observe(unknown, kT + 11 * core::kNsPerSec));
  EXPECT_FALSE(w.Observe(running, kT + 12 * core::kNsPerSec)) << "a short spell is not kept";
  EXPECT_FALSE(w.Observe(unknown, kT + 20 * core::kNsPerSec));
  EXPECT_TRUE(w.Observe(unknown, kT + 23 * core::kNsPerSec));
  core::Signal other = unknown;
  other.reason_code = "starting";  // a rule that reads "starting" read the screen
  StuckUnknownWatch w2(1);
  EXPECT_FALSE(w2.Observe(other, kT));
  EXPECT_FALSE(w2.Observe(other, kT + core::kNsPerSec));
}

// The two rules of the Claude set of 2026-11-22 that read its working and
// idle footer, anchored at the row's start (the built-in set reads the
// footer's parts since issue 15, so it no longer misses this screen).
constexpr const char* kAnchoredClaude = R"toml(
format = 1
agent = "claude"
[[rule]]
id = "claude.footer.interrupt"
state = "running"
region = "after_last_rule"
regex = '^\s*esc to interrupt'
confidence = "high"
[[rule]]
id = "claude.prompt.idle"
state = "idle"
region = "prompt_box"
regex = '^❯\x{A0}'
not = [{ region = "after_last_rule", regex = 'esc to interrupt' }]
confidence = "medium"
)toml";

TEST(ClosestRule, TheAnchoredFooterRuleFailsOnlyOnItsAnchor) {
  auto parsed = ParsePatternSet(kAnchoredClaude, "claude.toml");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const PatternSet* set = &*parsed;
  // Claude Code 2.1.330 at work (issue 15): the footer moved behind a mode indicator.
  Screen s;
  s.lines = {"❯ run the slow build step", "", "✢ Hatching…", "",
             std::string(120, '-'), "❯\u00a0", std::string(120, '-'),
             "  ⏸ manual mode on · esc to interrupt · ← for agents"};
  s.rows = static_cast<int>(s.lines.size());
  s.cols = 120;
  StreamSignals sig;
  AnalyzerInput in;
  in.screen = &s;
  in.signals = &sig;
  in.agent_type = "claude";
  in.captured = true;
  std::vector<RuleCloseness> ranked = RankRules(*set, in);
  ASSERT_EQ(ranked.size(), set->rules.size());
  for (const auto& c : ranked) EXPECT_FALSE(c.matched) << c.rule->id;
  // The anchored footer rule's one part fails, but only on its anchor: a
  // near miss, so it is the closest. claude.prompt.idle holds its prompt
  // regex, but its `not` (esc to interrupt in the footer) fails outright.
  const RuleCloseness& top = ranked.front();
  EXPECT_EQ(top.rule->id, "claude.footer.interrupt");
  EXPECT_EQ(top.held, 0);
  EXPECT_EQ(top.total, 1);
  EXPECT_EQ(top.near, 1);
  std::string failed;
  for (const auto& f : top.failed) failed += f + "\n";
  EXPECT_NE(failed.find("FAIL regex /^\\s*esc to interrupt/ on after_last_rule"), std::string::npos) << failed;
  EXPECT_NE(failed.find("near: /esc to interrupt/ matches on after_last_rule"), std::string::npos) << failed;
  auto idle = std::find_if(ranked.begin(), ranked.end(),
                           [](const RuleCloseness& c) { return c.rule->id == "claude.prompt.idle"; });
  ASSERT_NE(idle, ranked.end());
  EXPECT_EQ(idle->held, 1);
  EXPECT_EQ(idle->total, 2);
  EXPECT_EQ(idle->near, 0);
  EXPECT_EQ(idle - ranked.begin(), 1) << "second: one part of two held";
}

TEST(ClosestRule, ADialogAboveTheRegionIsANearMiss) {
  // Codex 0.147.0 (issue 15): a long command preview pushes the question
  // above bottom_lines(N).
  PatternSet set;
  set.name = "t";
  Rule r;
  r.id = "t.approval";
  r.state = core::State::kWaitingApproval;
  r.region = Region{RegionKind::kBottomLines, 3};
  auto re = Regex::Compile("Would you like to run the following command\\?");
  ASSERT_TRUE(re.ok());
  r.cond.regex = std::make_shared<const Regex>(std::move(*re));
  set.rules.push_back(r);
  Screen s;
  s.lines = {"Would you like to run the following command?", "  $ a", "  $ b", "  $ c", "  $ d",
             "› 1. Yes, proceed"};
  s.rows = 6;
  s.cols = 80;
  StreamSignals sig;
  AnalyzerInput in;
  in.screen = &s;
  in.signals = &sig;
  auto ranked = RankRules(set, in);
  ASSERT_EQ(ranked.size(), 1u);
  EXPECT_FALSE(ranked[0].matched);
  EXPECT_EQ(ranked[0].near, 1);
  EXPECT_NE(ranked[0].failed.back().find("matches on whole_screen, outside bottom_lines(3)"),
            std::string::npos)
      << ranked[0].failed.back();
}

TEST(Verified, AgainstTheSetsList) {
  auto lib = PatternLibrary::Load(LibraryOptions{});
  const PatternSet* set = lib->Find("claude");
  ASSERT_NE(set, nullptr);
  ASSERT_FALSE(set->verified_on.empty());
  const std::string good = set->verified_on.front();
  Verification v = VerifyVersion(lib.get(), "claude", good);
  EXPECT_EQ(v.verified, std::optional<bool>(true));
  EXPECT_EQ(v.set_name, "claude");
  EXPECT_EQ(v.verified_on, set->verified_on);
  v = VerifyVersion(lib.get(), "claude", "0.0.1-never");
  EXPECT_EQ(v.verified, std::optional<bool>(false));
  v = VerifyVersion(lib.get(), "claude", "");
  EXPECT_FALSE(v.verified.has_value()) << "an unknown version is neither";
  v = VerifyVersion(lib.get(), "aider", "1.0.0");
  EXPECT_EQ(v.verified, std::optional<bool>(false)) << "no set of its own: nothing verified";
  EXPECT_TRUE(v.set_name.empty());
}

// Secrets that span rows (issue 25): a PEM key's body and END line, a key
// that wrapped at the last column, and the password flags of mysql, curl
// and sshpass never reach the kept file in clear; the row count stays.
TEST_F(KeptScreenTest, SecretsThatSpanRowsAreRedactedInTheFile) {
  KeptScreen k = Sample(kT);
  k.screen.cols = 80;
  // An OpenAI key the terminal wrapped at the last column: its head (no
  // digit, so no key on its own) fills the row, its tail starts the next.
  std::string key_head = "sk-proj-";
  for (int i = 0; key_head.size() < 66; ++i) key_head += char((i % 2 ? 'a' : 'A') + i % 26);
  const std::string key_tail = "UvWxYz0123456789Zq";
  k.screen.lines = {"$ cat id_ed25519",
                    "-----BEGIN OPENSSH PRIVATE KEY-----",
                    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
                    "QyNTUxOQAAACDh0yAgZmFrZWtleWJvZHlmb3J0ZXN0c29ubHkxMjM0NTY3ODkwAAAA",
                    "-----END OPENSSH PRIVATE KEY-----",
                    "export OPENAI=" + key_head,
                    key_tail,
                    "$ mysql -u root -pHUNTER2MYSQLPASS app",
                    "$ curl -u admin:CURLBASICPASSWORD99 https://x",
                    "$ sshpass -p SSHPASSSECRET77 ssh deploy@vm",
                    "❯ "};
  ASSERT_EQ(k.screen.lines[5].size(), 80u);
  const size_t rows = k.screen.lines.size();
  auto path = KeepScreen(root_, k, *redactor_);
  ASSERT_TRUE(path.ok()) << path.error().ToString();
  auto text = core::ReadWholeFile(*path);
  ASSERT_TRUE(text.ok());
  for (const char* secret : {"b3BlbnNzaC1rZXktdjE", "QyNTUxOQAAACDh0yAg", "END OPENSSH PRIVATE KEY", "UvWxYz0123456789Zq",
                             "HUNTER2MYSQLPASS", "CURLBASICPASSWORD99", "SSHPASSSECRET77"})
    EXPECT_EQ(text->find(secret), std::string::npos) << secret << " in clear:\n" << *text;
  EXPECT_EQ(text->find(key_head.substr(0, 20)), std::string::npos) << "the key's head before the wrap";
  auto back = DecodeKeptScreen(*text);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->screen.lines.size(), rows) << "a pattern set reads rows by position";
  EXPECT_EQ(back->screen.lines[0], "$ cat id_ed25519");
  EXPECT_EQ(back->screen.lines.back(), "❯ ");
  EXPECT_NE(text->find("mysql -u root -p[REDACTED:mysql_password_flag] app"), std::string::npos) << *text;
}

}  // namespace
}  // namespace agt::detect
