// The action path (docs/spec.md §13): send, respond, attach, view-output and kill
// on one agent pane, with the fail-closed guarantees. Every accepted request is
// first recorded (an `actions` row and an `action_snapshot` of the pane's
// runtime and state_version), then checked (snapshot freshness, guards,
// send policy) and only then executed through tmux by argv. Requests are
// idempotent on (action_type, request_ref). The audit rows (actions,
// action_snapshots, action_events) live in the daemon's store, agtmux.db
// (docs/store.md, Actions).
//
// Threads (docs/architecture.md, Actions off the loop): the service is
// called on the daemon's loop thread, and everything that reads the world
// (panes, targets) or the store happens there. The tmux commands of an
// action and the waits between them run through an ActionRunner, on a
// worker thread, with copies of what they need; actions on one pane run
// one at a time in arrival order (a lane per pane), actions on different
// panes do not wait for each other.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "aggregator/actions/action_runner.h"
#include "aggregator/actions/send_policy.h"
#include "aggregator/http/http_server.h"
#include "aggregator/view/views.h"
#include "aggregator/targets/target_executor.h"
#include "aggregator/targets/target_registry.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/detect/pattern_library.h"
#include "libagtcore/base/result.h"
#include "state/store/store.h"

namespace agt::agg {

/// One action request, as POST /v1/actions/{type} carries it (docs/actions.md).
struct ActionRequest {
  std::string type;          // send | respond | attach | view-output | kill | snapshot
  std::string ref;
  std::string request_ref;   // idempotency key; empty = a fresh one
  std::string snapshot_id;   // from an earlier snapshot / view-output; empty = taken now
  std::string if_runtime;
  std::vector<core::State> if_state;
  std::optional<core::TimeNs> if_updated_within;
  bool force_stale = false;
  // send
  std::string text;
  bool paste = false;        // load-buffer + paste-buffer -p instead of send-keys -l
  std::vector<std::string> keys;
  bool enter = false;
  bool allow_dangerous = false;
  int64_t enter_delay_ms = 100;
  // respond
  std::vector<std::string> choices;         // numbers, "yes"/"no" or option text
  std::vector<std::string> expect_choices;  // the labels the caller saw; empty = not checked
  int64_t key_delay_ms = 60;                // between two keys (ink drops keys that arrive together)
  // view-output
  int64_t lines = 200;
  bool escapes = false;
  // kill
  std::string mode = "key";  // key | signal
  std::string signal = "INT";
  // attach
  std::string client;        // the caller's tmux client (#{client_name}), when inside tmux
  std::string client_socket; // the socket of that client's tmux server
  std::string payload_hash;  // of the body without request_ref (set by ParseActionRequest)
};

/// Parses a request body for `type`; E_PAYLOAD_INVALID naming the field.
core::Result<ActionRequest> ParseActionRequest(std::string_view type, std::string_view body);

/// What the service answers: an HTTP status and the JSON body.
using ActionReply = HttpResponse;

/// How the service reaches panes and tmux; the daemon's implementation
/// reads DaemonCore, tests can fake it. Panes, FindTarget, Executor and
/// Signal are called on the loop thread; Sleep and the executor's Run on
/// the runner's worker (several at once, for different panes).
class ActionWorld {
 public:
  virtual ~ActionWorld() = default;
  virtual std::vector<PaneRow> Panes() const = 0;
  virtual const TargetStatus* FindTarget(const std::string& name) const = 0;
  /// The executor that runs tmux for `target` (null: unsupported kind).
  virtual TargetExecutor* Executor(const TargetStatus& target) = 0;
  /// kill(2) on this machine.
  virtual core::Status Signal(int64_t pid, int sig) = 0;
  /// Waits between two tmux commands (Enter after text).
  virtual void Sleep(core::TimeNs d) = 0;
};

struct ActionOptions {
  /// The store the audit goes to: the daemon's (agtmux.db), used on the
  /// loop thread only. Null: a store of the service's own at db_path
  /// (":memory:" in tests).
  state::Store* store = nullptr;
  std::string db_path = ":memory:";
  core::TimeNs snapshot_ttl = 30 * core::kNsPerSec;  // AGTMUX_ACTION_SNAPSHOT_TTL_MS overrides in the daemon
  core::SendPolicyConfig send_policy = core::Config::DefaultSendPolicy();
  /// The pattern sets whose [menu] styles `respond` reads menus with;
  /// null = detect::DefaultLibrary().
  std::shared_ptr<const detect::PatternLibrary> patterns;
  /// Where the tmux part of actions runs; null = at once, on the caller's
  /// thread (MakeInlineRunner).
  std::shared_ptr<ActionRunner> runner;
};

/// How an answer reaches the caller: on the loop thread, once.
using ActionReplyFn = std::function<void(ActionReply)>;

class ActionService {
 public:
  static core::Result<std::unique_ptr<ActionService>> Create(ActionWorld* world, const core::Clock& clock,
                                                             ActionOptions options);
  /// POST /v1/actions/{type}: `reply` is called once, on the loop thread:
  /// at once for a request refused before it runs or answered without
  /// tmux, after the action's tmux work otherwise.
  void Post(std::string_view type, std::string_view body, ActionReplyFn reply);
  /// The same for a service whose runner is inline (tests): the answer.
  ActionReply Post(std::string_view type, std::string_view body);
  /// GET /v1/actions/{id}: the action, its snapshot and its events.
  ActionReply Get(const std::string& action_id);
  /// The loop is going away: actions still running finish on their
  /// worker, unanswered; queued ones never start.
  void Detach();

 private:
  ActionService(ActionWorld* world, const core::Clock& clock, ActionOptions options,
                std::unique_ptr<state::Store> own_store, SendPolicy policy);
  struct Run;
  /// An action waiting for its pane's lane.
  struct Queued {
    ActionRequest req;
    ActionReplyFn reply;
  };
  ActionReply Replay(const ActionRequest& req, bool* replayed);
  ActionReply Snapshot(const PaneRow& row);
  /// Starts the next action of `lane` unless one runs there.
  void StartNext(const std::string& lane);
  /// Runs the loop part of `q` (record, check, prepare) and hands its tmux
  /// part to the runner; false when it ended on the loop (answered).
  bool Begin(const std::string& lane, Queued& q);
  void End(const std::string& lane, const std::string& ref_key, Run& run, const ActionReplyFn& reply);
  core::Result<PaneRow> Resolve(const std::string& ref) const;
  core::Status CheckSnapshot(Run& run, const PaneRow& now_row);
  core::Status CheckGuards(const Run& run, const PaneRow& row) const;
  /// The loop part of performing: target, send policy, and the actions
  /// that need no tmux here (kill by signal, attach to a remote pane).
  /// Sets `*ex` when the tmux part remains to be run (Perform).
  core::Status Prepare(Run& run, const PaneRow& row, TargetExecutor** ex);
  /// The tmux part, on a worker: only `run`, `row` and `ex` are touched.
  core::Status Perform(Run& run, const PaneRow& row, TargetExecutor& ex);
  core::Status DoSend(Run& run, const PaneRow& row, TargetExecutor& ex);
  core::Status DoRespond(Run& run, const PaneRow& row, TargetExecutor& ex);
  core::Result<detect::Menu> ReadMenu(const Run& run, const PaneRow& row, TargetExecutor& ex) const;
  core::Status SendKeys(Run& run, const PaneRow& row, TargetExecutor& ex, const std::vector<std::string>& keys);
  /// Moves the cursor of `menu` (on screen, at `*cursor`) to option
  /// `number` and confirms on the screen that it is there; the keys sent are
  /// appended to `sent`. Fails closed: an error when the cursor does not get
  /// there or the menu changes, and then nothing may be confirmed.
  core::Status MoveCursor(Run& run, const PaneRow& row, TargetExecutor& ex, const detect::Menu& menu, int number,
                          int* cursor, std::vector<std::string>* sent);
  core::Status DoViewOutput(Run& run, const PaneRow& row, TargetExecutor& ex);
  core::Status DoKill(Run& run, const PaneRow& row, TargetExecutor* ex);  // null in signal mode
  /// `ex` may be null for a remote target (the command is printed, not run).
  core::Status DoAttach(Run& run, const PaneRow& row, const TargetStatus& target, TargetExecutor* ex);
  /// Records an audit event: written at once on the loop thread, handed
  /// to the loop from a worker (before the action's answer).
  void Audit(Run& run, std::string_view event_type, const std::string& detail);
  ActionReply Finish(Run& run, const core::Status& outcome);

  ActionWorld* world_;
  const core::Clock& clock_;
  ActionOptions options_;
  std::unique_ptr<state::Store> own_store_;  // when options.store is null
  state::Store* store_;
  SendPolicy policy_;
  std::thread::id loop_thread_ = std::this_thread::get_id();
  /// Waiting actions per pane (target \x1f pane_id); a lane in `busy_`
  /// has one running.
  std::map<std::string, std::deque<Queued>> lanes_;
  std::set<std::string> busy_;
  /// type \x1f request_ref of every queued or running action: a second
  /// request with the same ref is answered "not finished", never run twice.
  std::set<std::string> in_flight_;
};

/// The tmux argv prefix for a target: {"tmux", "-S", socket} or {"tmux"}.
std::vector<std::string> TmuxArgv(const TargetStatus& target);

/// Runs `prefix` + `args` through `ex`; E_IO with tmux's stderr when it
/// exits non-zero. `out` receives stdout.
core::Status RunTmux(TargetExecutor& ex, const std::vector<std::string>& prefix, std::vector<std::string> args,
                     std::string* out = nullptr, std::string stdin_data = "");

}  // namespace agt::agg
