// detect_corpus: a report tool for pattern authors. Replays fixtures in CAP
// mode (or PTY mode with --pty) and prints the truth, the analyzer's
// timeline and every disagreement, so a rule can be tuned on real screens.
//   detect_corpus [--pty] [--fused] [-q] FIXTURE_DIR...    (default: every
//                                  fixture; --fused: the hooks variants fused
//                                  with their hooks, F-PTY with --pty, else F-CAP)
//   detect_corpus --gates [ROOT]   both modes (and, for the hooks variant, both
//                                  fused with the hooks), one line per
//                                  agent/version/mode held to the gates' bars;
//                                  exit 1 when one fails
//                                  (tests/agents/check-release.sh runs this)
//   detect_corpus --latency [--pty] [ROOT]   how soon `completed` follows the end
//                                  of each turn (p50/p95/max), and flickers
//   --every-write (with --pty, also with --gates): the screen analysed after
//                                  each of the agent's writes and halfway
//                                  through each longer one, as a live reader
//                                  does at worst (half-drawn frames included)
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "tests/detect/corpus.h"

namespace {

using namespace agt::detect;
using namespace agt::detect::corpus;

enum class How { kCap, kPty, kFusedCap, kFusedPty };

// --every-write: PTY replays analyse after each write (ReplayPty).
bool g_every_write = false;

// Loads a fixture and replays it; a problem is printed and gives false.
bool LoadAndReplay(const std::string& dir, How how,
                   const std::shared_ptr<const PatternLibrary>& lib, Fixture* f, Timeline* t,
                   double* end) {
  auto loaded = LoadFixture(dir);
  if (!loaded.ok()) {
    std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
    return false;
  }
  *f = std::move(loaded).value();
  *end = 0;
  if (how == How::kCap) {
    *t = ReplayCap(*f, lib, end);
    return true;
  }
  auto r = how == How::kPty ? ReplayPty(*f, lib, end, g_every_write)
                            : ReplayFused(*f, lib, how == How::kFusedPty, end);
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.error().message.c_str());
    return false;
  }
  *t = std::move(r).value();
  return true;
}

// Both gates over every fixture under `root`: per group the figures and what
// fails, then the disagreements of the failing groups.
int Gates(const std::string& root, const std::shared_ptr<const PatternLibrary>& lib) {
  auto dirs = FindFixtures(root);
  if (dirs.empty()) {
    std::fprintf(stderr, "no fixtures under %s\n", root.c_str());
    return 2;
  }
  int failed = 0;
  // PTY, CAP, then the hooks variant fused with its hooks (wrapped, unwrapped)
  for (How how : {How::kPty, How::kCap, How::kFusedPty, How::kFusedCap}) {
    const bool pty = how == How::kPty || how == How::kFusedPty;
    const bool fused = how == How::kFusedPty || how == How::kFusedCap;
    const char* mode = fused ? (pty ? "F-PTY" : "F-CAP")
                             : (pty ? (g_every_write ? "PTY-W" : "PTY") : "CAP");
    std::map<std::string, Score> groups;
    std::map<std::string, int> counts;
    for (const auto& dir : dirs) {
      if (fused && !HasHooks(dir)) continue;
      Fixture f;
      Timeline t;
      double end = 0;
      if (!LoadAndReplay(dir, how, lib, &f, &t, &end)) return 2;
      groups[f.Group()].Add(ScoreTimeline(f, t, end));
      ++counts[f.Group()];
    }
    auto verdicts = JudgeGroups(groups, counts, pty ? kPtyBar : kCapBar);
    for (const auto& v : verdicts) {
      std::printf("%s\n", FormatVerdict(mode, v).c_str());
      failed += v.failures.empty() && v.reported.empty() ? 0 : 1;
    }
    for (const auto& line : FormatSplit(mode, verdicts)) std::printf("%s\n", line.c_str());
    for (const auto& v : verdicts) {
      if (v.failures.empty() && v.reported.empty()) continue;
      std::printf("   -- %s %s\n", mode, v.group.c_str());
      for (const auto& p : v.score.problems) std::printf("      %s\n", p.c_str());
    }
  }
  std::printf("%s\n", failed ? "gates: FAIL" : "gates: PASS");
  return failed ? 1 : 0;
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// `completed` after the end of each turn, PTY replay (the wrapper's own
// pipeline and timing): per group p50/p95/max, misses and flickers.
int Latency(const std::string& root, const std::shared_ptr<const PatternLibrary>& lib,
            bool pty) {
  auto dirs = FindFixtures(root);
  if (dirs.empty()) {
    std::fprintf(stderr, "no fixtures under %s\n", root.c_str());
    return 2;
  }
  std::map<std::string, CompletedLatency> groups;
  CompletedLatency all;
  for (const auto& dir : dirs) {
    Fixture f;
    Timeline t;
    double end = 0;
    if (!LoadAndReplay(dir, pty ? How::kPty : How::kCap, lib, &f, &t, &end)) return 2;
    CompletedLatency c = MeasureCompleted(f, t);
    groups[f.Group()].Add(c);
    groups[f.agent + " (all)"].Add(c);
    all.Add(c);
  }
  groups["all agents"] = all;
  std::printf("%s: completed after the end of the turn (s)\n", pty ? "PTY" : "CAP");
  for (const auto& [g, c] : groups)
    std::printf("%-30s turns %3zu  p50 %.3f  p95 %.3f  max %.3f  missed %d  flickers %d\n",
                g.c_str(), c.seconds.size(), Percentile(c.seconds, 0.5),
                Percentile(c.seconds, 0.95), Percentile(c.seconds, 1.0), c.missed, c.flickers);
  for (const auto& n : all.notes) std::printf("   %s\n", n.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool pty = false;
  bool quiet = false;
  bool gates = false;
  bool latency = false;
  bool fused = false;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--pty") == 0)
      pty = true;
    else if (std::strcmp(argv[i], "-q") == 0)
      quiet = true;
    else if (std::strcmp(argv[i], "--gates") == 0)
      gates = true;
    else if (std::strcmp(argv[i], "--latency") == 0)
      latency = true;
    else if (std::strcmp(argv[i], "--fused") == 0)
      fused = true;
    else if (std::strcmp(argv[i], "--every-write") == 0)
      g_every_write = true;
    else
      dirs.push_back(argv[i]);
  }
  auto lib = PatternLibrary::Load({DefaultPatternsDir(), "", {}, {}});
  for (const auto& p : lib->problems())
    std::fprintf(stderr, "pattern problem: %s\n", p.c_str());
  if (gates || latency) {
    if (dirs.size() > 1) {
      std::fprintf(stderr, "detect_corpus --gates/--latency take one fixtures root\n");
      return 2;
    }
    const std::string root = dirs.empty() ? FixturesRoot() : dirs[0];
    return gates ? Gates(root, lib) : Latency(root, lib, pty);
  }
  if (dirs.empty()) dirs = FindFixtures(FixturesRoot());
  const How how = fused ? (pty ? How::kFusedPty : How::kFusedCap) : (pty ? How::kPty : How::kCap);
  for (const auto& dir : dirs) {
    if (fused && !HasHooks(dir)) continue;
    Fixture fx;
    Timeline t;
    double end = 0;
    if (!LoadAndReplay(dir, how, lib, &fx, &t, &end)) return 2;
    const Fixture* f = &fx;
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
