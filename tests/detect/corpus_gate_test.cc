// The corpus gates: every recorded fixture replayed through the analyzer in
// CAP mode (snapshots) and PTY mode (cast). Per agent: >= 97 % time-weighted
// agreement with truth (300 ms grace after each true transition), no false
// waiting_approval, no missed approval or question, and the right choices,
// cursor and multi-select on every one of them. The figures are printed.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "tests/detect/corpus.h"

namespace agt::detect::corpus {
namespace {

constexpr double kBar = 0.97;

struct ModeResult {
  std::map<std::string, Score> per_agent;
};

void Report(const char* mode, const std::string& name, const Score& s) {
  std::printf(
      "%-4s %-40s agree %6.2f%% of %6.1fs  false_approval %.2fs  waits %d missed %d  "
      "detail_wrong %.2fs  type/details_wrong %.2fs\n",
      mode, name.c_str(), 100 * s.Agreement(), s.counted, s.false_approval, s.waits,
      s.missed_waits, s.detail_wrong, s.aux_wrong);
}

void RunGate(const char* mode) {
  auto dirs = FindFixtures(FixturesRoot());
  ASSERT_FALSE(dirs.empty()) << "no fixtures under " << FixturesRoot();
  auto lib = PatternLibrary::Load({DefaultPatternsDir(), "", {}, {}});
  ASSERT_TRUE(lib->problems().empty()) << lib->problems()[0];
  std::map<std::string, Score> per_agent;
  for (const auto& dir : dirs) {
    auto f = LoadFixture(dir);
    ASSERT_TRUE(f.ok()) << f.error().message;
    double end = 0;
    Timeline t;
#if defined(AGTMUX_GATE_PTY)
    auto r = ReplayPty(*f, lib, &end);
    ASSERT_TRUE(r.ok()) << r.error().message;
    t = std::move(r).value();
#else
    t = ReplayCap(*f, lib, &end);
#endif
    Score s = ScoreTimeline(*f, t, end);
    Report(mode, f->agent + "/" + f->version + "/" + f->scenario, s);
    per_agent[f->agent].Add(s);
  }
  for (const auto& [agent, s] : per_agent) {
    Report(mode, agent + " (all scenarios)", s);
    for (const auto& p : s.problems) std::printf("     %s\n", p.c_str());
    EXPECT_GE(s.Agreement(), kBar) << mode << " " << agent;
    EXPECT_EQ(s.false_approval, 0.0) << mode << " " << agent;
    EXPECT_EQ(s.missed_waits, 0) << mode << " " << agent;
    EXPECT_EQ(s.detail_wrong, 0.0) << mode << " " << agent;
  }
}

#if defined(AGTMUX_GATE_PTY)
TEST(CorpusGate, PtyModeCast) { RunGate("PTY"); }
#else
TEST(CorpusGate, CapModeSnapshots) { RunGate("CAP"); }
#endif

}  // namespace
}  // namespace agt::detect::corpus
