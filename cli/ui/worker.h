// The one thread of `agtmux ui` that may wait: daemon calls (actions,
// the preview's view-output, starting agtmuxd) run here in order, and each
// hands back a closure the UI thread runs when it polls fd(). The UI loop
// itself never waits on the daemon.
#pragma once

#include <functional>
#include <memory>

namespace agt::cli::ui {

class Worker {
 public:
  /// Runs off the UI thread; returns what to do on it with the result.
  using Job = std::function<std::function<void()>()>;

  Worker();
  /// Leaves a running job to finish on its own (it only touches the
  /// shared queue): quitting never waits for the daemon.
  ~Worker();
  /// Readable while finished jobs wait for Deliver.
  int fd() const;
  void Post(Job job);
  /// Runs the finished jobs' closures (on the calling, UI, thread).
  void Deliver();
  /// Jobs posted and not yet delivered.
  int pending() const;

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
  int posted_ = 0, delivered_ = 0;
};

}  // namespace agt::cli::ui
