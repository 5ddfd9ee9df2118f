// The seam between a target's collector (tmux observation, the CAP poller,
// the target's health) and the daemon core (engine, store, API). A
// collector never touches the engine or the store: it reports topology and
// sends events through this sink, the same ingest path the wrapper and the
// hooks use (docs/spec.md: nothing but the engine writes states).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "libagtcore/detect/kept_screen.h"
#include "libagtcore/event.h"
#include "libagtcore/net/http_message.h"
#include "libagtcore/vocabulary.h"

namespace agt::agg {

using core::TimeNs;
struct PaneRow;  // aggregator/view/views.h

/// Sends one request to a federated target's own agtmuxd; `done` runs on
/// the loop thread with its answer.
using RemoteCaller = std::function<void(net::HttpRequest request,
                                        std::function<void(core::Result<net::HttpResponse>)> done)>;

/// One tmux pane as its collector last saw it.
struct PaneInfo {
  std::string target_id;
  std::string session_id;       // "$1"
  std::string session_name;
  std::string window_id;        // "@3"
  int window_index = 0;
  std::string window_name;
  std::string pane_id;          // "%7"
  int pane_index = 0;
  int64_t pid = 0;              // pane_pid (the pane's first process)
  std::string tty;
  std::string current_command;  // pane_current_command
  std::string title;            // pane_title
  std::string cwd;              // pane_current_path
  int width = 0;
  int height = 0;
  bool active = false;
  bool dead = false;
  TimeNs activity_at = 0;       // window_activity / last %output seen
  std::string agent_type;       // identified agent, empty = not an agent pane
  int64_t agent_pid = 0;        // the agent's process, when identified
  bool operator==(const PaneInfo&) const = default;
};

/// A full picture of one target's tmux server.
struct Topology {
  std::string target_id;
  bool server_running = false;  // false: no tmux server (not an error)
  std::string boot_id;          // tmux_server_boot_id
  std::string socket_path;
  std::vector<PaneInfo> panes;
  bool operator==(const Topology&) const = default;
};

/// Who reads an unwrapped pane besides the CAP poller, and so what the
/// poller reports for it (docs/observe.md, "Who owns a pane").
enum class PaneOwner : uint8_t {
  kNone,     // nobody fresher: the poller reports every verdict change
  kHooks,    // the agent's hooks report the lifecycle: the poller reports
             // only dialogs (waits) and, after one, what ends it
  kWrapper,  // the wrapper reads the screen itself: no capture, no report
};

/// Implemented by the daemon core; called on the loop thread only.
class CollectorSink {
 public:
  virtual ~CollectorSink() = default;
  /// Replaces the target's topology (panes not listed are gone).
  virtual void OnTopology(const Topology& topology) = 0;
  /// Sends an event into the ingest path (runtime_observed, runtime_ended,
  /// state_changed from the poller, stale_detected, target_health_changed,
  /// demotion_due). The daemon stamps ingested_at.
  virtual void OnEvent(core::Event event) = 0;
  /// Whether a wrapper or the hooks read this pane fresher than a capture,
  /// and so what the poller reports for it.
  virtual PaneOwner OwnerOf(const std::string& target_id, const std::string& pane_id) const = 0;
  /// The hooks' (hook or notify) fresh opinion of the pane, while the
  /// engine still believes it (not superseded by a screen reading), for the
  /// poller's contradiction check; nullopt when there is none.
  virtual std::optional<core::Signal> HookOpinion(const std::string& /*target_id*/,
                                                  const std::string& /*pane_id*/) const {
    return std::nullopt;
  }
  /// Keeps a screen the poller could not read, or that contradicted the
  /// hooks (libagtcore/detect/kept_screen.h). The sink adds what it knows
  /// (the agent's version, the pattern set's version) and writes it.
  virtual void KeepScreen(detect::KeptScreen /*screen*/) {}
  /// A federated target's panes as its own agtmuxd shows them (federation,
  /// docs/architecture.md): they replace the target's earlier ones and are
  /// shown as they are, never re-derived.
  virtual void OnRemotePanes(const std::string& /*target_id*/, const std::vector<PaneRow>& /*rows*/) {}
  /// How to reach a federated target's agtmuxd (actions on its panes are
  /// forwarded there); an empty caller withdraws it.
  virtual void OnRemoteCaller(const std::string& /*target_id*/, RemoteCaller /*caller*/) {}
};

}  // namespace agt::agg
