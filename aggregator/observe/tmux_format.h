// The `list-panes -a -F` format the collectors read the whole topology with,
// and its parser. One command returns every pane of a server; the parser is a
// pure function of the text, so hostile names are unit-tested without tmux.
//
// Framing: each pane is one record `⟨R⟩f1⟨F⟩f2⟨F⟩...⟨E⟩` where the markers
// are printable tokens built on kTokenStem ("~7aGt"). Every free-text field
// (names, title, path, command, tty) is emitted through tmux's `s` modifier
// as `#{s/~7aGt|\n/_/:field}`, so no field can ever contain the stem or a
// newline: a session named after the token, or a directory with a newline in
// its name, cannot shift the fields. The cost is lossy display of such
// names (the stem and newlines read as `_`); tabs and spaces are unchanged
// (tmux itself shows tabs in session/window names as `\t`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aggregator/observe/collector.h"
#include "libagtcore/base/result.h"

namespace agt::agg {

inline constexpr std::string_view kTokenStem = "~7aGt";

/// One pane as list-panes reported it, with the server fields the collectors
/// need beside PaneInfo.
struct PaneRecord {
  PaneInfo info;                // target_id, agent fields left empty
  int64_t server_pid = 0;       // #{pid}
  int64_t window_activity = 0;  // seconds since the epoch
  int cursor_x = 0;
  int cursor_y = 0;
  bool alternate_on = false;
  bool operator==(const PaneRecord&) const = default;
};

/// The -F argument (contains a real newline inside the `s` regex; when sent
/// through the control client it must be quoted with TmuxQuote).
const std::string& ListPanesFormat();

/// Parses list-panes output made with ListPanesFormat(). Text outside
/// records is ignored; a malformed record is E_PAYLOAD_INVALID naming the
/// record number and the field.
core::Result<std::vector<PaneRecord>> ParseListPanes(std::string_view text);

/// Quotes one argument for tmux's own command parser (control-mode command
/// lines): double quotes, with `\`, `"`, `$`, `~` escaped and control bytes
/// written as `\n`, `\t` or octal. Never for a shell (see ShellQuote).
std::string TmuxQuote(std::string_view arg);

}  // namespace agt::agg
