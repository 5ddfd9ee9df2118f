// Human tables for the CLI: columns aligned by display width (utf8proc), so
// CJK and emoji session names line up; colour (ANSI) only when stdout is a
// terminal and NO_COLOR is unset. Every cell goes through core::VisibleText
// (agent text is untrusted: no escape sequence reaches the terminal).
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/vocabulary.h"

namespace agt::cli {

/// Terminal columns `s` takes: wide (CJK, emoji) glyphs count 2, combining
/// marks 0; invalid UTF-8 bytes count 1 each.
int DisplayWidth(std::string_view s);
/// `s` cut to at most `width` columns, with "…" when cut.
std::string TruncateToWidth(std::string_view s, int width);

/// The daemon's name for this machine's own target (the target every
/// local tmux pane is on): the tables leave it out.
inline constexpr std::string_view kHostTarget = "host";

/// True when stdout is a terminal and NO_COLOR is not set.
bool ColorEnabled();

/// The width tables must fit: $COLUMNS when set, else the terminal's width
/// when stdout is a terminal, else 0 (no limit: a pipe gets whole lines).
int TerminalWidth();

class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  /// `colors`: an ANSI SGR code per cell ("" for none), e.g. "33" yellow.
  void AddRow(std::vector<std::string> cells, std::vector<std::string> colors = {});
  /// Caps a column's width (longer cells are truncated); 0 = no cap.
  void SetMaxWidth(size_t column, int width);
  /// Lets Render narrow a column down to `min` cells (cut with "…") when
  /// the table is wider than its width limit.
  void SetShrinkable(size_t column, int min);
  /// Renders; the last column is not padded. With `width` > 0, shrinkable
  /// columns are narrowed (the widest above its minimum first) until every
  /// line fits in `width` cells, if they can.
  std::string Render(bool color, int width = 0) const;
  size_t rows() const { return rows_.size(); }

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::vector<std::string>> colors_;
  std::vector<int> max_;
  std::vector<int> min_;  // -1: not shrinkable
};

/// The SGR colour for a state name ("" when none).
std::string StateColor(std::string_view state);

/// The cells a pane item shows in every human view (`list panes`, `watch`,
/// `agtmux ui`): one copy of how an API pane item reads to a person.
struct PaneCells {
  std::string target, session, window, pane, agent, state, source, age, detail;
  /// session:window.pane, as tmux users type it (a ref the actions accept).
  std::string tmux_pane;
  /// The `verified: false` note for under a table ("" when verified).
  std::string unverified_note;
};
/// `item`'s cells, its age measured to `now`. WINDOW is "index:name" when
/// the window has a name; AGENT carries "!" for an unverified version;
/// DETAIL is what the pane waits on (the command or question), else the
/// reason of an unknown state, else the pane's title.
PaneCells PaneCellsOf(const rapidjson::Value& item, core::TimeNs now);

/// The human table of API items of `scope` (panes|windows|sessions), the
/// shape /v1/panes and the watch stream carry. Ages are measured to `now`;
/// lines fit in `width` cells when `width` > 0 (TerminalWidth()).
std::string RenderItemsTable(std::string_view scope, const rapidjson::Value& items, core::TimeNs now,
                             bool color, bool agent_summary, int width);
/// The `verified` line `agtmux explain` prints from a /v1/explain answer
/// ("" when the answer has no `verified`). Defined in cmd_explain.cc.
std::string VerifiedLine(const rapidjson::Value& explain);
/// "3 agent panes: 1 waiting_approval, 2 running" from a `summary` object.
std::string SummaryLine(const rapidjson::Value& summary);

}  // namespace agt::cli
