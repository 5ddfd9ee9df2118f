// The observe room's timers (see loop_timer.h for why no delay is 0).
#include "aggregator/observe/loop_timer.h"

namespace agt::agg {

struct LoopTimer::Handle {
  uv_timer_t timer;
  std::function<void()> fn;
};

uint64_t TimerMs(core::TimeNs ns) {
  if (ns <= core::kNsPerMs) return 1;
  return uint64_t((ns + core::kNsPerMs - 1) / core::kNsPerMs);
}

LoopTimer::LoopTimer(uv_loop_t* loop) : h_(new Handle) {
  uv_timer_init(loop, &h_->timer);
  h_->timer.data = h_;
}

LoopTimer::~LoopTimer() {
  uv_timer_stop(&h_->timer);
  h_->fn = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(&h_->timer),
           [](uv_handle_t* t) { delete static_cast<Handle*>(t->data); });
}

void LoopTimer::Fire(uv_timer_t* t) {
  auto* h = static_cast<Handle*>(t->data);
  // A copy: the callback may start this timer again with another function.
  std::function<void()> fn = h->fn;
  if (fn) fn();
}

void LoopTimer::Once(core::TimeNs delay, std::function<void()> fn) {
  h_->fn = std::move(fn);
  uv_timer_start(&h_->timer, &Fire, TimerMs(delay), 0);
}

void LoopTimer::Every(core::TimeNs interval, std::function<void()> fn) {
  h_->fn = std::move(fn);
  const uint64_t ms = TimerMs(interval);
  uv_timer_start(&h_->timer, &Fire, ms, ms);
}

void LoopTimer::Stop() { uv_timer_stop(&h_->timer); }

bool LoopTimer::active() const { return uv_is_active(reinterpret_cast<const uv_handle_t*>(&h_->timer)) != 0; }

}  // namespace agt::agg
