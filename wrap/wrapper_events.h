// WrapperEvents: builds the wrapper's events in envelope v1 (libagtcore/
// event.h): wrapper_started, state_changed and wrapper_exited, numbered
// source_seq = 1, 2, 3 ... for the runtime, each with the dedupe key
// sha256(wrapper : "<runtime_id>:<seq>" : "" : event_type), so a re-sent
// event (from the spool, after a timeout) is recognised by the daemon.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/base/clock.h"
#include "libagtcore/event.h"

namespace agt::wrap {

/// Who the wrapped runtime is, computed once at start.
struct WrapperIdentity {
  std::string runtime_id;
  std::string target_id = "host";
  std::string pane_id;     // $TMUX_PANE, or "pid:<wrapper pid>" outside tmux
  int64_t child_pid = 0;
  core::RuntimeInfo info;  // agent_type, cwd, argv_hash, tmux_socket, boot_id, started_at
};

/// Inputs of the identity, gathered from the process environment.
struct IdentityInputs {
  std::string agent_type;
  std::vector<std::string> argv;
  std::string cwd;
  std::string tmux_env;     // $TMUX, "" outside tmux
  std::string tmux_pane;    // $TMUX_PANE, "" outside tmux
  std::string agent_version;  // from the program's files (core::AgentVersionFromProgram), may be ""
  int64_t wrapper_pid = 0;
  core::TimeNs started_at = 0;  // wall clock
};

/// Fills every field but child_pid. `boot_id` is the tmux server's boot id
/// ("" when unknown). runtime_id = DeriveRuntimeId("host", boot_id,
/// pane_id, 0, agent_type, started_at): the engine assigns the real epoch.
WrapperIdentity MakeIdentity(const IdentityInputs& in, std::string_view boot_id);

/// sha256 hex of the argv joined with NUL bytes.
std::string ArgvHash(const std::vector<std::string>& argv);

class WrapperEvents {
 public:
  WrapperEvents(WrapperIdentity id, const core::Clock& clock)
      : id_(std::move(id)), clock_(clock) {}

  core::Event Started();
  core::Event StateChanged(const core::Signal& signal);
  core::Event Exited(const core::ExitInfo& exit);

  const WrapperIdentity& identity() const { return id_; }
  void set_child_pid(int64_t pid) { id_.child_pid = pid; }

 private:
  core::Event Base(std::string_view type);
  WrapperIdentity id_;
  const core::Clock& clock_;
  int64_t seq_ = 0;
};

}  // namespace agt::wrap
