// Menus recognised by their structure, not by one regex: consecutive
// numbered options starting at 1, a cursor glyph on exactly one of them,
// and the dialog's footer below. A numbered list in an agent's prose has no
// cursor and no footer, so it is not a menu.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/detect/regex.h"

namespace agt::detect {

/// How one agent draws its menus (the [menu] table of a pattern file).
struct MenuStyle {
  std::vector<std::string> cursor_glyphs = {"❯", "›", "●", ">"};
  std::shared_ptr<const Regex> footer;  // a row below the options; null = not required
  int footer_within = 8;                // rows after the last option to look for it
  int max_gap = 4;                      // non-option rows allowed between options
  std::shared_ptr<const Regex> hint;    // strips shortcut hints from labels
  std::shared_ptr<const Regex>
      question;  // picks the question row; null = nearest row above
  /// A menu needs a question row (one matching `question` within 8 rows
  /// above option 1): the generic set's dialogs are a question + options +
  /// a hint, wherever they sit.
  bool question_required = false;
  /// An option row at least this many code points shorter than the screen
  /// width may have wrapped: an indented row under it continues its label.
  int wrap_margin = 30;
  /// Labels end at the first run of two spaces (a description column follows).
  bool column_gap = false;
  /// A scrolling list shows this marker above its options (Gemini: "▲");
  /// then the visible options may start after 1.
  std::string scroll_marker;
  /// The cursor may sit on a row below the options that is not one of them
  /// (Gemini's multi-select "Done"). Such a menu is still recognised, with
  /// cursor_position 0, when no option carries the cursor.
  bool cursor_off_list = false;
  /// Options may also come without numbers (Claude Code 2.1.330's "❯ No" /
  /// "  Yes"): when no numbered menu is found, the last row that starts with a
  /// cursor glyph and the rows next to it whose text starts in the same column
  /// as its label (no blank row between them) are the options, in order.
  bool unnumbered = false;
  /// The row above a dialog that is no longer part of it (a rule above
  /// Claude's dialogs, a transcript entry above Codex's): the `dialog` region
  /// runs from below the nearest such row above the last menu to the bottom.
  /// Null: the dialog reaches the top of the screen.
  std::shared_ptr<const Regex> dialog_top;
  /// The agent's input row (Codex "› ", Claude "❯ "): the bottom-most row
  /// matching it splits the screen into the `transcript` above and the
  /// `input` area from it down, so a rule judges a transcript entry by
  /// where it sits relative to the prompt, not by a fixed count of footer
  /// rows (which a release that adds a footer row breaks). A menu with a
  /// prompt row below it is no live dialog (an answered one in scrollback).
  /// Null: neither region exists.
  std::shared_ptr<const Regex> prompt;
};

struct Menu {
  std::vector<std::string> choices;  // labels, without numbers, boxes or hints
  int cursor_position = 0;           // 1-based, the number shown on the cursor row;
                                     // 0: on a row that is no option (cursor_off_list)
  int first_number = 1;              // > 1 when a scrolled list hides its top
  bool scrolled = false;             // the style's scroll marker sits above the options
  bool numbered = true;              // false: options without numbers (unnumbered)
  bool multi_select = false;
  std::string question;  // the row above option 1 (trimmed)
  int first_row = 0;     // index into the lines given
  int last_row = 0;
  int footer_row = -1;
};

/// The last menu in `lines` (top to bottom), or nullopt: a numbered one, else
/// (with style.unnumbered) one without numbers. When `why` is given it
/// receives the reason a menu was rejected (for `patterns explain`).
/// `width` is the screen width in cells (0 = unknown: labels are never joined).
std::optional<Menu> FindMenu(const std::vector<std::string_view>& lines,
                             const MenuStyle& style, std::string* why = nullptr,
                             int width = 0);

/// The default hint stripper: " (esc)", " (y)", " (shift+tab)", ...
std::shared_ptr<const Regex> DefaultHintRegex();

/// Trims spaces and the box borders (│ ┃ |) at both ends of a row.
std::string_view TrimBox(std::string_view line);

}  // namespace agt::detect
