// Rows the store keeps beside the engine's records (state/model.h): the
// collectors' topology (targets, panes), the actions issue's audit rows
// (actions, action_snapshots), adapters, and the joined view the API lists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "state/model.h"

namespace agt::state {

/// `targets`. Health is not here: it is the engine's (target_health_changed
/// events, persisted by Store::Commit), so topology upserts never undo it.
struct TargetRow {
  std::string target_id;
  std::string target_name;
  std::string kind = "local";          // local | ssh
  std::string connection_ref;          // non-secret only (ssh host alias)
  bool is_default = false;
  std::optional<TimeNs> last_seen_at;
  TimeNs updated_at = 0;
  bool operator==(const TargetRow&) const = default;
};

/// `panes`: a collector's view of a tmux pane.
struct PaneRow {
  std::string target_id;
  std::string pane_id;                 // "%7"
  std::string session_name;
  std::string window_id;               // "@3"
  std::string window_name;
  TimeNs updated_at = 0;
  bool operator==(const PaneRow&) const = default;
};

/// `actions` (docs/spec.md §13).
struct ActionRow {
  std::string action_id;
  std::string action_type;             // attach | send | view-output | kill
  std::string request_ref;             // idempotency key
  std::string target_id;
  std::string pane_id;
  std::string runtime_id;              // empty = NULL
  TimeNs requested_at = 0;
  std::optional<TimeNs> completed_at;
  std::string result_code;
  std::string error_code;              // empty = NULL
  std::string metadata_json = "{}";    // redacted before it is stored
  bool operator==(const ActionRow&) const = default;
};

/// `action_snapshots`: the precondition an action was issued against.
struct ActionSnapshotRow {
  std::string snapshot_id;
  std::string action_id;               // empty = NULL
  std::string target_id;
  std::string pane_id;
  std::string runtime_id;              // empty = NULL
  int64_t state_version = 0;
  TimeNs observed_at = 0;
  TimeNs expires_at = 0;
  std::string nonce;
  bool operator==(const ActionSnapshotRow&) const = default;
};

/// `action_events` (schema version 5): one audit event of an action
/// (requested, sent, completed, refused, ...), in order.
struct ActionEventRow {
  std::string event_id;
  std::string action_id;
  int64_t seq = 0;                     // 0, 1, ... within the action
  std::string event_type;
  TimeNs event_time = 0;
  std::string detail;                  // redacted before it is stored; cleared by retention
  bool operator==(const ActionEventRow&) const = default;
};

/// `adapters`.
struct AdapterRow {
  std::string adapter_name;
  std::string agent_type;
  std::string version;
  std::string capabilities = "{}";     // JSON
  bool enabled = true;
  TimeNs updated_at = 0;
  bool operator==(const AdapterRow&) const = default;
};

/// One listed pane: its state joined with topology and its runtime.
struct PaneStateView {
  PaneState state;
  std::optional<PaneRow> pane;         // absent when no collector wrote a row
  std::optional<Runtime> runtime;      // absent when no runtime_id
  std::string target_name;             // empty when no targets row
  TargetHealth health = TargetHealth::kOk;
};

}  // namespace agt::state
