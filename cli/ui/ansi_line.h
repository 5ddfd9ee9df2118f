// The preview's colours: a line of `capture-pane -e` output (text with SGR
// escape sequences) as styled segments, so the ui shows the pane's screen
// in its colours (cli/ui/terminal.cc maps them to ncurses colour pairs).
// Pure, for unit tests. Only SGR (ESC [ ... m) is read; every other escape
// sequence is dropped, a tab is four spaces, other control bytes a space.
#pragma once

#include <string_view>

#include "cli/ui/frame.h"

namespace agt::cli::ui {

/// Segments of `text` with their colours and attributes; an SGR reset (or
/// the end of the line) returns to the terminal's defaults.
FrameLine AnsiLine(std::string_view text);

}  // namespace agt::cli::ui
