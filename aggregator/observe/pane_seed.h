// Seeding a byte-fed pane screen from tmux: one command line that reads the
// pane's cursor, size, alternate-screen flag and scroll region
// (`display-message -p`) and its visible screen with attributes
// (`capture-pane -e -p`), run back to back by tmux, and the terminal bytes
// that draw that state on a blank terminal. The collector feeds the bytes to
// the pane's ScreenPipeline (libagtcore/screen/screen_pipeline.h, Seed), then
// tmux's %output bytes for the pane on top. docs/observe.md, "Byte screens".
#pragma once

#include <string>
#include <string_view>

#include "libagtcore/base/result.h"

namespace agt::agg {

/// What tmux says about a pane at the moment of a seed capture.
struct PaneSeed {
  int cursor_x = 0;
  int cursor_y = 0;
  int width = 0;
  int height = 0;
  bool alt_screen = false;
  int scroll_top = 0;
  int scroll_bottom = 0;
  std::string text;  // capture-pane -e -p: one line per row, SGR escapes kept
};

/// The command line for pane `pane_id` ("%7"); its reply is two blocks:
/// the display-message line, then the capture.
std::string SeedCommand(const std::string& pane_id);
/// Parses the two blocks of SeedCommand's reply. A header that is not seven
/// integers is E_PAYLOAD_INVALID naming it.
core::Result<PaneSeed> ParseSeed(std::string_view header, std::string_view capture);
/// The bytes that draw `seed` on a blank height x width terminal: the
/// alternate screen when tmux shows it, each captured row at its place, the
/// scroll region, the cursor.
std::string SeedBytes(const PaneSeed& seed);

}  // namespace agt::agg
