// RFC 3339 timestamps, the wire form of every time agtmux exchanges, and
// durations as users type them ("30s", "2m", "1h30m", "500ms").
#pragma once

#include <string>
#include <string_view>

#include "libagtcore/base/result.h"
#include "libagtcore/base/time_ns.h"

namespace agt::core {

/// "2026-11-22T03:25:18.123456789Z" (UTC; the fraction is trimmed of
/// trailing zeros, and omitted when zero).
std::string FormatRfc3339(TimeNs t);

/// Accepts RFC 3339 with any fraction (up to 9 digits) and a `Z` or
/// `+hh:mm` offset. E_PAYLOAD_INVALID otherwise.
Result<TimeNs> ParseRfc3339(std::string_view s);

/// "500ms", "30s", "2m", "1h30m", "1.5s"; a bare number is seconds.
Result<TimeNs> ParseDuration(std::string_view s);
/// "12s", "3m04s", "2h05m": compact, for tables.
std::string FormatAge(TimeNs d);

}  // namespace agt::core
