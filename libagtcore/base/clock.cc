// The system clock behind the Clock interface.
#include "libagtcore/base/clock.h"

#include <ctime>

namespace agt::core {
namespace {

TimeNs Read(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<TimeNs>(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

}  // namespace

TimeNs SystemClock::Now() const { return Read(CLOCK_REALTIME); }
TimeNs SystemClock::Monotonic() const { return Read(CLOCK_MONOTONIC); }

SystemClock& SystemClock::Get() {
  static SystemClock clock;
  return clock;
}

}  // namespace agt::core
