// core::FakeClock: a Clock the unit tests move by hand.
#pragma once

#include "libagtcore/base/clock.h"

namespace agt::core {

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
