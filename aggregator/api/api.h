// API v1 routing (docs/spec.md §12): maps method + path to the handler that reads
// the daemon core or writes through its ingest path. Unknown paths are 404,
// known paths with the wrong method 405, both in the API's error shape (docs/api.md).
// docs/api.md is the reference for every endpoint.
#pragma once

#include <functional>
#include <string>

#include "aggregator/ingest/daemon_core.h"
#include "aggregator/http/http_server.h"

namespace agt::agg {

/// Hooks the API needs from the daemon around it.
struct ApiContext {
  DaemonCore* core = nullptr;
  const core::Clock* clock = nullptr;
  std::string socket_path;
  core::TimeNs started_at = 0;
  /// Starts (or restarts) observing a target; empty result = ok.
  std::function<core::Status(const TargetSpec&)> connect_target;
  /// Stops observing a target that is being removed.
  std::function<void(const std::string&)> disconnect_target;
};

/// The request handler for HttpServer.
Handler MakeApiHandler(ApiContext ctx);

}  // namespace agt::agg
