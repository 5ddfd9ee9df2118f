// What `agtmux ui` shows, as data: BuildFrame lays the model out on a
// terminal of a given size (title, the grouped list, the preview of the
// selected pane, the status line and the keys) as lines of styled text,
// none wider than the terminal. The terminal side (cli/ui/terminal.cc) only
// paints these lines, so the layout has unit tests without a terminal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/ui/model.h"
#include "libagtcore/vocabulary.h"

namespace agt::cli::ui {

enum class Style { kPlain, kTitle, kHeader, kSelected, kDim, kError, kRed, kYellow, kGreen, kCyan, kPrompt };

/// Segment::attrs bits (the preview's own attributes, cli/ui/ansi_line.h).
enum : uint8_t { kAttrBold = 1, kAttrDim = 2, kAttrItalic = 4, kAttrUnderline = 8, kAttrReverse = 16 };

struct Segment {
  std::string text;
  Style style = Style::kPlain;
  // Colours of a previewed pane (0-255, -1 = the terminal's default) and
  // its attributes; used only with Style::kPlain.
  int16_t fg = -1, bg = -1;
  uint8_t attrs = 0;
  bool operator==(const Segment& o) const {
    return text == o.text && style == o.style && fg == o.fg && bg == o.bg && attrs == o.attrs;
  }
};

struct FrameLine {
  std::vector<Segment> segments;
  bool operator==(const FrameLine& o) const { return segments == o.segments; }
  bool operator!=(const FrameLine& o) const { return !(*this == o); }
};

/// `rows` lines (fewer only when rows < 1), each at most `cols` columns.
/// Moves model->scroll so the selection is in view.
std::vector<FrameLine> BuildFrame(Model* model, int cols, int rows, core::TimeNs now);

/// The columns `line` takes (display width of its text).
int LineWidth(const FrameLine& line);
/// The line's text without styles.
std::string LineText(const FrameLine& line);

/// The help page's lines (the keys and filters; also in docs/ui.md).
const std::vector<std::string>& HelpLines();

}  // namespace agt::cli::ui
