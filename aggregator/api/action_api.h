// The HTTP side of the actions (docs/actions.md): POST /v1/actions/{type}
// and GET /v1/actions/{id}, served by an ActionService that reads the
// daemon core's panes and targets and runs tmux locally by argv.
#pragma once

#include "aggregator/api/api.h"
#include "aggregator/http/http_server.h"

namespace agt::agg {

/// Answers the request when its path is under /v1/actions and returns
/// true; returns false (and does nothing) for any other path. The service
/// is created on first use, per daemon core; its audit goes to the core's
/// store (agtmux.db), its snapshot TTL 30 s unless
/// AGTMUX_ACTION_SNAPSHOT_TTL_MS says otherwise, its send policy the
/// config file's [send_policy]. POST answers are deferred: the action's
/// tmux part runs on a worker thread (action_runner.h).
bool ServeActions(const ApiContext& ctx, const HttpRequest& req, Exchange& ex);

/// The loop and `core` are going away: actions still running are left to
/// finish on their workers, unanswered and unrecorded; queued ones are
/// dropped. The daemon calls it when its loop has stopped, before the core
/// is destroyed; the API handler's destructor calls it too (a no-op then).
void StopActions(DaemonCore* core);

}  // namespace agt::agg
