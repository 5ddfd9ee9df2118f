// The tmux control-mode protocol (`tmux -C`), as a pure parser: bytes in,
// command replies and notifications out. The control client
// (tmux_control_client.h) owns the process and the pipes; this file only
// knows the protocol, so odd output is unit-tested without tmux.
//
// Protocol (tmux 3.3): every command the client writes gets one block
//   %begin <time> <number> <flags>
//   ...output lines...
//   %end|%error <time> <number> <flags>
// in the order the commands were written (flags bit 0 set: the command came
// from this client; blocks with flags 0, such as the one for the initial
// attach, are not replies). Outside blocks, lines starting with `%` are
// notifications: `%output %7 <octal-escaped bytes>`, `%window-add @3`,
// `%sessions-changed`, `%exit [reason]`, ...
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace agt::agg {

/// One reply block to a command this client sent.
struct ControlReply {
  bool ok = true;     // %end (true) or %error (false)
  std::string text;   // the lines between %begin and %end, joined by '\n'
  /// How many of the notifications taken with it arrived before it: tmux
  /// writes %output and replies in the order it read and ran them, and a
  /// byte-fed screen needs that order (docs/observe.md, "Byte screens").
  size_t notes_before = 0;
};

/// One notification line, split at the first space.
struct ControlNotification {
  std::string name;   // "output", "window-add", "exit", ...
  std::string args;   // the rest of the line (for %output: "%7 <data>")
  /// For %output, %extended-output, %pause and %continue: the pane id
  /// ("%7"); else empty.
  std::string pane_id;
};

class ControlParser {
 public:
  /// Feeds bytes; complete lines are parsed, a partial line is kept.
  void Feed(std::string_view bytes);
  /// Takes the replies and notifications parsed so far, in arrival order
  /// within each list; take both together (ControlReply::notes_before counts
  /// into the notifications taken with it).
  std::vector<ControlReply> TakeReplies();
  std::vector<ControlNotification> TakeNotifications();
  /// True between a %begin and its %end/%error.
  bool InBlock() const { return in_block_; }

 private:
  void Line(std::string_view line);

  std::string partial_;
  bool in_block_ = false;
  bool block_is_reply_ = false;
  std::string block_guard_;  // "<time> <number>" of the open block
  std::string block_text_;
  bool block_has_line_ = false;
  std::vector<ControlReply> replies_;
  std::vector<ControlNotification> notes_;
};

/// Decodes the octal escapes (`\134` for `\`, `\015` for CR) of %output data.
std::string UnescapeOutput(std::string_view data);

}  // namespace agt::agg
