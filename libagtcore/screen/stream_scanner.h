// StreamScanner: reads the raw PTY output before anything else and takes out
// what a rendered screen loses: the window title (OSC 0/2), desktop
// notifications (OSC 9, OSC 777;notify), progress (OSC 9;4) and BEL. It also
// keeps the recent output with escape sequences removed (the analyzer's
// `raw_stream` region). It is a byte-at-a-time state machine, so a sequence
// split across reads at any byte is handled the same as one read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "libagtcore/detect/analyzer.h"

namespace agt::screen {

struct StreamScannerOptions {
  size_t max_osc = 4096;         // longer OSC payloads are dropped
  size_t recent_output = 4096;   // bytes of escape-free output kept
};

class StreamScanner {
 public:
  explicit StreamScanner(StreamScannerOptions opts = {}) : opts_(opts) {}

  /// Scans `bytes` that arrived at `now`. Returns true when a signal (title,
  /// notification, progress, BEL) changed.
  bool Feed(std::string_view bytes, core::TimeNs now);

  const detect::StreamSignals& signals() const { return signals_; }
  /// The title as known from elsewhere (tmux's pane_title when a screen is
  /// seeded from a capture), until the output sets one.
  void SetTitle(std::string_view title, core::TimeNs at) {
    signals_.title = std::string(title);
    signals_.title_at = at;
  }
  /// Recent output, escape sequences and CRs removed, at most
  /// opts.recent_output bytes (cut at a line start when possible).
  std::string_view recent_output() const { return recent_; }

 private:
  enum class St { kGround, kEsc, kEscInter, kCsi, kOsc, kOscEsc, kStr, kStrEsc };
  bool EndOsc(core::TimeNs now);
  void AddText(std::string_view text);

  StreamScannerOptions opts_;
  St st_ = St::kGround;
  std::string osc_;
  bool osc_overflow_ = false;
  std::string recent_;
  detect::StreamSignals signals_;
};

}  // namespace agt::screen
