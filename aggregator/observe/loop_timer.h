// LoopTimer: the owning wrapper for a libuv timer on the daemon's loop. The
// handle lives on the heap and is freed in its close callback, so the owner
// may go at any time.
//
// It never arms a timer for 0 ms. With libuv 1.44 (Debian 12), a timer
// started with timeout 0 from inside a timer callback is due again within
// the same pass over the timer heap (the loop's clock is not advanced
// there), so a callback that keeps re-arming itself for a deadline already
// past runs forever: no I/O is polled and no signal is delivered, and only
// SIGKILL ends the process (issue 14: the 100 % CPU spin that SIGTERM could
// not stop). libuv 1.48 fixed it upstream; here every delay is at least 1 ms.
#pragma once

#include <uv.h>

#include <functional>

#include "libagtcore/vocabulary.h"

namespace agt::agg {

class LoopTimer {
 public:
  explicit LoopTimer(uv_loop_t* loop);
  ~LoopTimer();
  LoopTimer(const LoopTimer&) = delete;
  LoopTimer& operator=(const LoopTimer&) = delete;

  /// Calls `fn` once after `delay` (rounded up to whole milliseconds, at
  /// least 1 ms), replacing any earlier start.
  void Once(core::TimeNs delay, std::function<void()> fn);
  /// Calls `fn` every `interval` (at least 1 ms), the first time after one interval.
  void Every(core::TimeNs interval, std::function<void()> fn);
  void Stop();
  bool active() const;

 private:
  struct Handle;
  static void Fire(uv_timer_t* t);
  Handle* h_;
};

/// `ns` in whole milliseconds for libuv, rounded up, at least 1.
uint64_t TimerMs(core::TimeNs ns);

}  // namespace agt::agg
