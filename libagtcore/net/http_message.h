// HTTP/1.1 messages as the daemon API exchanges them over its Unix socket:
// formatting a request, and an incremental response parser that can be fed
// bytes as they arrive (from a blocking socket or from a libuv read callback).
// Bodies are delimited by Content-Length, chunked encoding, or the end of the
// connection.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "libagtcore/base/result.h"

namespace agt::net {

struct HttpRequest {
  std::string method = "GET";
  std::string path = "/";
  std::string content_type;  // empty: no body headers unless body is set
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
};

struct HttpResponse {
  int status = 0;
  std::string reason;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  /// The first header of that name (case-insensitive), or "".
  std::string_view Header(std::string_view name) const;
};

/// The bytes of `req` on the wire, with Host: localhost and Content-Length.
std::string FormatHttpRequest(const HttpRequest& req);

/// Parses one response incrementally.
class HttpResponseParser {
 public:
  enum class Status { kNeedMore, kDone, kError };
  /// Consumes bytes; returns kDone once the whole response is in.
  Status Feed(std::string_view data);
  /// The peer closed the connection; completes a close-delimited body.
  Status Finish();
  HttpResponse& response() { return resp_; }
  /// Set when Feed or Finish returned kError: what was wrong.
  const std::string& error() const { return error_; }

 private:
  Status Advance();
  Status Fail(std::string msg);

  enum class Phase { kHead, kBody, kChunkSize, kChunkData, kChunkCrlf, kTrailer, kDone, kError };
  Phase phase_ = Phase::kHead;
  std::string buf_;
  size_t body_left_ = 0;
  bool until_close_ = false;
  HttpResponse resp_;
  std::string error_;
};

/// The `error` object of an API error body
/// ({"schema_version":1,"error":{"code":"E_...","message":"..."}}). When the
/// body is not of that shape, E_DAEMON_UNREACHABLE naming the HTTP status.
core::Error ApiErrorFromResponse(const HttpResponse& resp);

}  // namespace agt::net
