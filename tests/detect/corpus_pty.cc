// PTY-mode replay of a fixture for the corpus gates: the cast goes through
// the wrapper's own screen pipeline (stream scanner, libvterm screen, the
// analysis timing of the live proxy) with the pattern analyzer behind it.
#include <algorithm>
#include <string_view>

#include "libagtcore/detect/pattern_analyzer.h"
#include "tests/detect/corpus.h"
#include "wrap/asciicast.h"
#include "libagtcore/screen/screen_pipeline.h"

namespace agt::detect::corpus {
namespace {

double ToSec(core::TimeNs t) { return static_cast<double>(t - 1) / 1e9; }

/// With every_write, a write at least this long is also analysed halfway.
constexpr size_t kSplitAt = 64;

}  // namespace

core::Result<Timeline> ReplayPty(const Fixture& f,
                                 std::shared_ptr<const PatternLibrary> lib, double* end,
                                 bool every_write) {
  auto text = ReadTextFile(f.cast_path);
  if (!text.ok()) return text.error();
  auto cast = wrap::ParseCast(*text);
  if (!cast.ok()) return cast.error();
  screen::ScreenPipelineOptions opts;
  opts.rows = cast->header.height;
  opts.cols = cast->header.width;
  opts.agent_type = f.agent;
  if (every_write) opts.analysis_delay = 0;
  screen::ScreenPipeline pipe(opts, CreateAnalyzer(std::move(lib), f.agent));
  Timeline out;
  auto run_due = [&](core::TimeNs until) {
    for (core::TimeNs due = pipe.next_analysis(); due != 0 && due <= until;
         due = pipe.next_analysis()) {
      if (auto s = pipe.Analyze(due)) out.push_back({ToSec(due), *s});
    }
  };
  core::TimeNs last = 1;
  for (const wrap::CastEvent& ev : cast->events) {
    core::TimeNs t = ev.at + 1;
    run_due(t);
    last = std::max(last, t);
    if (ev.code == 'o') {
      if (every_write && ev.data.size() >= kSplitAt) {
        // A reader's read may also end inside a write (tmux reads the pane
        // in chunks): half of it, an analysis, then the rest.
        const std::string_view data = ev.data;
        pipe.OnOutput(data.substr(0, data.size() / 2), t);
        run_due(t);
        pipe.OnOutput(data.substr(data.size() / 2), t);
      } else {
        pipe.OnOutput(ev.data, t);
      }
    } else if (ev.code == 'i') {
      pipe.OnInput(t);
    } else if (ev.code == 'r') {
      int cols = 0, rows = 0;
      if (wrap::ParseCastSize(ev.data, &cols, &rows)) pipe.OnResize(rows, cols);
    }
  }
  for (int i = 0; i < 1000 && pipe.next_analysis() != 0; ++i) {
    core::TimeNs due = pipe.next_analysis();
    if (auto s = pipe.Analyze(due)) out.push_back({ToSec(due), *s});
    last = std::max(last, due);
  }
  // After the agent exits the wrapper reports the exit itself (lifecycle,
  // not a screen rule): the pane has no agent any more.
  if (!f.truth.empty() && f.truth.back().detail.empty() &&
      f.truth.back().state == core::State::kUnknown &&
      f.truth.back().source == "agent_exit") {
    core::Signal gone;
    gone.state = core::State::kUnknown;
    gone.reason_code = "no_agent";
    gone.rule_id = "wrapper.exited";
    for (const auto& ev : cast->events)
      if (ev.code == 'm' && ev.data.rfind("exit", 0) == 0)
        out.push_back({ToSec(ev.at + 1), gone});
  }
  *end = ToSec(last);
  return out;
}

}  // namespace agt::detect::corpus
