// Watch streams (docs/spec.md §12, Watch): JSON lines on a chunked
// response. A subscriber gets a `snapshot`, then `delta` lines (upsert /
// delete with identity) as the view changes, and heartbeats (a delta with
// no changes and "heartbeat":true) every interval. Sequences are global to
// the daemon run (stream_id, a new ULID per run); a cursor
// `<stream_id>:<sequence>` resumes after that sequence, while a cursor of an
// earlier run, or one older than the retained history, gets `reset` then
// `snapshot`. Shutdown ends every stream with a `reset`.
#pragma once

#include <uv.h>

#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "aggregator/http/http_server.h"
#include "aggregator/view/views.h"
#include "libagtcore/base/clock.h"

namespace agt::agg {

/// A parsed watch cursor.
struct WatchCursor {
  std::string stream_id;
  int64_t sequence = 0;
};
/// E_CURSOR_INVALID for anything but `<[0-9A-Za-z]+>:<digits>`.
core::Result<WatchCursor> ParseCursor(std::string_view text);

struct WatchOptions {
  size_t history = 4096;                     // batches kept for resume
  int64_t coalesce_ms = 10;                  // changes within this window share a delta
  core::TimeNs default_interval = 2 * core::kNsPerSec;  // heartbeat
};

class WatchHub {
 public:
  using RowSource = std::function<std::vector<PaneRow>()>;
  WatchHub(uv_loop_t* loop, std::string stream_id, RowSource rows, const TargetRegistry* targets,
           const core::Clock& clock, WatchOptions options = {});
  ~WatchHub();

  /// Something may have changed: recompute (coalesced) and send deltas.
  void MarkDirty();
  /// Recomputes at once (tests, shutdown).
  void Flush();
  /// Handles GET /v1/watch. Replies with an error, or opens a stream.
  void Serve(const HttpRequest& req, Exchange& ex);
  /// Sends `reset` (reason "shutdown") to every stream and ends them.
  void Shutdown();
  /// In-process subscribers (the notifier): called with every pane after
  /// each recompute that changed the view, the first one included.
  using ChangeListener = std::function<void(const std::vector<PaneRow>& rows)>;
  void AddListener(ChangeListener listener) { listeners_.push_back(std::move(listener)); }

  const std::string& stream_id() const { return stream_id_; }
  int64_t sequence() const { return head_; }
  size_t subscriber_count() const;

 private:
  struct Sub;
  struct Batch {
    int64_t seq;
    std::vector<std::string> pane_keys;  // identities (target,session,window,pane) touched
  };
  void Recompute();
  void SendSnapshot(Sub& s, core::TimeNs now);
  void SendResume(Sub& s, int64_t after, core::TimeNs now);
  void SendDelta(Sub& s, core::TimeNs now, bool heartbeat);
  std::string Envelope(const Sub& s, std::string_view type, core::TimeNs now);
  void Tick();
  void Reap();

  uv_loop_t* loop_;
  std::string stream_id_;
  RowSource rows_;
  const TargetRegistry* targets_;
  const core::Clock& clock_;
  WatchOptions options_;
  int64_t head_ = 0;
  core::TimeNs generated_at_ = 0;
  std::map<std::string, std::string> pane_state_;  // pane key -> rendering
  std::deque<Batch> history_;
  std::vector<PaneRow> rows_cache_;
  std::list<std::unique_ptr<Sub>> subs_;
  std::vector<ChangeListener> listeners_;
  uv_timer_t* coalesce_ = nullptr;
  uv_timer_t* ticker_ = nullptr;
  bool dirty_ = false;
  bool shut_ = false;
};

}  // namespace agt::agg
