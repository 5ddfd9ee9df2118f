// Time as an injected dependency. Nothing under state/ reads the system
// clock; everything else takes a Clock& so tests can drive time.
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

/// A clock tests move by hand. Both readings advance together.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimeNs start = 1'700'000'000 * kNsPerSec) : now_(start) {}
  TimeNs Now() const override { return now_; }
  TimeNs Monotonic() const override { return now_; }
  void Set(TimeNs t) { now_ = t; }
  void Advance(TimeNs d) { now_ += d; }

 private:
  TimeNs now_;
};

}  // namespace agt::core
