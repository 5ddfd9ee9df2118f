// Regions: the part of a pane a pattern rule looks at. Matching only the
// bottom of the visible screen, or what follows the last horizontal rule,
// keeps a stale spinner line far up the screen from hiding a live prompt.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/detect/analyzer.h"
#include "libagtcore/base/result.h"

namespace agt::detect {

enum class RegionKind {
  kTitle,             // the last OSC 0/2 title
  kOscProgress,       // OSC 9;4 progress as "<state>" or "<state>;<value>"
  kNotification,      // the last OSC 9/777 notification body
  kProgramStatus,     // the last OSC 7501 program status ("state=...:app=...")
  kBottomLines,       // the last N rows, counted up from the last non-blank row
  kAfterLastRule,     // rows below the last horizontal rule
  kPromptBox,         // rows between the last two horizontal rules
  kAbovePromptBox,    // the N non-blank rows just above the prompt box
  kAboveBottomLines,  // every row above the last N rows (the transcript)
  kAboveLastRule,     // the N non-blank rows just above the last horizontal rule
  kWholeScreen,       // every visible row
  kRawStream,         // recent output bytes, escapes removed
  kDialog,            // the last dialog: from below [menu] dialog_top above the
                      // screen's last menu to the bottom (rule_eval.h cuts it)
  kTranscript,        // every row above the last [menu] prompt row
  kInput,             // the last [menu] prompt row and every row below it
};

struct Region {
  RegionKind kind = RegionKind::kWholeScreen;
  int lines = 0;  // N for bottom_lines(N), above_prompt_box(N), above_bottom_lines(N)
  bool operator==(const Region&) const = default;
};

/// Parses "title", "bottom_lines(8)", ...; the error names the accepted forms.
core::Result<Region> ParseRegion(std::string_view text);
/// The form ParseRegion reads.
std::string RegionName(const Region& r);

/// True for a horizontal rule: a row made of at least 8 box-drawing
/// horizontals (─ ━ ═ ╌ -), optionally closed by corner glyphs (╭╮╰╯├┤).
bool IsRuleLine(std::string_view line);

/// A region's text: its rows joined with '\n', and where each row starts.
struct RegionText {
  std::string text;
  std::vector<size_t> starts;  // byte offset of each row in `text`
  std::vector<int> rows;       // screen row of each row; -1 off-screen
  /// The whole row that contains byte `offset` of `text`.
  std::string_view LineAt(size_t offset) const;
  /// The screen row that contains byte `offset`, or -1.
  int RowAt(size_t offset) const;
};

/// Cuts regions out of one analyzer input; remembers the screen's layout
/// (last non-blank row, rule rows) so each rule costs only its match.
class RegionCutter {
 public:
  explicit RegionCutter(const AnalyzerInput& in);
  RegionText Cut(const Region& r) const;
  /// Screen rows of the region (empty for title, progress, stream, and for
  /// `dialog` until SetDialogRows).
  void Rows(const Region& r, int* first, int* last) const;
  /// Where the `dialog` region is on this screen (found by its menu, which
  /// needs the agent's menu style: rule_eval.h's ScreenView sets it).
  void SetDialogRows(int first, int last) {
    dialog_first_ = first;
    dialog_last_ = last;
  }
  /// The screen row of the agent's prompt (the set's [menu] prompt), -1 none.
  void SetPromptRow(int row) { prompt_row_ = row; }
  int last_nonblank() const { return last_nonblank_; }
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  const AnalyzerInput& in_;
  const std::vector<std::string>& lines_;
  int last_nonblank_ = -1;
  std::vector<int> rule_rows_;
  int dialog_first_ = 0;
  int dialog_last_ = -1;
  int prompt_row_ = -1;
};

}  // namespace agt::detect
