// The strict JSON codec of event envelope v1 (see event.h for the shape).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/event.h"
#include "libagtcore/base/result.h"

namespace agt::core {

/// Serialises one event as a compact JSON object.
std::string EncodeEvent(const Event& e);

/// Parses one JSON object. Rejects, with E_PAYLOAD_INVALID naming the field:
/// a missing or empty `dedupe_key`, `event_id`, `event_type`; an unknown
/// `source`; a `source_seq` that is not an int64; any known field of the
/// wrong type; a bad time; neither `runtime_id` nor `target_id`+`pane_id`.
/// Unknown fields are ignored. `ingested_at` is optional on input.
Result<Event> DecodeEvent(std::string_view json);

/// A batch: a JSON array of events, or {"events": [...]}. Fails on the first
/// bad element, naming its index.
Result<std::vector<Event>> DecodeEventBatch(std::string_view json);

/// What POST /v1/events takes, parsed once: a batch (as DecodeEventBatch),
/// or else one event (as DecodeEvent). `dropped`, when given, receives the
/// batch object's "dropped" count (events its producer could neither
/// deliver nor spool; docs/api.md), 0 when absent or not a positive integer.
Result<std::vector<Event>> DecodeEvents(std::string_view json, int64_t* dropped = nullptr);

}  // namespace agt::core
