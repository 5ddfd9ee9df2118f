// The unit of time in agtmux: nanoseconds in an int64_t, for wall-clock
// instants and for durations alike, so that time passes through the engine
// and the tests as plain data (the engine takes `now`; a Clock gives it).
#pragma once

#include <cstdint>

namespace agt::core {

/// Nanoseconds since the Unix epoch (wall clock) unless a name says otherwise.
using TimeNs = int64_t;
constexpr TimeNs kNsPerMs = 1'000'000;
constexpr TimeNs kNsPerSec = 1'000'000'000;

}  // namespace agt::core
