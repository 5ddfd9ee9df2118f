// Identifiers and hashes: ULIDs for event and action ids, SHA-256 through
// libcrypto, and the runtime_id and dedupe_key derivations of docs/spec.md §5.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "libagtcore/vocabulary.h"

namespace agt::core {

/// A new ULID (26 Crockford base32 chars), time-ordered by `now`, with
/// 80 random bits from the OS. Monotonic within one process.
std::string NewUlid(TimeNs now);

/// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

/// runtime_id = sha256(target_id, boot_id, pane_id, pane_epoch, agent_type,
/// started_at_ns), fields joined with a 0x1f separator so no two field lists
/// collide. 64 hex chars, valid in the `runtime:` ref grammar.
std::string DeriveRuntimeId(std::string_view target_id, std::string_view boot_id,
                            std::string_view pane_id, int64_t pane_epoch,
                            std::string_view agent_type, TimeNs started_at_ns);

/// dedupe_key = sha256(source ":" source_event_id ":" payload_hash ":" event_type).
std::string DeriveDedupeKey(Source source, std::string_view source_event_id,
                            std::string_view payload_hash,
                            std::string_view event_type);

}  // namespace agt::core
