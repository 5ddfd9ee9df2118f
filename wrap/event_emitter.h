// EventEmitter: delivers the wrapper's events to agtmuxd without ever making
// the passthrough wait. It runs on the wrapper's libuv loop: Emit() only
// queues, and one request at a time goes out as POST /v1/events over the
// daemon's Unix socket ({"events":[...]}, HTTP/1.1). When the daemon is
// missing, refuses, errs (5xx) or is slow (no answer within the timeout),
// the queued events are appended to this wrapper's spool file
// (libagtcore/net/spool.h) and every later event goes there too, in order;
// a retry timer with backoff re-sends the file and deletes it once the
// daemon acknowledged it (any 200). Re-sends are safe: dedupe keys.
// A 4xx answer means the batch itself is unacceptable: it is dropped and
// counted, so one bad event cannot wedge the stream.
//
// Every event is redacted and capped (core::RedactEvent) before it is
// encoded, so neither the socket nor the spool file sees a secret. When
// the spool cannot be written either (full, or unwritable), events wait in
// memory up to max_memory_events and max_memory_bytes; past that the
// oldest are dropped and counted. The count goes to the daemon with the
// next delivered batch ({"events":[...],"dropped":N}), or at the end into
// the spool's drop record; when even that fails, Flush's caller is told.
#pragma once

#include <uv.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "libagtcore/event.h"
#include "libagtcore/net/http_message.h"
#include "libagtcore/redact.h"
#include "libagtcore/net/spool.h"

namespace agt::wrap {

struct EventEmitterOptions {
  std::string socket_path;
  std::string spool_dir;
  int64_t producer_pid = 0;      // names the spool file
  uint64_t request_timeout_ms = 1000;
  uint64_t retry_min_ms = 200;
  uint64_t retry_max_ms = 5000;
  size_t max_batch = 256;
  size_t max_memory_events = 10000;       // only when the spool cannot be written
  size_t max_memory_bytes = 4 * 1024 * 1024;
  int64_t max_spool_bytes = net::SpoolMaxBytes();
  const core::Redactor* redactor = nullptr;  // null: raw payloads dropped, texts only capped
};

struct EmitterStats {
  int64_t delivered = 0;  // events acknowledged by the daemon
  int64_t spooled = 0;    // events written to the spool
  int64_t refused = 0;    // events the daemon refused with a 4xx
  int64_t dropped = 0;    // events neither delivered nor spooled (memory overflow)
  int64_t dropped_reported = 0;  // of those, told to the daemon or written to the drop record
  std::string last_error;
};

class EventEmitter {
 public:
  EventEmitter(uv_loop_t* loop, EventEmitterOptions opts);
  ~EventEmitter();
  EventEmitter(const EventEmitter&) = delete;
  EventEmitter& operator=(const EventEmitter&) = delete;

  /// Queues an event; never blocks on the daemon.
  void Emit(const core::Event& e);
  /// Shutdown: delivers what it can within `grace_ms`, leaves the rest in
  /// the spool (for the daemon to drain at start-up), closes its handles,
  /// then calls `done`. Emit must not be called afterwards.
  void Flush(uint64_t grace_ms, std::function<void()> done);

  const EmitterStats& stats() const { return stats_; }
  /// The spool file in use, "" when everything was delivered.
  std::string spool_path() const { return spool_ ? spool_->path() : std::string(); }

 private:
  struct Request;
  void Pump();
  void Send(std::vector<std::string> lines, bool from_spool);
  void Enqueue(std::string line);
  void RecordDrops();
  void OnDone(bool ok, bool permanent, std::string error);
  void ToSpool();
  bool Idle() const;
  void ArmRetry();
  void FinishFlush();

  uv_loop_t* loop_;
  EventEmitterOptions opts_;
  std::deque<std::string> queue_;  // encoded events not yet delivered nor spooled
  size_t queue_bytes_ = 0;
  std::unique_ptr<net::SpoolWriter> spool_;
  size_t spool_acked_ = 0;         // lines of the spool file already delivered
  Request* inflight_ = nullptr;
  bool inflight_from_spool_ = false;
  size_t inflight_count_ = 0;
  int64_t inflight_dropped_ = 0;   // drops reported with the request in flight
  uv_timer_t* retry_ = nullptr;    // owned; closed through uv_close
  uv_timer_t* grace_ = nullptr;
  bool retry_armed_ = false;
  uint64_t backoff_ms_ = 0;
  bool flushing_ = false;
  std::function<void()> flush_done_;
  EmitterStats stats_;
};

}  // namespace agt::wrap
