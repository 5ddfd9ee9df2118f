// The store's built-in redactor, used until libagtcore's pattern-driven
// redactor (patterns/ data file) is wired in through StoreOptions::redact.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace agt::state {

/// Maps text to its redacted form. Must be pure and idempotent.
using Redactor = std::function<std::string(std::string_view)>;

/// Replaces API keys (sk-ant-..., sk-..., ghp_..., github_pat_..., xox?-...,
/// AKIA..., AIza...), bearer tokens, PEM private key blocks, and the values
/// of password/secret/token/api_key assignments (also inside identifiers such
/// as DB_PASSWORD) with "[REDACTED:<kind>]".
std::string FallbackRedact(std::string_view text);

}  // namespace agt::state
