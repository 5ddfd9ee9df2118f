// The CLI's side of the daemon API: finding the socket, starting agtmuxd on
// demand when nothing answers (like tmux starts its server), plain calls,
// and the line stream of GET /v1/watch. Errors carry the API's codes (docs/api.md); an
// unreachable daemon is E_DAEMON_UNREACHABLE with a hint to start it.
#pragma once

#include <rapidjson/document.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/net/http_message.h"
#include "libagtcore/os/paths.h"
#include "libagtcore/base/result.h"
#include "libagtcore/vocabulary.h"

namespace agt::cli {

struct ClientOptions {
  bool autostart = true;                          // start agtmuxd when it does not answer
  core::TimeNs start_wait = 3 * core::kNsPerSec;  // how long to wait for a started daemon
  core::TimeNs call_timeout = 10 * core::kNsPerSec;
  bool follow_tmux = true;  // inside tmux: FollowCallerTmux once the daemon answers
};

/// The agtmuxd binary: next to this executable (/proc/self/exe), else PATH.
core::Result<std::string> FindDaemonBinary();

/// Forks and execs agtmuxd detached (setsid, stdio to /dev/null), then
/// waits until its socket answers. Returns the daemon's pid.
core::Result<int64_t> StartDaemon(const core::Paths& paths, core::TimeNs wait);

/// From now on no DaemonClient of this process starts agtmuxd on demand
/// (`agtmux ui` starts it once, at start-up; a daemon that goes away later
/// is reported, not restarted behind the user by a background call).
void DisableAutostart();

class DaemonClient {
 public:
  /// Resolves the paths; with autostart, starts the daemon if needed.
  static core::Result<DaemonClient> Open(const ClientOptions& options);

  /// One call; a non-2xx answer becomes its API error.
  core::Result<std::string> Call(std::string method, std::string path, std::string body = "");
  /// Call, then ParseAnswer with `required`.
  core::Result<rapidjson::Document> CallJson(std::string method, std::string path, std::string body = "",
                                             std::initializer_list<const char*> required = {});
  /// GET /v1/health answered?
  bool Alive();
  /// Reads a chunked line stream; `on_line` returns false to stop early.
  /// `idle_timeout`: no byte for that long = the daemon is gone.
  core::Status Stream(const std::string& path, core::TimeNs idle_timeout,
                      const std::function<bool(std::string_view line)>& on_line);

  const core::Paths& paths() const { return paths_; }

  /// Run inside tmux ($TMUX), asks the daemon to watch that server
  /// (POST /v1/follow, docs/observe.md "Which server"): a daemon started
  /// elsewhere then sees the server the user works in. Quiet: a daemon that
  /// does not answer or refuses leaves the command to report what it sees.
  void FollowCallerTmux();

 private:
  DaemonClient(core::Paths paths, ClientOptions options) : paths_(std::move(paths)), options_(options) {}
  core::Paths paths_;
  ClientOptions options_;
};

/// The client side of a chunked line stream (GET /v1/watch), fed the bytes
/// of the connection as they arrive, so a blocking reader
/// (DaemonClient::Stream) and a poll loop (`agtmux ui`) share one decoder.
class LineStreamDecoder {
 public:
  enum class Status {
    kMore,     // everything fed is used; feed more
    kEnded,    // the daemon ended the stream (chunked terminator)
    kStopped,  // on_line returned false
    kFailed,   // the answer is an error, see error()
  };
  /// Decodes `bytes`; `on_line` gets each complete, non-empty line.
  Status Feed(std::string_view bytes, const std::function<bool(std::string_view line)>& on_line);
  /// True once the response head was read.
  bool in_body() const { return in_body_; }
  /// The bytes of a last line not yet ended by a newline.
  const std::string& pending() const { return pending_; }
  /// The API error of a non-200 answer (after kFailed).
  const core::Error& error() const { return error_; }

 private:
  std::string buf_, pending_;
  bool in_body_ = false, chunked_ = false, failed_ = false, chunk_crlf_ = false;
  size_t chunk_left_ = 0;
  net::HttpResponseParser error_parser_;
  core::Error error_;
};

/// A daemon answer as a JSON document: E_INTERNAL "the daemon sent a
/// malformed answer" when `body` is not a JSON object or lacks one of the
/// `required` members (the message then names it).
core::Result<rapidjson::Document> ParseAnswer(const std::string& body,
                                              std::initializer_list<const char*> required = {});

/// Builds "?a=x&b=y" from pairs, percent-encoding values; empty values skipped.
std::string QueryString(const std::vector<std::pair<std::string, std::string>>& params);

/// Prints "agtmux: E_CODE: message" (and, for an unreachable daemon, how to
/// start it) to stderr; returns the exit status for that error.
int ReportError(const core::Error& error);

}  // namespace agt::cli
