// The webhook channel: an ntfy-compatible POST (the body is the message;
// Title, Priority and Tags headers) to an http:// or https:// URL, made
// with libcurl on the libuv thread pool so that a slow or dead server never
// holds the daemon's loop. Each request has a timeout; destroying the
// sender aborts those in flight (their callbacks are then never called).
#pragma once

#include <uv.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "libagtcore/vocabulary.h"

namespace agt::agg {

struct WebhookPost {
  std::string url;
  std::string title, priority, tags;  // headers (already one line each)
  std::string body;
  core::TimeNs timeout = 5 * core::kNsPerSec;
};

class WebhookSender {
 public:
  explicit WebhookSender(uv_loop_t* loop);
  ~WebhookSender();
  WebhookSender(const WebhookSender&) = delete;
  WebhookSender& operator=(const WebhookSender&) = delete;

  /// Queues the POST; `done` runs on the loop with "" on a 2xx answer,
  /// else the reason ("HTTP 500", "Couldn't connect to server", ...).
  void Post(WebhookPost post, std::function<void(const std::string& error)> done);

 private:
  uv_loop_t* loop_;
  std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace agt::agg
