// Where the slow part of an action runs (docs/architecture.md, Actions off
// the loop): its tmux commands and the waits between them happen on a
// worker thread, never on the daemon's event loop; everything that reads
// the daemon's state or writes the store happens back on the loop thread.
// The daemon uses a small pool of worker threads (MakeWorkerRunner); unit
// tests run the work at once on the caller's thread (MakeInlineRunner).
#pragma once

#include <uv.h>

#include <functional>
#include <memory>

namespace agt::agg {

class ActionRunner {
 public:
  virtual ~ActionRunner() = default;
  /// Runs `work` off the loop, then `done` on the loop thread. Work that
  /// was submitted runs in submission order as workers free up; at most
  /// the runner's bound runs at once.
  virtual void Submit(std::function<void()> work, std::function<void()> done) = 0;
  /// Called from inside a `work`: runs `fn` on the loop thread, after
  /// everything posted before it and before that work's `done`.
  virtual void ToLoop(std::function<void()> fn) = 0;
  /// The loop is going away: nothing more is run on it (work still running
  /// finishes on its worker and its results are dropped).
  virtual void Detach() = 0;
};

/// Everything at once on the caller's thread (unit tests, fakes).
std::unique_ptr<ActionRunner> MakeInlineRunner();

/// Up to `workers` threads, started as work arrives; results reach `loop`
/// through a uv_async_t. Call from the loop thread only, and Detach before
/// the loop is closed. Worker threads are never joined: one may be waiting
/// on a tmux command (up to its 5 s timeout) when the daemon exits, and
/// the daemon must not wait for it; they touch only the runner's shared
/// state and what their work captured.
std::unique_ptr<ActionRunner> MakeWorkerRunner(uv_loop_t* loop, int workers);

}  // namespace agt::agg
