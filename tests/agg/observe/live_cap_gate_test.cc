// The live CAP gate (issue 15 item 6; docs/patterns.md, "Verifying a rule
// on recordings"): a small fixed selection of the corpus (an approval, a question and completed
// turns for each agent; Claude Code 2.1.330 in its default and auto modes)
// played in real time into the panes of a private tmux server watched by
// one real agtmuxd with byte screens on (the default), unwrapped and
// without hooks, so every state is CAP. Each group (agent/version/mode) is
// held to the CAP gate's bars, scored as the replayed gate scores
// (tests/detect/corpus.h): time-weighted agreement >= 97 % with 300 ms
// grace, no missed wait, no false waiting_approval, right choices and
// cursor. The daemon reads its patterns from $AGTMUX_PATTERNS_DIR, so the
// gate can be run against an edited pattern set; the second test shows it
// fails on a set without Claude Code's approval rules.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/agg/observe/live_cap.h"

namespace {

using namespace agt::detect::corpus;
using agt::test::Daemon;
using agt::test::TestEnv;
namespace live = agt::test::live_cap;

// One approval, one question and completed turns per agent, and a second
// Claude Code mode (auto: a risky command approved, and completed turns).
constexpr const char* kSelection[] = {
    "claude/2.1.330/shell_approved",      "claude/2.1.330/question_single",
    "claude/2.1.330/turns_completed",     "claude/2.1.330/auto/shell_risky_approved",
    "claude/2.1.330/auto/turns_completed", "codex/0.169.0/shell_approved",
    "codex/0.169.0/question",             "codex/0.169.0/turns_completed",
    "gemini/0.61.0/shell_approved",       "gemini/0.61.0/question",
    "gemini/0.61.0/turns_completed",
};

/// Plays `dirs` live to one daemon reading the patterns in `patterns_dir`
/// (none: the daemon's default) and returns each group's verdict against
/// the CAP bars, printing the figures under `label` (scripts/test.sh
/// repeats the "LIVE" group lines).
std::vector<GroupVerdict> PlayLive(const char* label, const std::vector<std::string>& dirs,
                                   const std::string& patterns_dir) {
  TestEnv env;
  if (!patterns_dir.empty()) env.vars.push_back("AGTMUX_PATTERNS_DIR=" + patterns_dir);
  std::vector<live::Recording> recs;
  for (const auto& d : dirs) {
    auto r = live::LoadRecording(FixturesRoot() + "/" + d);
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (!r.ok()) return {};
    recs.push_back(std::move(r).value());
  }
  live::Lab lab(env);
  lab.CreatePanes(recs);
  for (const auto& r : recs) EXPECT_FALSE(r.pane.empty()) << "no pane for " << r.fixture.dir;
  Daemon daemon(env);
  EXPECT_TRUE(daemon.WaitReady());
  std::vector<std::vector<Timeline>> timelines;
  const bool listed = lab.PlayAndWatch(recs, {&daemon}, &timelines);
  EXPECT_TRUE(listed) << "the daemon never listed every pane as an agent";
  if (!listed) return {};
  std::map<std::string, Score> groups;
  std::map<std::string, int> counts;
  for (size_t i = 0; i < recs.size(); ++i) {
    const Fixture& f = recs[i].fixture;
    EXPECT_NE(recs[i].start, 0) << f.dir << " never started playing";
    Score s = live::ScoreLive(recs[i], timelines[0][i]);
    std::printf("%s %-48s agree %6.2f%% of %6.1fs  false_approval %.2fs  waits %d missed %d  "
                "detail_wrong %.2fs\n",
                label, (f.Group() + "/" + f.scenario).c_str(), 100 * s.Agreement(), s.counted, s.false_approval,
                s.waits, s.missed_waits, s.detail_wrong);
    groups[f.Group()].Add(s);
    ++counts[f.Group()];
  }
  auto verdicts = JudgeGroups(groups, counts, kCapBar);
  std::printf("\n");
  for (const auto& v : verdicts) std::printf("%s\n", FormatVerdict(label, v).c_str());
  for (const auto& v : verdicts) {
    if (!v.score.problems.empty()) std::printf("\n-- %s %s\n", label, v.group.c_str());
    for (const auto& p : v.score.problems) std::printf("     %s\n", p.c_str());
  }
  return verdicts;
}

std::string PatternsDir() {
  const char* p = std::getenv("AGTMUX_PATTERNS_DIR");
  return p != nullptr ? p : "";
}

TEST(LiveCapGate, RecordingsPlayedLive) {
  auto verdicts = PlayLive("LIVE", {std::begin(kSelection), std::end(kSelection)}, PatternsDir());
  ASSERT_EQ(verdicts.size(), 4u) << "one group per agent/version/mode of the selection";
  for (const auto& v : verdicts) EXPECT_TRUE(v.failures.empty()) << FormatVerdict("LIVE", v);
}

// The gate can fail: with Claude Code's approval rules taken out of a copy
// of the pattern set, its approval is missed live and the group fails.
TEST(LiveCapGate, FailsWithoutClaudesApprovalRules) {
  const std::string src = PatternsDir();
  ASSERT_FALSE(src.empty()) << "AGTMUX_PATTERNS_DIR is not set (meson sets it)";
  TestEnv scratch;
  const std::string dir = scratch.root + "/patterns";
  std::filesystem::copy(src, dir, std::filesystem::copy_options::recursive);
  std::ifstream in(dir + "/claude.toml");
  std::stringstream text;
  text << in.rdbuf();
  // Drops every [[rule]] block whose id starts with "claude.approval.".
  std::string kept, block;
  bool approval = false;
  std::string line;
  int dropped = 0;
  auto flush = [&] {
    if (approval) ++dropped;
    else kept += block;
    block.clear();
    approval = false;
  };
  while (std::getline(text, line)) {
    if (line.rfind("[[rule]]", 0) == 0 || (line.rfind("[", 0) == 0 && line.rfind("[[rule.", 0) != 0 &&
                                           line.rfind("[rule.", 0) != 0))
      flush();
    if (line.rfind("id = \"claude.approval.", 0) == 0) approval = true;
    block += line + "\n";
  }
  flush();
  ASSERT_GE(dropped, 2) << "no claude.approval.* rules found in " << src << "/claude.toml";
  std::ofstream(dir + "/claude.toml", std::ios::trunc) << kept;
  auto verdicts = PlayLive("LIVE-BROKEN", {"claude/2.1.330/shell_approved"}, dir);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_FALSE(verdicts[0].failures.empty()) << "the gate passed without Claude's approval rules";
  EXPECT_GE(verdicts[0].score.missed_waits, 1);
}

}  // namespace
