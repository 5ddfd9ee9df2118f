// Helpers for the tmux tests of aggregator/observe and aggregator/targets: a private tmux server in a temp
// directory (never the user's), a libuv loop polled with a deadline, and a
// screen replayer that plays recorded agent screens in a pane.
#pragma once

#include <uv.h>

#include <functional>
#include <string>
#include <vector>

#include "aggregator/targets/target_executor.h"

namespace agt::agg::testing {

/// A temp directory removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// `tmux -S <dir>/tmux.sock -f /dev/null ...`; the server is killed on
/// destruction.
class PrivateTmux {
 public:
  explicit PrivateTmux(const std::string& dir);
  ~PrivateTmux();
  const std::string& socket() const { return socket_; }
  /// Runs a tmux command; the result's exit code is not checked.
  ExecResult Run(const std::vector<std::string>& args);
  /// Runs a tmux command that must succeed; returns stdout without the
  /// final newline.
  std::string Must(const std::vector<std::string>& args);
  void Kill();

 private:
  std::string socket_;
  LocalExecutor exec_;
};

/// A libuv loop that tests drive until a condition holds or time runs out.
class Loop {
 public:
  Loop();
  ~Loop();
  uv_loop_t* get() { return &loop_; }
  /// Runs the loop until `done()` or `timeout_ms`; returns done().
  bool RunUntil(const std::function<bool()>& done, int timeout_ms = 5000);
  /// Runs the loop for `ms` (to see that nothing happens).
  void RunFor(int ms);

 private:
  uv_loop_t loop_;
};

/// Renders the snapshots of a recorded session (snapshots.jsonl) into
/// screen<N>.ans files in `dir` and makes the control FIFO and a symlink
/// `<dir>/<agent>` to the replayer. Returns the snapshot count.
int PrepareReplay(const std::string& snapshots_jsonl, const std::string& dir,
                  const std::string& agent);
/// The index of the first snapshot in `snapshots_jsonl` whose line holds
/// `text`, or -1.
int FirstSnapshotWith(const std::string& snapshots_jsonl, const std::string& text);
/// Writes a screen of plain lines as screen<N>.ans.
void WriteScreen(const std::string& dir, int n, const std::vector<std::string>& lines);
/// Tells the replayer in `dir` to show screen `n`.
void ShowScreen(const std::string& dir, int n);

/// The source directory of the tests (for fixtures and the replayer).
std::string SourceDir();

}  // namespace agt::agg::testing
