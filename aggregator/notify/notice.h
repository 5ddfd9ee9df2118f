// What one notification says: the pane it is about (target, session,
// window, pane, agent, source), the state it entered, and what it waits on
// (the question and the choices). The channels render it their own way:
// a title and a message for people (desktop, tmux, webhook), environment
// variables for the user's command (docs/config.md, "[notify]").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "libagtcore/vocabulary.h"

namespace agt::agg {

struct Notice {
  std::string target, session, pane_id, runtime_id, agent;
  int window_index = 0, pane_index = 0;
  std::string window_name;
  core::State state = core::State::kUnknown;
  std::string source;  // PTY, HOOK or CAP
  core::WaitingDetail detail;
  std::string evidence;
  core::TimeNs entered_at = 0;  // wall clock: when the pane entered `state`

  /// The pane's identity across the daemon: target and pane id.
  std::string Key() const { return target + '\x1f' + pane_id; }
  /// "work:1.0", or the pane id when the session is not known.
  std::string Location() const;
  /// "claude needs approval in work:1.0".
  std::string Title() const;
  /// The question (or the evidence) and the choices, one line each, for
  /// people to read: "Bash(rm -rf build)\nYes / No".
  std::string Message() const;
  /// The command's environment: AGTMUX_PANE, AGTMUX_TARGET, AGTMUX_SESSION,
  /// AGTMUX_WINDOW, AGTMUX_STATE, AGTMUX_AGENT, AGTMUX_SOURCE,
  /// AGTMUX_RUNTIME, AGTMUX_APPROVAL_TYPE, AGTMUX_QUESTION, AGTMUX_CHOICES
  /// (newline-separated), AGTMUX_TITLE, AGTMUX_MESSAGE.
  std::vector<std::pair<std::string, std::string>> Environment() const;
  /// ntfy's Tags header: the state and the agent ("waiting_approval,claude").
  std::string Tags() const;
};

/// `text` with CR, LF and other control bytes replaced by spaces (an HTTP
/// header value), cut to `max` bytes at a UTF-8 boundary.
std::string OneLine(std::string_view text, size_t max);

/// An HTTP header value for ntfy: OneLine(text, max), sent as it is when
/// ASCII, else as an RFC 2047 encoded-word (`=?UTF-8?B?...?=`), which ntfy
/// decodes (HTTP headers have no character set of their own).
std::string HeaderValue(std::string_view text, size_t max);

/// `text` for tmux's display-message, which expands `#` formats: every `#`
/// doubled, newlines turned into " | ".
std::string TmuxLiteral(std::string_view text);

}  // namespace agt::agg
