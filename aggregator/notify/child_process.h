// Programs the notifier starts (the user's command, notify-send, tmux),
// run on the daemon's loop without ever waiting for them: uv_spawn, an exit
// callback that reaps, a timer that kills the child's whole process group
// when it runs too long, and stdout kept when asked for (tmux list-clients).
#pragma once

#include <uv.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "libagtcore/base/result.h"
#include "libagtcore/vocabulary.h"

namespace agt::agg {

struct ChildOptions {
  std::vector<std::string> argv;  // argv[0] looked up in PATH; no shell
  /// Added to (or replacing) the daemon's own environment.
  std::vector<std::pair<std::string, std::string>> env;
  core::TimeNs timeout = 10 * core::kNsPerSec;
  bool capture_stdout = false;
  size_t max_output = 64 * 1024;  // stdout bytes kept
};

struct ChildExit {
  int64_t exit_status = 0;  // the exit status; 128+signal when killed
  bool timed_out = false;   // killed after ChildOptions::timeout
  std::string out;          // stdout, when captured
};

/// The children started through it; destroying it kills those still
/// running (their callbacks are then never called).
class ChildSet {
 public:
  explicit ChildSet(uv_loop_t* loop) : loop_(loop) {}
  ~ChildSet();
  ChildSet(const ChildSet&) = delete;
  ChildSet& operator=(const ChildSet&) = delete;

  /// Starts a child in a new session (its own process group, no terminal).
  /// `done` runs on the loop once it has exited and its output is read.
  /// E_IO when it cannot start (no such program, for instance).
  core::Status Spawn(ChildOptions options, std::function<void(const ChildExit&)> done);
  size_t running() const { return children_.size(); }

 private:
  struct Child;
  void Finished(Child* c);
  uv_loop_t* loop_;
  std::vector<Child*> children_;
};

}  // namespace agt::agg
