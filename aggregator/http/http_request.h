// One HTTP/1.1 request as the daemon sees it, and the incremental parser that
// builds requests from the bytes of a connection (http-parser underneath).
// The parser enforces the daemon's limits (header bytes, body bytes) and
// reports every failure as an HTTP status plus a message, so the server can
// answer with the API's error shape (docs/api.md) and keep serving.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "libagtcore/base/result.h"

namespace agt::agg {

/// A parsed request. Header names are lower-cased.
struct HttpRequest {
  std::string method;  // "GET", "POST", "DELETE", ...
  std::string path;    // percent-decoded path, without the query
  std::map<std::string, std::string> query;    // decoded; last value wins
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  bool keep_alive = true;
};

struct RequestLimits {
  size_t max_header_bytes = 16 * 1024;
  size_t max_body_bytes = 1024 * 1024;  // docs/api.md, Limits: why 1 MiB
};

/// A parse failure: the HTTP status to answer with and the API error.
struct HttpError {
  int status = 400;
  core::Error error;
};

/// Splits "a=1&b=x%20y" into decoded pairs; E_REQUEST_INVALID on bad escapes.
core::Result<std::map<std::string, std::string>> ParseQuery(std::string_view q);

/// Incremental request parser for one connection. Feed bytes as they
/// arrive; complete requests are handed to `on_request` in order
/// (pipelining works). After a failure the parser stays failed.
class RequestParser {
 public:
  using OnRequest = std::function<void(HttpRequest)>;
  RequestParser(RequestLimits limits, OnRequest on_request);
  ~RequestParser();
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  /// Consumes `data`. Returns false (and sets error()) on a malformed or
  /// over-limit request.
  bool Feed(std::string_view data);
  /// True while a request has started but its headers are not complete
  /// (the header timeout runs only then).
  bool InHeaders() const;
  /// True when a request has begun (any byte) and is not yet complete.
  bool InRequest() const;
  /// Called from `on_request`: parse nothing after this request until
  /// Resume(). Bytes fed meanwhile are held (the caller stops reading, so
  /// they are at most the rest of one read).
  void PauseAfterThisRequest();
  bool paused() const;
  /// Parses the held bytes (which may pause again). Returns false as Feed.
  bool Resume();
  const HttpError& error() const { return error_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  HttpError error_;
};

}  // namespace agt::agg
