// The wrapper's non-blocking event delivery (see event_emitter.h for the
// contract). Invariant that keeps events in order: the spool file, when it
// exists, holds older events than the memory queue, and a new event goes to
// the spool only while the memory queue is empty.
#include "wrap/event_emitter.h"

#include <unistd.h>

#include <algorithm>

#include "libagtcore/base/clock.h"
#include "libagtcore/event_codec.h"
#include "libagtcore/event_redact.h"
#include "libagtcore/ids.h"
#include "libagtcore/uv/handles.h"

namespace agt::wrap {

/// One POST on its own connection. It outlives an abandoned owner until
/// libuv has closed its handles.
struct EventEmitter::Request {
  EventEmitter* owner = nullptr;
  uv_pipe_t pipe{};
  uv_connect_t connect{};
  uv_timer_t timer{};
  std::string wire;
  net::HttpResponseParser parser;
  bool finished = false;
  bool reading = false;

  void Finish(bool ok, bool permanent, std::string error) {
    if (finished) return;
    finished = true;
    uv_timer_stop(&timer);
    if (reading) uv_read_stop(reinterpret_cast<uv_stream_t*>(&pipe));
    // The connect and write callbacks (cancelled by the close) run before
    // the close callbacks, and find `finished` set.
    uv::CloseAll({uv::AsHandle(&pipe), uv::AsHandle(&timer)}, [this] { delete this; });
    if (EventEmitter* o = std::exchange(owner, nullptr))
      o->OnDone(ok, permanent, std::move(error));
  }

  void OnResponse() {
    const net::HttpResponse& resp = parser.response();
    if (resp.status == 200) {
      Finish(true, false, "");
    } else {
      const bool permanent = resp.status >= 400 && resp.status < 500;
      Finish(false, permanent, net::ApiErrorFromResponse(resp).ToString());
    }
  }
};

namespace {

// How many of lines[from, from + max_count) fit in `max_bytes` (at least one).
template <typename Lines>
size_t BatchCount(const Lines& lines, size_t from, size_t max_count, size_t max_bytes) {
  size_t n = 0, bytes = 0;
  while (from + n < lines.size() && n < max_count) {
    bytes += lines[from + n].size() + 1;
    if (n > 0 && bytes > max_bytes) break;
    ++n;
  }
  return n;
}

std::string BatchBody(const std::vector<std::string>& lines, int64_t dropped) {
  size_t n = 48;
  for (const auto& l : lines) n += l.size() + 1;
  std::string body;
  body.reserve(n);
  body += "{\"events\":[";
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) body.push_back(',');
    body += lines[i];
  }
  body += "]";
  if (dropped > 0) body += ",\"dropped\":" + std::to_string(dropped);
  body += "}";
  return body;
}

}  // namespace

EventEmitter::EventEmitter(uv_loop_t* loop, EventEmitterOptions opts)
    : loop_(loop), opts_(std::move(opts)) {
  retry_ = new uv_timer_t;
  uv_timer_init(loop_, retry_);
  retry_->data = this;
}

EventEmitter::~EventEmitter() {
  // Flush() closed the timers; an in-flight request is detached so its
  // callbacks never reach a destroyed emitter.
  if (inflight_ != nullptr) inflight_->owner = nullptr;
}

void EventEmitter::Emit(const core::Event& event) {
  core::Event e = event;
  core::RedactEvent(opts_.redactor, &e);
  std::string line = core::EncodeEvent(e);
  if (spool_ && queue_.empty()) {
    if (auto s = spool_->Append(line)) {
      ++stats_.spooled;
      Pump();
      return;
    } else {
      stats_.last_error = s.error().ToString();
    }
  }
  Enqueue(std::move(line));
  Pump();
}

void EventEmitter::Enqueue(std::string line) {
  queue_bytes_ += line.size();
  queue_.push_back(std::move(line));
  // The spool is full or unwritable and the daemon away: memory is bounded.
  // The in-flight batch is the front of the queue and is never dropped.
  const size_t keep = inflight_ != nullptr && !inflight_from_spool_ ? inflight_count_ : 0;
  while (queue_.size() > keep + 1 &&
         (queue_.size() > opts_.max_memory_events || queue_bytes_ > opts_.max_memory_bytes)) {
    auto victim = queue_.begin() + static_cast<ptrdiff_t>(keep);
    queue_bytes_ -= victim->size();
    queue_.erase(victim);
    ++stats_.dropped;
  }
}

bool EventEmitter::Idle() const {
  return inflight_ == nullptr && queue_.empty() && !spool_;
}

void EventEmitter::Pump() {
  if (inflight_ != nullptr || retry_armed_) return;
  if (spool_) {
    auto lines = net::ReadSpoolLines(spool_->path());
    if (!lines) {
      stats_.last_error = lines.error().ToString();
      if (flushing_) return FinishFlush();
      return ArmRetry();
    }
    if (spool_acked_ < lines->size()) {
      const size_t end = spool_acked_ + BatchCount(*lines, spool_acked_, opts_.max_batch, opts_.max_batch_bytes);
      std::vector<std::string> batch(lines->begin() + static_cast<ptrdiff_t>(spool_acked_),
                                     lines->begin() + static_cast<ptrdiff_t>(end));
      return Send(std::move(batch), true);
    }
    if (auto d = net::DeleteSpoolFile(spool_->path()); !d) stats_.last_error = d.error().ToString();
    spool_.reset();
    spool_acked_ = 0;
  }
  if (!queue_.empty()) {
    const size_t n = BatchCount(queue_, 0, opts_.max_batch, opts_.max_batch_bytes);
    std::vector<std::string> batch(queue_.begin(), queue_.begin() + static_cast<ptrdiff_t>(n));
    return Send(std::move(batch), false);
  }
  if (flushing_) FinishFlush();
}

void EventEmitter::Send(std::vector<std::string> lines, bool from_spool) {
  auto* r = new Request;
  r->owner = this;
  r->pipe.data = r;
  r->timer.data = r;
  r->connect.data = r;
  net::HttpRequest req;
  req.method = "POST";
  req.path = "/v1/events";
  req.content_type = "application/json";
  req.headers.emplace_back("Connection", "close");
  inflight_dropped_ = stats_.dropped - stats_.dropped_reported;
  req.body = BatchBody(lines, inflight_dropped_);
  r->wire = net::FormatHttpRequest(req);
  inflight_ = r;
  inflight_from_spool_ = from_spool;
  inflight_count_ = lines.size();

  uv_pipe_init(loop_, &r->pipe, 0);
  uv_timer_init(loop_, &r->timer);
  uv_timer_start(
      &r->timer,
      [](uv_timer_t* t) {
        static_cast<Request*>(t->data)->Finish(false, false, "E_TIMEOUT: agtmuxd did not answer");
      },
      opts_.request_timeout_ms, 0);
  uv_pipe_connect(&r->connect, &r->pipe, opts_.socket_path.c_str(),
                  [](uv_connect_t* c, int status) {
                    auto* r = static_cast<Request*>(c->data);
                    if (r->finished) return;
                    if (status < 0)
                      return r->Finish(false, false,
                                       std::string("E_DAEMON_UNREACHABLE: ") + uv_strerror(status));
                    int w = uv::WriteOwned(reinterpret_cast<uv_stream_t*>(&r->pipe),
                                           std::move(r->wire), [r](int st) {
                                             if (st < 0 && !r->finished)
                                               r->Finish(false, false,
                                                         std::string("E_DAEMON_UNREACHABLE: ") +
                                                             uv_strerror(st));
                                           });
                    if (w < 0)
                      return r->Finish(false, false,
                                       std::string("E_DAEMON_UNREACHABLE: ") + uv_strerror(w));
                    r->reading = true;
                    uv_read_start(
                        reinterpret_cast<uv_stream_t*>(&r->pipe),
                        [](uv_handle_t*, size_t, uv_buf_t* b) {
                          static char buf[16384];
                          *b = uv_buf_init(buf, sizeof buf);
                        },
                        [](uv_stream_t* s, ssize_t n, const uv_buf_t* b) {
                          auto* r = static_cast<Request*>(s->data);
                          if (r->finished) return;
                          net::HttpResponseParser::Status st;
                          if (n > 0) {
                            st = r->parser.Feed(std::string_view(b->base, static_cast<size_t>(n)));
                          } else if (n == UV_EOF) {
                            st = r->parser.Finish();
                          } else if (n < 0) {
                            return r->Finish(false, false,
                                             std::string("E_DAEMON_UNREACHABLE: ") +
                                                 uv_strerror(static_cast<int>(n)));
                          } else {
                            return;
                          }
                          if (st == net::HttpResponseParser::Status::kDone) return r->OnResponse();
                          if (st == net::HttpResponseParser::Status::kError)
                            return r->Finish(false, false,
                                             "E_DAEMON_UNREACHABLE: " + r->parser.error());
                        });
                  });
}

void EventEmitter::OnDone(bool ok, bool permanent, std::string error) {
  inflight_ = nullptr;
  const size_t n = inflight_count_;
  if (ok || permanent) {
    if (ok) {
      stats_.delivered += static_cast<int64_t>(n);
      stats_.dropped_reported += inflight_dropped_;
    } else {
      stats_.refused += static_cast<int64_t>(n);
      stats_.last_error = std::move(error);
    }
    if (inflight_from_spool_) {
      spool_acked_ += n;
    } else {
      for (size_t i = 0; i < n; ++i) queue_bytes_ -= queue_[i].size();
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<ptrdiff_t>(n));
    }
    backoff_ms_ = 0;
    return Pump();
  }
  stats_.last_error = std::move(error);
  ToSpool();
  if (flushing_) return FinishFlush();
  ArmRetry();
}

void EventEmitter::ToSpool() {
  if (queue_.empty()) return;
  if (!spool_) {
    net::SpoolName name{"wrapper", opts_.producer_pid,
                        core::NewUlid(core::SystemClock::Get().Now())};
    auto w = net::SpoolWriter::Open(opts_.spool_dir, name, opts_.max_spool_bytes);
    if (!w) {
      stats_.last_error = w.error().ToString();
      return;  // keep them in memory; retried with the next attempt
    }
    spool_ = std::move(*w);
    spool_acked_ = 0;
  }
  while (!queue_.empty()) {
    if (auto s = spool_->Append(queue_.front()); !s) {
      stats_.last_error = s.error().ToString();
      return;
    }
    queue_bytes_ -= queue_.front().size();
    queue_.pop_front();
    ++stats_.spooled;
  }
}

// At the end: what is still in memory is lost, and so are the drops the
// daemon was not told of; both go into this wrapper's drop record, for the
// daemon's next drain to count.
void EventEmitter::RecordDrops() {
  stats_.dropped += static_cast<int64_t>(queue_.size());
  queue_.clear();
  queue_bytes_ = 0;
  const int64_t unreported = stats_.dropped - stats_.dropped_reported;
  if (unreported <= 0) return;
  net::SpoolName name{"wrapper", opts_.producer_pid, core::NewUlid(core::SystemClock::Get().Now())};
  if (spool_) {
    // Name the record after the spool file, so the daemon reads them together.
    net::ParseSpoolName(spool_->path().substr(spool_->path().rfind('/') + 1), &name);
  }
  if (auto st = net::WriteDropRecord(opts_.spool_dir, name, unreported); st) {
    stats_.dropped_reported += unreported;
  } else {
    stats_.last_error = st.error().ToString();
  }
}

void EventEmitter::ArmRetry() {
  backoff_ms_ = backoff_ms_ == 0 ? opts_.retry_min_ms
                                 : std::min(backoff_ms_ * 2, opts_.retry_max_ms);
  retry_armed_ = true;
  uv_timer_start(
      retry_,
      [](uv_timer_t* t) {
        auto* self = static_cast<EventEmitter*>(t->data);
        self->retry_armed_ = false;
        self->Pump();
      },
      backoff_ms_, 0);
}

void EventEmitter::Flush(uint64_t grace_ms, std::function<void()> done) {
  flushing_ = true;
  flush_done_ = std::move(done);
  uv_timer_stop(retry_);
  retry_armed_ = false;
  grace_ = new uv_timer_t;
  uv_timer_init(loop_, grace_);
  grace_->data = this;
  uv_timer_start(
      grace_,
      [](uv_timer_t* t) {
        auto* self = static_cast<EventEmitter*>(t->data);
        if (Request* r = self->inflight_) {
          self->inflight_ = nullptr;
          r->owner = nullptr;
          r->Finish(false, false, "");
        }
        self->FinishFlush();
      },
      grace_ms, 0);
  if (Idle()) return FinishFlush();
  Pump();
}

void EventEmitter::FinishFlush() {
  if (!flush_done_) return;
  ToSpool();  // whatever is still in memory waits for the daemon on disk
  RecordDrops();
  uv::CloseAndDelete(retry_);
  uv::CloseAndDelete(grace_);
  retry_ = grace_ = nullptr;
  auto done = std::move(flush_done_);
  flush_done_ = nullptr;
  done();
}

}  // namespace agt::wrap
