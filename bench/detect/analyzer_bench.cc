// Analyzer cost on the recorded corpus, printed as min/median/max:
//  1. CAP: one Analyze() per captured screen (every snapshot of every
//     fixture), in microseconds.
//  2. PTY: each cast replayed through the wrapper's screen pipeline with the
//     pattern analyzer, against the same pipeline with a null analyzer (the
//     baseline: stream scanning and libvterm rendering), per MB of output.
// From these it estimates the share of one core a wrapped agent costs when
// it streams at the fastest rate seen in the corpus, and at full speed
// (an analysis every 30 ms, the pipeline's ceiling).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "libagtcore/detect/pattern_analyzer.h"
#include "tests/detect/corpus.h"
#include "wrap/asciicast.h"
#include "libagtcore/screen/screen_pipeline.h"

namespace {

using agt::core::TimeNs;
using Clock = std::chrono::steady_clock;
namespace corpus = agt::detect::corpus;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

struct Stats {
  double min, median, max;
};
Stats Summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2], v.back()};
}

class NullAnalyzer final : public agt::detect::Analyzer {
 public:
  agt::detect::Verdict Analyze(const agt::detect::AnalyzerInput&) override { return {}; }
};

struct CastRun {
  double seconds = 0;
  size_t bytes = 0;
  int analyses = 0;
};

CastRun Replay(const agt::wrap::Cast& cast, std::unique_ptr<agt::detect::Analyzer> a,
               const std::string& agent) {
  agt::screen::ScreenPipelineOptions opts;
  opts.rows = cast.header.height;
  opts.cols = cast.header.width;
  opts.agent_type = agent;
  agt::screen::ScreenPipeline pipe(opts, std::move(a));
  CastRun r;
  auto t0 = Clock::now();
  for (const auto& ev : cast.events) {
    TimeNs t = ev.at + 1;
    for (TimeNs due = pipe.next_analysis(); due != 0 && due <= t;
         due = pipe.next_analysis()) {
      pipe.Analyze(due);
      ++r.analyses;
    }
    if (ev.code == 'o') {
      pipe.OnOutput(ev.data, t);
      r.bytes += ev.data.size();
    } else if (ev.code == 'i') {
      pipe.OnInput(t);
    }
  }
  r.seconds = Seconds(Clock::now() - t0);
  return r;
}

}  // namespace

int main() {
  auto lib =
      agt::detect::PatternLibrary::Load({agt::detect::DefaultPatternsDir(), "", {}, {}});
  std::vector<corpus::Fixture> fixtures;
  for (const auto& dir : corpus::FindFixtures(corpus::FixturesRoot())) {
    auto f = corpus::LoadFixture(dir);
    if (f.ok()) fixtures.push_back(std::move(f).value());
  }
  if (fixtures.empty()) {
    std::fprintf(stderr, "detect_bench: no fixtures under %s\n",
                 corpus::FixturesRoot().c_str());
    return 1;
  }

  // 1. CAP: cost of one Analyze() per captured screen, with the generic
  // evidence (screen motion, the generic set's dialogs under the agent's)
  // and without it (the baseline), interleaved in the same run.
  constexpr int kReps = 7;
  size_t screens = 0;
  auto cap_pass = [&](bool generic) {
    agt::detect::AnalyzerOptions opts;
    opts.generic_evidence = generic;
    size_t n = 0;
    auto t0 = Clock::now();
    for (const auto& f : fixtures) {
      auto analyzer = agt::detect::CreateAnalyzer(lib, f.agent, opts);
      agt::detect::Screen screen;
      screen.rows = 40;
      screen.cols = 120;
      agt::detect::StreamSignals sig;
      for (const auto& s : f.snapshots) {
        screen.lines = s.lines;
        agt::detect::AnalyzerInput in;
        in.screen = &screen;
        in.signals = &sig;
        in.agent_type = f.agent;
        in.now = static_cast<TimeNs>(s.t * 1e9) + 1;
        in.captured = true;
        analyzer->Analyze(in);
        ++n;
      }
    }
    screens = n;
    return Seconds(Clock::now() - t0) * 1e6 / static_cast<double>(n);
  };
  std::vector<double> per_screen_us, per_screen_base_us;
  for (int rep = 0; rep < kReps + 1; ++rep) {  // the first pass warms up
    double with = cap_pass(true);
    double base = cap_pass(false);
    if (rep > 0) {
      per_screen_us.push_back(with);
      per_screen_base_us.push_back(base);
    }
  }
  Stats cap = Summarize(per_screen_us);
  Stats cap_base = Summarize(per_screen_base_us);
  std::printf(
      "CAP  Analyze() per captured screen (%zu screens, %d reps): min %.1f us  median "
      "%.1f us  max %.1f us\n",
      screens, kReps, cap.min, cap.median, cap.max);
  std::printf(
      "CAP  the same without the generic evidence (baseline): min %.1f us  median %.1f us  "
      "max %.1f us; generic evidence costs %.2fx the baseline (medians)\n",
      cap_base.min, cap_base.median, cap_base.max, cap.median / cap_base.median);

  // 2. PTY: the wrapper pipeline per MB of stream, with and without analysis.
  std::vector<agt::wrap::Cast> casts;
  std::vector<std::string> agents;
  double peak_rate = 0;  // bytes/s over the busiest second of any cast
  for (const auto& f : fixtures) {
    auto text = agt::detect::ReadTextFile(f.cast_path);
    if (!text.ok()) continue;
    auto cast = agt::wrap::ParseCast(*text);
    if (!cast.ok()) continue;
    std::vector<std::pair<double, size_t>> outs;
    for (const auto& ev : cast->events)
      if (ev.code == 'o')
        outs.push_back({static_cast<double>(ev.at) / 1e9, ev.data.size()});
    size_t lo = 0, window = 0;
    for (size_t hi = 0; hi < outs.size(); ++hi) {
      window += outs[hi].second;
      while (outs[hi].first - outs[lo].first > 1.0) window -= outs[lo++].second;
      peak_rate = std::max(peak_rate, static_cast<double>(window));
    }
    casts.push_back(std::move(cast).value());
    agents.push_back(f.agent);
  }
  std::vector<double> with_s_per_mb, base_s_per_mb, rules_s_per_mb, per_analysis_us;
  size_t total_bytes = 0;
  for (int rep = 0; rep < kReps + 1; ++rep) {
    double with = 0, base = 0, rules = 0;
    size_t bytes = 0;
    int analyses = 0;
    for (size_t i = 0; i < casts.size(); ++i) {
      CastRun b = Replay(casts[i], std::make_unique<NullAnalyzer>(), agents[i]);
      CastRun w =
          Replay(casts[i], agt::detect::CreateAnalyzer(lib, agents[i]), agents[i]);
      agt::detect::AnalyzerOptions rules_only;
      rules_only.generic_evidence = false;
      CastRun r = Replay(casts[i], agt::detect::CreateAnalyzer(lib, agents[i], rules_only),
                         agents[i]);
      base += b.seconds;
      with += w.seconds;
      rules += r.seconds;
      bytes += w.bytes;
      analyses += w.analyses;
    }
    total_bytes = bytes;
    double mb = static_cast<double>(bytes) / 1e6;
    if (rep > 0) {
      with_s_per_mb.push_back(with / mb);
      base_s_per_mb.push_back(base / mb);
      rules_s_per_mb.push_back(rules / mb);
      per_analysis_us.push_back((with - base) * 1e6 / analyses);
    }
  }
  Stats w = Summarize(with_s_per_mb), b = Summarize(base_s_per_mb),
        pa = Summarize(per_analysis_us);
  std::printf(
      "PTY  pipeline with pattern analyzer (%zu casts, %.2f MB): min %.1f  median %.1f  "
      "max %.1f ms/MB\n",
      casts.size(), static_cast<double>(total_bytes) / 1e6, w.min * 1e3, w.median * 1e3,
      w.max * 1e3);
  std::printf(
      "PTY  baseline: same pipeline, null analyzer:             min %.1f  median %.1f  "
      "max %.1f ms/MB\n",
      b.min * 1e3, b.median * 1e3, b.max * 1e3);
  std::printf("PTY  ratio with/baseline (median): %.2fx; analysis alone: %.1f ms/MB\n",
              w.median / b.median, (w.median - b.median) * 1e3);
  Stats ro = Summarize(rules_s_per_mb);
  std::printf(
      "PTY  rules only (generic evidence off): median %.1f ms/MB; the generic evidence "
      "adds %.1f ms/MB, %.2fx the rules-only pipeline (medians)\n",
      ro.median * 1e3, (w.median - ro.median) * 1e3, w.median / ro.median);
  std::printf(
      "PTY  pattern-rule cost per pipeline analysis (the analyzer alone): min %.1f  "
      "median %.1f  max %.1f us\n",
      pa.min, pa.median, pa.max);
  double core_at_peak = w.median * peak_rate / 1e6 * 100;
  double core_full = pa.median * (1e9 / 30e6) / 1e6 * 100;  // one analysis per 30 ms
  std::printf(
      "EST  busiest second in the corpus: %.1f KB/s -> %.3f %% of one core (pipeline "
      "incl. analysis)\n",
      peak_rate / 1e3, core_at_peak);
  std::printf(
      "EST  full speed (an analysis every 30 ms, the pipeline ceiling): %.3f %% of one "
      "core for analysis (goal < 5 %%)\n",
      core_full);
  return 0;
}
