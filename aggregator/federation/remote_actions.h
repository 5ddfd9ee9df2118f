// Actions on a federated target's panes (docs/architecture.md,
// "Federation"): POST /v1/actions/{type} whose `ref` names a pane of a
// federated target is sent, as it came, to that target's own agtmuxd with
// the ref renamed to the remote's (`pane:host/...`), and its answer is
// returned in the local names (remote_names.h): the target's local name,
// and an action id `<target>/<remote id>` that GET /v1/actions/{id} here
// looks up on the same host. The guards (snapshot, if_state/if_runtime,
// freshness, request_ref idempotency, the send policy) are the remote
// daemon's: it is the authority for the pane, and it holds the snapshots it
// handed out and the audit of its actions.
#pragma once

#include <string>

#include "aggregator/ingest/daemon_core.h"
#include "aggregator/http/http_server.h"

namespace agt::agg {

/// True when the request was a federated pane's and has been forwarded
/// (the answer follows on `ex`); false to act locally.
bool ForwardRemoteAction(const DaemonCore& core, const std::string& type, const HttpRequest& req, Exchange& ex);

/// GET /v1/actions/{id}: true when `id` is a forwarded action's
/// (`<target>/<remote id>`) and has been answered on `ex`: the host's
/// audit in the local names, E_NOT_FOUND when the target is not read
/// through its agtmuxd, E_TARGET_UNREACHABLE naming the target when its
/// host cannot be reached. False for a local action id.
bool ForwardRemoteLookup(const DaemonCore& core, const std::string& id, Exchange& ex);

}  // namespace agt::agg
