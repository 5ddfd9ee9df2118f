// The records the state engine keeps and the store persists. The engine
// (state/engine.h) produces them; the store (state/store.h) writes exactly
// what the engine reports as changed, in one transaction per applied event,
// so the database never holds a state the engine did not decide.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libagtcore/event.h"
#include "libagtcore/vocabulary.h"

namespace agt::state {

using core::Confidence;
using core::Event;
using core::Signal;
using core::Source;
using core::State;
using core::TimeNs;

/// One agent run in one pane (docs/spec.md §5). At most one active (ended_at == 0)
/// per (target_id, pane_id).
struct Runtime {
  std::string runtime_id;
  std::string target_id;
  std::string pane_id;
  std::string boot_id;        // tmux_server_boot_id
  int64_t pane_epoch = 0;
  std::string agent_type;
  std::optional<int64_t> pid;
  TimeNs started_at = 0;
  TimeNs ended_at = 0;        // 0 = active
  Source owner = Source::kPoller;  // who announced it: wrapper or collector (poller)
  std::string agent_version;  // the agent CLI's version when its announcer knew it, else ""
  bool operator==(const Runtime&) const = default;
};

/// The ordering key of docs/spec.md §5: source_seq when both sides have one, else
/// effective_event_time, then ingested_at, then event_id.
struct OrderKey {
  std::optional<int64_t> source_seq;
  TimeNs effective_time = 0;
  TimeNs ingested_at = 0;
  std::string event_id;
  bool operator==(const OrderKey&) const = default;
};

/// runtime_source_cursors: the newest applied key per (runtime, source).
struct Cursor {
  std::string runtime_id;
  Source source = Source::kPoller;
  OrderKey last;
  bool operator==(const Cursor&) const = default;
};

/// One source's latest opinion of a runtime's state.
struct Candidate {
  Source source = Source::kPoller;
  Signal signal;
  std::string event_id;      // the event that set it
  OrderKey key;
  TimeNs seen_at = 0;        // ingested_at of that event
  bool stale = false;        // a stale_detected event marked it
  bool operator==(const Candidate&) const = default;
};

/// The resolved state of a pane (the `states` table), with its evidence.
struct PaneState {
  std::string target_id;
  std::string pane_id;
  std::string runtime_id;    // empty when no active runtime
  Signal signal;             // state, reason_code, confidence, rule_id, evidence, detail
  Source source = Source::kPoller;  // the winning source (SOURCE column)
  bool has_source = false;   // false when no candidate decided (e.g. unknown/no_agent)
  int64_t state_version = 0; // changes whenever the resolution inputs change
  std::optional<int64_t> last_source_seq;
  TimeNs last_seen_at = 0;   // newest ingested_at of any event for the runtime
  TimeNs updated_at = 0;     // when `signal.state` last changed
  bool operator==(const PaneState&) const = default;
};

enum class InboxStatus : uint8_t { kPendingBind, kBound, kDroppedUnbound };

/// event_inbox: an event that arrived without runtime_id.
struct InboxEntry {
  Event event;               // runtime_id filled in once bound
  InboxStatus status = InboxStatus::kPendingBind;
  std::string reason_code;   // bind_no_candidate | bind_ambiguous | bind_ttl_expired
  bool operator==(const InboxEntry&) const = default;
};

using core::TargetHealth;  // libagtcore/state.h

/// What applying one event did. kApplied and kStored events are written to
/// `events`; the rest are not (a duplicate or invalid event changes nothing).
enum class Disposition : uint8_t {
  kApplied,        // stored, and fed to the resolution
  kStored,         // stored but did not change candidates (older than the cursor, or for an ended runtime)
  kPending,        // parked in the inbox (pending_bind)
  kDuplicate,      // (runtime_id, source, dedupe_key) seen before: nothing written
  kRejected,       // invalid or for an unknown runtime: nothing written (see error)
  kIgnored,        // nothing to do (a repeated runtime_observed): nothing written
  kDropped,        // no runtime can take it (bind_ambiguous): only its inbox row is written
};

/// Everything one Apply changed; the store persists exactly this.
struct Effects {
  Disposition disposition = Disposition::kRejected;
  std::string error_code;                 // "E_RUNTIME_STALE", ... when rejected/stored-only
  std::string error_message;              // names the field or rule, when rejected
  std::optional<Event> stored_event;      // row for `events` (runtime bound)
  std::vector<InboxEntry> inbox;          // inbox rows inserted or changed
  std::vector<Runtime> runtimes;          // runtime rows inserted or changed (ended)
  std::vector<Cursor> cursors;            // cursor rows changed
  std::vector<PaneState> states;          // pane state rows changed
  std::vector<std::pair<std::string, TargetHealth>> target_health;  // target_id -> health
  /// Candidate rows inserted or changed: (candidate, runtime_id), the same
  /// shape as EngineSnapshot::candidates, so the store can restore the
  /// resolution inputs exactly (added by the store).
  std::vector<std::pair<Candidate, std::string>> candidates;
  /// Events that waited in the inbox and were bound and applied during this
  /// call (their runtime_id filled in): rows for `events`, like stored_event.
  std::vector<Event> bound_events;
};

}  // namespace agt::state
