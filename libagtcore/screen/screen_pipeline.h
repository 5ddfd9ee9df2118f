// ScreenPipeline: everything a reader of an agent's output does with it after
// passing it through: the stream-signal scanner (first, on raw bytes), the
// libvterm screen, and the analyzer, with the timing of when to analyse.
// The live proxy and `--replay` drive the same pipeline, so a recording
// yields the same state timeline as the session it was recorded from; the
// daemon's local collector drives one per unwrapped agent pane with tmux's
// %output bytes (aggregator/observe/byte_screens.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "libagtcore/detect/analyzer.h"
#include "libagtcore/screen/stream_scanner.h"
#include "libagtcore/screen/vterm_screen.h"

namespace agt::screen {

struct ScreenPipelineOptions {
  int rows = 24;
  int cols = 80;
  std::string agent_type = "generic";
  /// Output is analysed this long after it arrived, so a burst of reads
  /// costs one screen render. Kept well under the 150 ms PTY lag budget.
  core::TimeNs analysis_delay = 30 * core::kNsPerMs;
  /// Flood control. libvterm pays a whole-screen memmove per scrolled line,
  /// which would cap `cat bigfile` at a few MB/s. When more than
  /// flood_screens screens' worth of lines (rows * flood_screens newlines)
  /// arrive between two analyses, the rest of that output is not drawn as
  /// it comes: the analysis draws only its last lines (those that can still
  /// be on screen, from at most flood_tail bytes). The scanner and the
  /// recording still see every byte. An agent's UI redraws far less than
  /// two full screens per 30 ms.
  int flood_screens = 2;
  size_t flood_tail = 16 * 1024;
};

class ScreenPipeline {
 public:
  ScreenPipeline(ScreenPipelineOptions opts, std::unique_ptr<detect::Analyzer> analyzer);

  /// Output bytes at `now`: scanner first, then the screen (see flood
  /// control in the options).
  void OnOutput(std::string_view bytes, core::TimeNs now);
  /// The user typed something at `now` (for echo suppression).
  void OnInput(core::TimeNs now);
  void OnResize(int rows, int cols);
  /// Replaces what the screen shows with `seed`: terminal bytes that draw a
  /// whole rows x cols screen on a blank terminal (a capture of the pane
  /// turned into output, aggregator/observe/pane_seed.h). The seed is not
  /// output: the scanner, the activity times and flood control do not see
  /// it. When the screen already shows exactly what the seed draws (text,
  /// size, cursor, alternate screen) it is kept as it is (with its modes).
  /// Returns true when the screen was replaced; an analysis is due at `now`
  /// either way.
  bool Seed(std::string_view seed, int rows, int cols, core::TimeNs now);
  /// Sets the title the analyzer sees until the output sets one.
  void SeedTitle(std::string_view title, core::TimeNs now) { scanner_.SetTitle(title, now); }

  /// When Analyze should run next (an output burst to look at, or the
  /// analyzer's recheck time); 0 when nothing is due. Never periodic.
  core::TimeNs next_analysis() const;
  /// Runs the analyzer. Returns the new signal when its state, reason, rule,
  /// confidence or detail differ from the last one returned (evidence alone,
  /// such as a spinner frame in the title, is not a change).
  std::optional<core::Signal> Analyze(core::TimeNs now);

  const core::Signal& last_signal() const { return last_; }
  const StreamScanner& scanner() const { return scanner_; }
  const VtermScreen& screen() const { return *screen_; }
  /// The screen, after feeding any held flood tail.
  detect::Screen Snapshot() {
    CatchUp();
    return screen_->Snapshot();
  }
  /// The screen the last Analyze read.
  const detect::Screen& analysed() const { return cached_; }

 private:
  ScreenPipelineOptions opts_;
  std::unique_ptr<detect::Analyzer> analyzer_;
  StreamScanner scanner_;
  std::unique_ptr<VtermScreen> screen_;  // not movable: libvterm holds its address
  detect::Screen cached_;
  bool have_cached_ = false;
  core::TimeNs last_output_ = 0;
  core::TimeNs last_input_ = 0;
  core::TimeNs pending_ = 0;   // analysis due for output/input not yet analysed
  core::TimeNs recheck_ = 0;   // the analyzer's own recheck time
  bool reported_ = false;
  int window_lines_ = 0;       // newlines drawn since the last analysis
  bool flooding_ = false;
  std::string flood_ring_;     // the newest output while flooding: a ring
  size_t ring_head_ = 0;       // of flood_tail bytes, oldest at ring_head_
  size_t ring_len_ = 0;
  std::string flood_tail_;     // the ring in order, at catch-up
  core::Signal last_;

  void KeepTail(std::string_view bytes);
  void CatchUp();
};

}  // namespace agt::screen
