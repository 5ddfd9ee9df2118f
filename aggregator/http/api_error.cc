// The error → HTTP status table and the error body (see api_error.h).
#include "aggregator/http/api_error.h"

#include "aggregator/http/json_writer.h"

namespace agt::agg {

int HttpStatusFor(core::Err code) {
  switch (code) {
    case core::Err::kRefNotFound:
    case core::Err::kNotFound: return 404;
    case core::Err::kIdempotencyConflict:
    case core::Err::kRuntimeStale:
    case core::Err::kPreconditionFailed:
    case core::Err::kSnapshotExpired: return 409;
    case core::Err::kPolicyBlocked: return 403;
    case core::Err::kTargetUnreachable: return 502;
    case core::Err::kIo:
    case core::Err::kStore:
    case core::Err::kInternal:
    case core::Err::kTimeout: return 500;
    default: return 400;
  }
}

std::string ErrorBody(const core::Error& error) {
  JsonOut j;
  j.BeginObject().Key("schema_version").Int(1).Key("error").BeginObject();
  j.Key("code").Str(core::ErrName(error.code)).Key("message").Str(error.message);
  j.EndObject().EndObject();
  return j.Take() + "\n";
}

HttpResponse ErrorResponse(int status, const core::Error& error) {
  return HttpResponse{status, "application/json", ErrorBody(error)};
}

HttpResponse ErrorResponse(const core::Error& error) {
  return ErrorResponse(HttpStatusFor(error.code), error);
}

}  // namespace agt::agg
