// Turning what an agent's hook (or Codex's notify program) hands us into an
// event envelope. Pure: the caller supplies the payload text, the
// environment facts and the time, so every mapping is unit-tested on real
// payloads without running an agent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "libagtcore/event.h"
#include "libagtcore/base/result.h"

namespace agt::cli {

/// Which hook protocol a payload speaks.
enum class HookKind { kClaude, kGemini, kCodexNotify };

/// Parses "claude", "gemini", "codex-notify".
std::optional<HookKind> ParseHookKind(std::string_view name);

/// What the hook process knows about where it runs.
struct HookContext {
  std::string runtime_id;       // $AGTMUX_RUNTIME_ID (set by `agtmux wrap`), may be empty
  std::string tmux_pane;        // $TMUX_PANE, may be empty
  std::string target_id = "host";
  /// The tmux server the pane belongs to (from $TMUX), may be empty: the
  /// daemon maps it to the target observing that server.
  std::string tmux_socket;
  core::TimeNs now = 0;         // wall clock, for event_time and the event id only
  /// Size of the transcript file named by the payload, when it could be
  /// read: it grows every turn, so it tells two otherwise identical payloads
  /// (two `Stop`s of one session) apart without using the clock.
  std::optional<int64_t> transcript_size;
};

/// The event a payload means, or an error naming what is wrong with it.
/// An event the state model does not use (e.g. Claude's `auth_success`
/// notification) still becomes an event, with no signal.
/// E_PAYLOAD_INVALID for malformed JSON or missing identity fields;
/// E_UNBOUND when the context has neither a runtime id nor a pane. The
/// event's raw_payload is the whole payload, unredacted: the caller passes
/// the event through core::RedactEvent before it goes anywhere.
core::Result<core::Event> NormalizeHook(HookKind kind, std::string_view payload,
                                        const HookContext& ctx);

/// The transcript path a Claude or Gemini payload names, if any (so the
/// caller can stat it before NormalizeHook).
std::string TranscriptPath(std::string_view payload);

}  // namespace agt::cli
