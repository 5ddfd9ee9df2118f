// agtmux's user configuration: ~/.config/agtmux/config.toml (see
// docs/config.md for every key). Every field has a default, so a missing
// file, or a file that sets one key, gives a complete Config.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/base/result.h"
#include "libagtcore/vocabulary.h"

namespace agt::core {

/// [daemon]: the state engine's timings, retention and logging.
struct DaemonConfig {
  TimeNs completed_to_idle = 120 * kNsPerSec;  // completed -> idle demotion
  TimeNs skew_budget = 10 * kNsPerSec;         // event_time trusted within this of ingested_at
  TimeNs bind_window = 5 * kNsPerSec;          // start_hint tolerance when binding
  TimeNs pending_bind_ttl = 10 * kNsPerSec;    // unbound events dropped after this
  TimeNs retention_payloads = 7 * 86400 * kNsPerSec;
  TimeNs retention_events = 14 * 86400 * kNsPerSec;
  /// Per-source signal TTL, indexed by Source; 0 = no age limit.
  std::array<TimeNs, kSourceCount> signal_ttl = {0, 0, 0, 0};
  std::string log_level = "info";  // trace|debug|info|warn|error|critical|off
};

/// [poller]: capture-pane fallback for unwrapped panes.
struct PollerConfig {
  TimeNs active_interval = 200 * kNsPerMs;  // capture interval of changing panes
  TimeNs max_backoff = 30 * kNsPerSec;     // longest period for idle panes
  bool byte_screens = true;                // local panes read from their %output bytes
};

/// [wrap]: the PTY analyzer's timing (docs/spec.md §7 baselines).
struct WrapConfig {
  TimeNs running_window = 200 * kNsPerMs;   // output this recent = running
  TimeNs echo_grace = 300 * kNsPerMs;       // output this soon after input = echo
  TimeNs approval_settle = 500 * kNsPerMs;  // approval pattern stable this long
  TimeNs idle_debounce = 300 * kNsPerMs;    // running -> idle/completed holds this long
};

/// [send_policy]: PCRE2 patterns checked against text before `send`.
struct SendPolicyConfig {
  std::vector<std::string> block;  // refused unless overridden
  std::vector<std::string> warn;   // sent, with a warning
  std::vector<std::string> log;    // sent, and logged
};

/// [notify]: notifications when a pane starts waiting (docs/config.md).
/// No channel is on by default: with none set, nothing fires.
struct NotifyConfig {
  /// The states whose entry notifies: waiting_approval and waiting_input by
  /// default; error and completed may be added.
  std::vector<State> states = {State::kWaitingApproval, State::kWaitingInput};
  TimeNs dwell = 2 * kNsPerSec;      // the state must hold this long before firing
  TimeNs cooldown = 30 * kNsPerSec;  // at most one notification per pane within this
  bool skip_focused = true;          // none for the pane an attached client shows
  std::vector<std::string> command;  // argv, no shell ("" = none)
  TimeNs command_timeout = 10 * kNsPerSec;
  bool desktop = false;              // notify-send
  bool tmux_message = false;         // display-message in the pane's attached clients
  std::string webhook;               // http:// or https:// URL, ntfy-compatible POST
  std::string webhook_priority = "default";  // ntfy: min, low, default, high, urgent
  TimeNs webhook_timeout = 5 * kNsPerSec;
};

struct Config {
  DaemonConfig daemon;
  PollerConfig poller;
  WrapConfig wrap;
  SendPolicyConfig send_policy = DefaultSendPolicy();
  NotifyConfig notify;

  /// The built-in block list (rm -rf /, fork bombs, dd to devices, curl | sh).
  static SendPolicyConfig DefaultSendPolicy();
};

/// Parses config text. `path` is used only in messages. An unknown key or
/// a bad value is E_CONFIG_INVALID naming path, line and dotted key (an
/// unknown key with the closest known one, when it looks like a typo).
Result<Config> ParseConfig(std::string_view text, std::string_view path);

/// Reads and parses `path`; a file that does not exist gives the defaults.
Result<Config> LoadConfig(const std::string& path);

}  // namespace agt::core
