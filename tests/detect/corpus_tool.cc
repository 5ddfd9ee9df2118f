// detect_corpus: a report tool for pattern authors. Replays fixtures in CAP
// mode (or PTY mode with --pty) and prints the truth, the analyzer's
// timeline and every disagreement, so a rule can be tuned on real screens.
//   detect_corpus [--pty] FIXTURE_DIR...    (default: every fixture)
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tests/detect/corpus.h"

namespace agt::detect::corpus {
#if defined(AGTMUX_CORPUS_PTY)
core::Result<Timeline> ReplayPty(const Fixture& f,
                                 std::shared_ptr<const PatternLibrary> lib, double* end);
#endif
}  // namespace agt::detect::corpus

int main(int argc, char** argv) {
  using namespace agt::detect;
  using namespace agt::detect::corpus;
  bool pty = false;
  bool quiet = false;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--pty") == 0)
      pty = true;
    else if (std::strcmp(argv[i], "-q") == 0)
      quiet = true;
    else
      dirs.push_back(argv[i]);
  }
  if (dirs.empty()) dirs = FindFixtures(FixturesRoot());
  auto lib = PatternLibrary::Load({DefaultPatternsDir(), "", {}, {}});
  for (const auto& p : lib->problems())
    std::fprintf(stderr, "pattern problem: %s\n", p.c_str());
  for (const auto& dir : dirs) {
    auto f = LoadFixture(dir);
    if (!f.ok()) {
      std::fprintf(stderr, "%s\n", f.error().message.c_str());
      return 2;
    }
    double end = 0;
    Timeline t;
    if (pty) {
#if defined(AGTMUX_CORPUS_PTY)
      auto r = ReplayPty(*f, lib, &end);
      if (!r.ok()) {
        std::fprintf(stderr, "%s\n", r.error().message.c_str());
        return 2;
      }
      t = std::move(r).value();
#else
      std::fprintf(stderr, "built without PTY replay\n");
      return 2;
#endif
    } else {
      t = ReplayCap(*f, lib, &end);
    }
    Score s = ScoreTimeline(*f, t, end);
    std::printf(
        "== %s  agree %.2f%%  false_approval %.2fs  missed %d/%d  detail_wrong %.2fs\n",
        dir.c_str(), 100 * s.Agreement(), s.false_approval, s.missed_waits, s.waits,
        s.detail_wrong);
    if (quiet) continue;
    std::printf("-- truth\n");
    for (const auto& e : f->truth)
      std::printf("%9.3fs  %s  %s\n", e.t,
                  std::string(agt::core::StateName(e.state)).c_str(), e.source.c_str());
    std::printf("-- analyzer\n%s-- problems\n", FormatTimeline(t).c_str());
    for (const auto& p : s.problems) std::printf("   %s\n", p.c_str());
  }
  return 0;
}
