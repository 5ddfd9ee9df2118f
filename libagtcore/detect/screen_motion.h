// Screen motion: what changed between the frames an analyzer saw. This is
// evidence that survives a redesign of an agent's screen: a working agent
// animates the rows above its input (a spinner glyph that turns, an elapsed
// timer that ticks, a token count that grows), a finished one leaves a
// static screen. Pattern rules say what a layout means; motion says
// whether anything is still moving, whatever the layout (docs/patterns.md,
// "Generic evidence").
#pragma once

#include <string>
#include <vector>

#include "libagtcore/detect/analyzer.h"

namespace agt::detect {

/// A row that ticked: the same text as in the frame before, except for a
/// leading spinner glyph or for numbers (a timer, a token count).
struct Tick {
  TimeNs at = 0;    // when it was seen; 0 = never
  std::string row;  // the row as it reads now
  int index = -1;   // its screen row
};

class ScreenMotion {
 public:
  /// Takes the next frame at `now`. Only rows above `below_row` (the
  /// agent's prompt row; -1 = unknown: the bottom `kWindow` rows) and not
  /// the cursor's row (what the user types) can tick; none when
  /// `may_tick` is false (the agent's input is not on screen yet: a
  /// start-up animation is no work).
  void Observe(const Screen& screen, TimeNs now, int below_row, bool may_tick = true);
  /// When the screen's text last differed from the frame before; the
  /// first frame counts as a change.
  TimeNs changed_at() const { return changed_at_; }
  /// The last row that ticked.
  const Tick& tick() const { return tick_; }

  /// How many rows above the prompt (or the bottom) may tick.
  static constexpr int kWindow = 16;

 private:
  std::vector<std::string> prev_;
  TimeNs changed_at_ = 0;
  Tick tick_;
};

/// `row` with a leading spinner glyph and every digit run folded to one
/// placeholder each, so two frames of a ticking row compare equal.
std::string FoldTicking(std::string_view row);

}  // namespace agt::detect
