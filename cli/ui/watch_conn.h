// The daemon's watch stream for a poll loop: a non-blocking connection to
// GET /v1/watch whose bytes go through the CLI's one stream decoder
// (cli/client/daemon_client.h LineStreamDecoder). `agtmux ui` polls fd() beside
// the terminal, so a slow or stopped daemon never blocks a key.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "cli/client/daemon_client.h"
#include "libagtcore/base/result.h"
#include "libagtcore/os/unique_fd.h"

namespace agt::cli::ui {

class WatchConnection {
 public:
  /// Connects to `socket_path` and queues the request for `path` (with its
  /// query). E_DAEMON_UNREACHABLE when nothing listens there.
  core::Status Open(const std::string& socket_path, const std::string& path);
  void Close();
  bool is_open() const { return fd_.valid(); }
  int fd() const { return fd_.get(); }
  /// The poll events to wait for: POLLOUT while the request is unsent.
  short events() const;
  /// Sends what is unsent and reads what is there, handing each complete
  /// line to `on_line`. An error (and the connection closed) when the
  /// stream ended, was cut or was refused.
  core::Status OnReady(const std::function<bool(std::string_view line)>& on_line);

 private:
  core::UniqueFd fd_;
  std::string unsent_;
  LineStreamDecoder decoder_;
};

}  // namespace agt::cli::ui
