// The wrapper's event envelopes (see wrapper_events.h for the identity and
// dedupe rules, and docs/wrap.md for the wire examples).
#include "wrap/wrapper_events.h"

#include "libagtcore/ids.h"
#include "libagtcore/net/tmux_identity.h"

namespace agt::wrap {

std::string ArgvHash(const std::vector<std::string>& argv) {
  std::string joined;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i > 0) joined.push_back('\0');
    joined += argv[i];
  }
  return core::Sha256Hex(joined);
}

WrapperIdentity MakeIdentity(const IdentityInputs& in, std::string_view boot_id) {
  WrapperIdentity id;
  id.pane_id = !in.tmux_pane.empty() ? in.tmux_pane
                                     : "pid:" + std::to_string(in.wrapper_pid);
  id.info.agent_type = in.agent_type;
  id.info.cwd = in.cwd;
  id.info.argv_hash = ArgvHash(in.argv);
  if (!in.tmux_env.empty() && !in.tmux_pane.empty()) {
    if (auto env = net::ParseTmuxEnv(in.tmux_env)) id.info.tmux_socket = env->socket_path;
  }
  id.info.boot_id = std::string(boot_id);
  id.info.agent_version = in.agent_version;
  id.info.started_at = in.started_at;
  id.info.pane_epoch = -1;
  id.runtime_id = core::DeriveRuntimeId(id.target_id, boot_id, id.pane_id, 0,
                                        in.agent_type, in.started_at);
  return id;
}

core::Event WrapperEvents::Base(std::string_view type) {
  core::Event e;
  const core::TimeNs now = clock_.Now();
  ++seq_;
  e.event_id = core::NewUlid(now);
  e.event_type = std::string(type);
  e.source = core::Source::kWrapper;
  e.source_seq = seq_;
  e.dedupe_key = core::DeriveDedupeKey(core::Source::kWrapper,
                                       id_.runtime_id + ":" + std::to_string(seq_), "", type);
  e.event_time = now;
  e.runtime_id = id_.runtime_id;
  e.target_id = id_.target_id;
  e.pane_id = id_.pane_id;
  if (id_.child_pid > 0) e.pid = id_.child_pid;
  return e;
}

core::Event WrapperEvents::Started() {
  core::Event e = Base(core::event_type::kWrapperStarted);
  e.runtime = id_.info;
  e.start_hint = id_.info.started_at;
  return e;
}

core::Event WrapperEvents::StateChanged(const core::Signal& signal) {
  core::Event e = Base(core::event_type::kStateChanged);
  e.signal = signal;
  return e;
}

core::Event WrapperEvents::Exited(const core::ExitInfo& exit) {
  core::Event e = Base(core::event_type::kWrapperExited);
  e.exit = exit;
  return e;
}

}  // namespace agt::wrap
