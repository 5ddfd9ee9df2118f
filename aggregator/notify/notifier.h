// The daemon's notifier (docs/config.md "[notify]", docs/architecture.md):
// it listens to the pane rows the watch hub publishes after each change,
// lets NotifyPolicy decide what is due (edge, dwell, cooldown), and at
// firing time asks the pane's tmux server which clients are attached and
// what they show: a pane on the screen of an attached client is not
// notified (the user is looking at it). What is sent goes to the
// configured channels: the user's command, notify-send, display-message in
// the server's attached clients, and an ntfy-compatible webhook. Nothing
// here waits on the loop: children are spawned and reaped by callbacks,
// the webhook runs on the thread pool.
#pragma once

#include <uv.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aggregator/view/views.h"
#include "aggregator/view/watch_hub.h"
#include "aggregator/notify/child_process.h"
#include "aggregator/notify/notify_policy.h"
#include "aggregator/notify/webhook.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/config.h"

namespace agt::agg {

struct NotifierOptions {
  core::NotifyConfig config;
  /// The tmux socket of a target on this machine; nullopt for one the
  /// daemon reaches over ssh (focus is then not checked, and no
  /// display-message is sent there).
  std::function<std::optional<std::string>(const std::string& target)> tmux_socket;
  std::string tmux_program = "tmux";
  std::string desktop_program = "notify-send";
};

/// One attached tmux client, from `list-clients`.
struct TmuxClient {
  std::string name;     // the client's tty, for display-message -c
  std::string pane_id;  // the active pane of the active window of its session
};
/// Parses `list-clients -F "#{client_control_mode}\t#{client_name}\t#{pane_id}"`;
/// control-mode clients (the daemon's own) are left out.
std::vector<TmuxClient> ParseClients(std::string_view out);

/// The observation of one pane row (Notice and state) for the policy.
PaneObservation ObservePane(const PaneRow& row);

class Notifier {
 public:
  Notifier(uv_loop_t* loop, const core::Clock& clock, NotifierOptions options);
  ~Notifier();
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  /// Every pane after a change (WatchHub's listener).
  void OnRows(const std::vector<PaneRow>& rows);
  /// Whether any channel is configured (without one, nothing is observed).
  bool enabled() const;

 private:
  void Arm();
  void FireDue();
  void Check(Notice n);
  void Deliver(const Notice& n, const std::string& socket, const std::vector<TmuxClient>& clients);
  void Failed(const std::string& channel, const std::string& why);

  uv_loop_t* loop_;
  const core::Clock& clock_;
  NotifierOptions options_;
  NotifyPolicy policy_;
  ChildSet children_;
  WebhookSender webhook_;
  uv_timer_t* timer_ = nullptr;
  bool said_no_desktop_ = false;
  core::TimeNs last_failure_log_ = 0;
  int64_t failures_unlogged_ = 0;
};

/// The daemon's notifier for `config`, listening to `hub`; a local
/// target's socket comes from `targets` (the `host` target's when a local
/// target names none). Both must outlive it.
std::unique_ptr<Notifier> StartNotifier(uv_loop_t* loop, const core::Clock& clock, const core::NotifyConfig& config,
                                        const TargetRegistry& targets, WatchHub& hub);

}  // namespace agt::agg
