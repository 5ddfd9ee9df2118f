// Field-by-field copies of the records the engine writes on every event (the
// stored event, the candidate, the pane's row), into a record that already
// holds strings: most of their strings are empty (no raw_payload, no
// action_id, no waiting detail, ...), and the copy an assignment operator
// makes calls out of line for every one of them. Here an empty string costs
// an inline clear, and a string of the length the record's string already
// has (ids, keys) a copy of its bytes. Builds with assertions check each copy against the
// assignment it replaces (operator== covers every field), so a field added
// to one of these records and not copied here fails the tests.
#pragma once

#include <cassert>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "state/model.h"

namespace agt::state {

inline void CopyField(std::string& dst, const std::string& src) {
  const size_t n = src.size();
  if (n == dst.size()) {
    // The usual case in a reused record (ids and keys of fixed length, the
    // same rule and evidence): the bytes are overwritten in place.
    if (n != 0) std::memcpy(dst.data(), src.data(), n);
  } else if (n == 0) {
    dst.clear();
  } else {
    dst = src;
  }
}

inline void CopyField(std::vector<std::string>& dst, const std::vector<std::string>& src) {
  if (src.empty()) {
    dst.clear();
  } else {
    dst = src;
  }
}

inline void CopyField(Signal& dst, const Signal& src) {
  dst.state = src.state;
  CopyField(dst.reason_code, src.reason_code);
  dst.confidence = src.confidence;
  CopyField(dst.rule_id, src.rule_id);
  CopyField(dst.evidence, src.evidence);
  CopyField(dst.detail.approval_type, src.detail.approval_type);
  CopyField(dst.detail.details, src.detail.details);
  CopyField(dst.detail.choices, src.detail.choices);
  dst.detail.multi_select = src.detail.multi_select;
  dst.detail.cursor_position = src.detail.cursor_position;
  assert(dst == src);
}

/// An optional field: reset, copied into the value it holds, or set.
template <typename T>
void CopyField(std::optional<T>& dst, const std::optional<T>& src) {
  if (!src) {
    dst.reset();
  } else if (dst) {
    CopyField(*dst, *src);
  } else {
    dst = src;
  }
}

inline void CopyEvent(Event& dst, const Event& src) {
  CopyField(dst.event_id, src.event_id);
  CopyField(dst.event_type, src.event_type);
  dst.source = src.source;
  CopyField(dst.dedupe_key, src.dedupe_key);
  CopyField(dst.source_event_id, src.source_event_id);
  dst.source_seq = src.source_seq;
  dst.event_time = src.event_time;
  dst.ingested_at = src.ingested_at;
  CopyField(dst.runtime_id, src.runtime_id);
  CopyField(dst.target_id, src.target_id);
  CopyField(dst.pane_id, src.pane_id);
  dst.pid = src.pid;
  dst.start_hint = src.start_hint;
  CopyField(dst.action_id, src.action_id);
  CopyField(dst.signal, src.signal);
  if (src.runtime || dst.runtime) dst.runtime = src.runtime;  // only on lifecycle events
  dst.exit = src.exit;
  CopyField(dst.health, src.health);
  CopyField(dst.raw_payload, src.raw_payload);
  assert(dst == src);
}

inline void CopyOrderKey(OrderKey& dst, const OrderKey& src) {
  dst.source_seq = src.source_seq;
  dst.effective_time = src.effective_time;
  dst.ingested_at = src.ingested_at;
  CopyField(dst.event_id, src.event_id);
  assert(dst == src);
}

inline void CopyCandidate(Candidate& dst, const Candidate& src) {
  dst.source = src.source;
  CopyField(dst.signal, src.signal);
  CopyField(dst.event_id, src.event_id);
  CopyOrderKey(dst.key, src.key);
  dst.seen_at = src.seen_at;
  dst.stale = src.stale;
  assert(dst == src);
}

inline void CopyPaneState(PaneState& dst, const PaneState& src) {
  CopyField(dst.target_id, src.target_id);
  CopyField(dst.pane_id, src.pane_id);
  CopyField(dst.runtime_id, src.runtime_id);
  CopyField(dst.signal, src.signal);
  dst.source = src.source;
  dst.has_source = src.has_source;
  dst.state_version = src.state_version;
  dst.last_source_seq = src.last_source_seq;
  dst.last_seen_at = src.last_seen_at;
  dst.updated_at = src.updated_at;
  assert(dst == src);
}

}  // namespace agt::state
