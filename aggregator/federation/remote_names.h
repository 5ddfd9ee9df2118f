// The names a federated host's agtmuxd answers with, as the local user
// knows them (docs/architecture.md, "Federation", Actions). The host calls
// the target of its own panes `host` and its actions by its own ids; here
// the target has its local name, and an action forwarded to the host gets
// an id that says which target holds it, so that the id a local client was
// given is the one it can look up (GET /v1/actions/{id}).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agt::agg {

/// The id a local client gets for action `remote_id` of federated target
/// `target`: "<target>/<remote_id>". A local action id (a ULID) has no '/'.
std::string LocalActionId(std::string_view target, std::string_view remote_id);

struct ForwardedActionId {
  std::string target;
  std::string remote_id;
};
/// The target and the host's id of an id made by LocalActionId; nullopt
/// for anything else (a local action id, or no target name before the '/').
std::optional<ForwardedActionId> ParseLocalActionId(std::string_view id);

/// `text` (an error message, an audit detail) of target `target`'s host in
/// the local names: the refs `pane:host/...` and `host/%N` name `target`,
/// and `action <ULID>` is that action's LocalActionId. Anything else,
/// snapshot ids included (they go back to the host as they came), is kept.
std::string LocalNames(std::string_view text, std::string_view target);

}  // namespace agt::agg
