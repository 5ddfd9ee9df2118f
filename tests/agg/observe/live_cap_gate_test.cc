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
// gate can be run against an edited pattern set.
#include <cstdio>
#include <cstdlib>

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

TEST(LiveCapGate, RecordingsPlayedLive) {
  TestEnv env;
  if (const char* p = std::getenv("AGTMUX_PATTERNS_DIR"); p != nullptr && *p != '\0')
    env.vars.push_back(std::string("AGTMUX_PATTERNS_DIR=") + p);
  std::vector<live::Recording> recs;
  for (const char* d : kSelection) {
    auto r = live::LoadRecording(FixturesRoot() + "/" + d);
    ASSERT_TRUE(r.ok()) << r.error().message;
    recs.push_back(std::move(r).value());
  }
  live::Lab lab(env);
  lab.CreatePanes(recs);
  for (const auto& r : recs) ASSERT_FALSE(r.pane.empty()) << "no pane for " << r.fixture.dir;
  Daemon daemon(env);
  ASSERT_TRUE(daemon.WaitReady());
  std::vector<std::vector<Timeline>> timelines;
  ASSERT_TRUE(lab.PlayAndWatch(recs, {&daemon}, &timelines)) << "the daemon never listed every pane as an agent";

  std::map<std::string, Score> groups;
  std::map<std::string, int> counts;
  for (size_t i = 0; i < recs.size(); ++i) {
    const Fixture& f = recs[i].fixture;
    ASSERT_NE(recs[i].start, 0) << f.dir << " never started playing";
    Score s = live::ScoreLive(recs[i], timelines[0][i]);
    std::printf("LIVE %-48s agree %6.2f%% of %6.1fs  false_approval %.2fs  waits %d missed %d  "
                "detail_wrong %.2fs\n",
                (f.Group() + "/" + f.scenario).c_str(), 100 * s.Agreement(), s.counted, s.false_approval,
                s.waits, s.missed_waits, s.detail_wrong);
    groups[f.Group()].Add(s);
    ++counts[f.Group()];
  }
  auto verdicts = JudgeGroups(groups, counts, kCapBar);
  std::printf("\n");
  for (const auto& v : verdicts) std::printf("%s\n", FormatVerdict("LIVE", v).c_str());
  for (const auto& v : verdicts) {
    if (!v.score.problems.empty()) std::printf("\n-- LIVE %s\n", v.group.c_str());
    for (const auto& p : v.score.problems) std::printf("     %s\n", p.c_str());
    EXPECT_TRUE(v.failures.empty()) << FormatVerdict("LIVE", v);
  }
}

}  // namespace
