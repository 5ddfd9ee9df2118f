// Time as an injected dependency. Nothing under state/ reads the system
// clock; everything else takes a Clock& so tests can drive time
// (tests/base/fake_clock.h).
#pragma once

#include "libagtcore/base/time_ns.h"

namespace agt::core {

class Clock {
 public:
  virtual ~Clock() = default;
  /// Wall-clock time, ns since the Unix epoch.
  virtual TimeNs Now() const = 0;
  /// Monotonic time in ns, for durations and deadlines.
  virtual TimeNs Monotonic() const = 0;
};

/// The real clocks (CLOCK_REALTIME, CLOCK_MONOTONIC).
class SystemClock final : public Clock {
 public:
  TimeNs Now() const override;
  TimeNs Monotonic() const override;
  static SystemClock& Get();
};

}  // namespace agt::core
