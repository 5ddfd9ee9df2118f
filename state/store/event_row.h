// Internal to the store: how an Event maps onto the columns shared by
// `events` and `event_inbox`.
#pragma once

#include "libagtcore/event.h"
#include "libagtcore/base/result.h"
#include "state/store/sqlite.h"

namespace agt::state::internal {

/// The envelope columns, in the order ReadEventColumns expects.
inline constexpr const char* kEventColumns =
    "event_id, runtime_id, event_type, source, source_event_id, source_seq, event_time, "
    "ingested_at, dedupe_key, action_id, raw_payload, target_id, pane_id, pid, start_hint, "
    "signal_json, runtime_json, exit_json, health";
inline constexpr int kEventColumnCount = 19;

/// Binds the envelope to parameters ?1..?19 in kEventColumns order. Text
/// that may hold secrets (raw_payload, signal) must already be redacted.
/// The event's strings are bound without copying: `e` must outlive the
/// statement's execution.
void BindEventColumns(sql::Stmt& st, const core::Event& e);

/// Reads kEventColumns starting at column `first`.
core::Result<core::Event> ReadEventColumns(const sql::Stmt& st, int first = 0);

}  // namespace agt::state::internal
