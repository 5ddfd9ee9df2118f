// The store's built-in redactor, used when StoreOptions::redact is empty:
// agtmuxd passes libagtcore's pattern-driven redactor (PatternRedactor
// below) and leaves it empty only when patterns/redaction.toml cannot be
// loaded, so a payload is never stored unredacted.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "libagtcore/redact.h"

namespace agt::state {

/// Maps text to its redacted form. Must be pure and idempotent.
using Redactor = std::function<std::string(std::string_view)>;

/// Replaces API keys (sk-ant-..., sk-..., ghp_..., github_pat_..., xox?-...,
/// AKIA..., AIza...), bearer tokens, PEM private key blocks, and the values
/// of password/secret/token/api_key assignments (also inside identifiers such
/// as DB_PASSWORD) with "[REDACTED:<kind>]".
std::string FallbackRedact(std::string_view text);

/// The pattern-driven redactor (patterns/redaction.toml) as the store's
/// Redactor; what agtmuxd passes in StoreOptions::redact.
inline Redactor PatternRedactor(std::shared_ptr<const core::Redactor> r) {
  return [r = std::move(r)](std::string_view text) { return r->Redact(text); };
}

}  // namespace agt::state
