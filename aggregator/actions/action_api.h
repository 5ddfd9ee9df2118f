// The HTTP side of the actions (docs/actions.md): POST /v1/actions/{type}
// and GET /v1/actions/{id}, served by an ActionService that reads the
// daemon core's panes and targets and runs tmux locally by argv.
#pragma once

#include "aggregator/http/api.h"
#include "aggregator/http/http_server.h"

namespace agt::agg {

/// Answers the request when its path is under /v1/actions and returns
/// true; returns false (and does nothing) for any other path. The service
/// is created on first use, per daemon core; its audit database is
/// <state_dir>/actions.db, its snapshot TTL 30 s unless
/// AGTMUX_ACTION_SNAPSHOT_TTL_MS says otherwise, its send policy the
/// config file's [send_policy].
bool ServeActions(const ApiContext& ctx, const HttpRequest& req, Exchange& ex);

}  // namespace agt::agg
