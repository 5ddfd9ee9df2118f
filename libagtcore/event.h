// Event envelope v1 (docs/spec.md §5): the one shape every signal takes on its way
// into the state engine, whether it comes from a hook, Codex notify, the
// wrapper, the poller or the reconciler.
//
// Wire form (JSON, see libagtcore/event_codec.h):
//   {"event_id","event_type","source","dedupe_key","source_event_id"?,
//    "source_seq"?, "event_time", "ingested_at"?, "runtime_id"?,
//    "target_id"?, "pane_id"?, "pid"?, "start_hint"?, "action_id"?,
//    "signal"?: {"state","reason_code"?,"confidence","rule_id"?,"evidence"?,
//                "detail"?: {"approval_type","details","choices","multi_select",
//                            "cursor_position"}},
//    "runtime"?: {"agent_type","cwd","argv_hash","tmux_socket","boot_id",
//                 "agent_version"?, "started_at","pane_epoch"},
//    "exit"?: {"code","signal"},
//    "health"?: "ok|degraded|down",
//    "raw_payload"?: "<redacted text>"}
// Times on the wire are RFC 3339 UTC strings ("2026-11-22T03:25:18.123456789Z").
// Unknown fields are ignored; known fields with a wrong type are rejected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "libagtcore/vocabulary.h"

namespace agt::core {

/// Event types the engine understands. Others are stored but only their
/// `signal`, if any, is applied.
namespace event_type {
inline constexpr std::string_view kWrapperStarted = "wrapper_started";
inline constexpr std::string_view kWrapperExited = "wrapper_exited";
inline constexpr std::string_view kStateChanged = "state_changed";
inline constexpr std::string_view kRuntimeObserved = "runtime_observed";  // a collector saw an agent process in a pane
inline constexpr std::string_view kRuntimeEnded = "runtime_ended";        // a collector saw it go (pane gone, pid changed, agent exited)
inline constexpr std::string_view kStaleDetected = "stale_detected";
inline constexpr std::string_view kTargetHealthChanged = "target_health_changed";
inline constexpr std::string_view kDemotionDue = "demotion_due";
}  // namespace event_type

/// Facts about a runtime, carried by wrapper_started and runtime_observed.
struct RuntimeInfo {
  std::string agent_type;   // claude, codex, gemini, generic, ...
  std::string cwd;
  std::string argv_hash;    // sha256 hex of the NUL-joined argv
  std::string tmux_socket;  // the tmux server socket path, when in tmux
  std::string boot_id;      // tmux_server_boot_id, when known
  TimeNs started_at = 0;
  int64_t pane_epoch = -1;  // -1: let the engine assign it
  std::string agent_version;  // the agent CLI's version, "" when not found (libagtcore/agent_version.h)
  bool operator==(const RuntimeInfo&) const = default;
};

/// How a wrapped process ended (wrapper_exited, runtime_ended).
struct ExitInfo {
  int code = 0;     // exit status, or 128+signal
  int signal = 0;   // the signal that killed it, 0 if it exited
  bool operator==(const ExitInfo&) const = default;
};

struct Event {
  std::string event_id;                    // ULID, unique
  std::string event_type;
  Source source = Source::kPoller;
  std::string dedupe_key;                  // never empty
  std::optional<std::string> source_event_id;
  std::optional<int64_t> source_seq;
  TimeNs event_time = 0;                   // from the source
  TimeNs ingested_at = 0;                  // set by the daemon at ingest
  std::string runtime_id;                  // empty: pending bind by target+pane
  std::string target_id;
  std::string pane_id;                     // tmux pane id, "%7"
  std::optional<int64_t> pid;
  std::optional<TimeNs> start_hint;
  std::string action_id;                   // set when an action caused it
  std::optional<Signal> signal;            // the state this event asserts
  std::optional<RuntimeInfo> runtime;
  std::optional<ExitInfo> exit;
  std::string health;                      // target_health_changed: ok|degraded|down
  std::string raw_payload;                 // redacted form only
  bool operator==(const Event&) const = default;
};

}  // namespace agt::core
