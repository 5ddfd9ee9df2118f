// How an API error reaches the client: one table from error code to HTTP
// status, and one body, {"schema_version":1,"error":{"code","message"}}
// (docs/api.md, Errors). The routes, the action service and the server's
// own refusals (malformed HTTP, limits) all answer through it.
#pragma once

#include <string>

#include "aggregator/http/http_server.h"
#include "libagtcore/base/result.h"

namespace agt::agg {

/// The HTTP status an error code answers with when the route has no more
/// specific one: 404 not found, 409 a conflict with the current state
/// (stale runtime, failed guard, expired snapshot, idempotency), 403 policy,
/// 502 an unreachable target, 500 the daemon's own failure, else 400.
int HttpStatusFor(core::Err code);

/// The error body, with a trailing newline like every JSON answer.
std::string ErrorBody(const core::Error& error);

/// An HttpResponse carrying ErrorBody with an explicit status (405, 408,
/// 413, 431, or a route's own choice such as 409 for an existing target).
HttpResponse ErrorResponse(int status, const core::Error& error);
/// The same with HttpStatusFor(error.code).
HttpResponse ErrorResponse(const core::Error& error);

}  // namespace agt::agg
