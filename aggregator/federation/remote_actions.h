// Actions on a federated target's panes (docs/architecture.md,
// "Federation"): POST /v1/actions/{type} whose `ref` names a pane of a
// federated target is sent, as it came, to that target's own agtmuxd with
// the ref renamed to the remote's (`pane:host/...`), and its answer is
// returned as it is. The guards (snapshot, if_state/if_runtime, freshness,
// request_ref idempotency, the send policy) are the remote daemon's: it is
// the authority for the pane, and it holds the snapshots it handed out.
#pragma once

#include <string>

#include "aggregator/daemon/daemon_core.h"
#include "aggregator/http/http_server.h"

namespace agt::agg {

/// True when the request was a federated pane's and has been forwarded
/// (the answer follows on `ex`); false to act locally.
bool ForwardRemoteAction(const DaemonCore& core, const std::string& type, const HttpRequest& req, Exchange& ex);

}  // namespace agt::agg
