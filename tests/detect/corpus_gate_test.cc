// The corpus gates: every recorded fixture replayed through the analyzer in
// CAP mode (snapshots) and PTY mode (cast). Per agent, version and permission
// mode: time-weighted agreement with truth (300 ms grace after each true
// transition) of at least 99 % in PTY mode and 97 % in CAP mode, no false
// waiting_approval, no missed approval or question, and the right choices,
// cursor and multi-select on every one of them. PTY mode also with the
// screen analysed after each of the agent's writes (PTY-W): a live reader's
// analysis can fall between two writes of one frame, and the state it
// reports then must still meet the bar. With the hooks installed
// (the hooks variant), the same bars for the state the engine fuses from the
// screen and the hooks. The figures are printed.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "tests/detect/corpus.h"

namespace agt::detect::corpus {
namespace {

void Report(const char* mode, const std::string& name, const Score& s) {
  std::printf(
      "%-4s %-48s agree %6.2f%% of %6.1fs  false_approval %.2fs  waits %d missed %d  "
      "detail_wrong %.2fs  type/details_wrong %.2fs\n",
      mode, name.c_str(), 100 * s.Agreement(), s.counted, s.false_approval, s.waits,
      s.missed_waits, s.detail_wrong, s.aux_wrong);
}

enum class Replay { kCap, kPty, kPtyEveryWrite, kFusedCap, kFusedPty };

// Every fixture, then one line per agent/version/mode group with the bar it
// is held to, then every disagreement of the groups. Each group must meet
// every bar: a version or mode that fails cannot hide behind the others.
// The fused replays take the hooks variant (fixtures with hooks.jsonl).
void RunGate(const char* mode, Replay how, double bar) {
  auto dirs = FindFixtures(FixturesRoot());
  ASSERT_FALSE(dirs.empty()) << "no fixtures under " << FixturesRoot();
  auto lib = PatternLibrary::Load({DefaultPatternsDir(), "", {}, {}});
  ASSERT_TRUE(lib->problems().empty()) << lib->problems()[0];
  const bool fused = how == Replay::kFusedCap || how == Replay::kFusedPty;
  std::map<std::string, Score> groups;
  std::map<std::string, int> counts;
  for (const auto& dir : dirs) {
    if (fused && !HasHooks(dir)) continue;
    auto f = LoadFixture(dir);
    ASSERT_TRUE(f.ok()) << f.error().message;
    double end = 0;
    Timeline t;
#if defined(AGTMUX_GATE_FUSED)
    auto r = ReplayFused(*f, lib, how == Replay::kFusedPty, &end);
    ASSERT_TRUE(r.ok()) << r.error().message;
    t = std::move(r).value();
#elif defined(AGTMUX_GATE_PTY)
    auto r = ReplayPty(*f, lib, &end, how == Replay::kPtyEveryWrite);
    ASSERT_TRUE(r.ok()) << r.error().message;
    t = std::move(r).value();
#else
    t = ReplayCap(*f, lib, &end);
#endif
    Score s = ScoreTimeline(*f, t, end);
    Report(mode, f->Group() + "/" + f->scenario, s);
    groups[f->Group()].Add(s);
    ++counts[f->Group()];
  }
  ASSERT_FALSE(groups.empty()) << "no fixtures for " << mode << " under " << FixturesRoot();
  auto verdicts = JudgeGroups(groups, counts, bar);
  std::printf("\n");
  for (const auto& v : verdicts) std::printf("%s\n", FormatVerdict(mode, v).c_str());
  for (const auto& line : FormatSplit(mode, verdicts)) std::printf("%s\n", line.c_str());
  for (const auto& v : verdicts) {
    if (!v.score.problems.empty()) std::printf("\n-- %s %s\n", mode, v.group.c_str());
    for (const auto& p : v.score.problems) std::printf("     %s\n", p.c_str());
    EXPECT_TRUE(v.failures.empty()) << FormatVerdict(mode, v);
  }
}

#if defined(AGTMUX_GATE_FUSED)
// With the hooks installed: wrapped (the wrapper's events) and unwrapped (the
// poller's), each fused with the recorded hooks by the state engine.
TEST(CorpusGate, FusedWrappedWithHooks) { RunGate("F-PTY", Replay::kFusedPty, kPtyBar); }
TEST(CorpusGate, FusedUnwrappedWithHooks) { RunGate("F-CAP", Replay::kFusedCap, kCapBar); }
#elif defined(AGTMUX_GATE_PTY)
TEST(CorpusGate, PtyModeCast) { RunGate("PTY", Replay::kPty, kPtyBar); }
// Half-drawn frames included (an Ink redraw caught between its erase and
// its frame must not read idle where the turn has completed).
TEST(CorpusGate, PtyModeEveryWrite) { RunGate("PTY-W", Replay::kPtyEveryWrite, kPtyBar); }
#else
TEST(CorpusGate, CapModeSnapshots) { RunGate("CAP", Replay::kCap, kCapBar); }
#endif

}  // namespace
}  // namespace agt::detect::corpus
