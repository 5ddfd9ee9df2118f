// Watch streams: one global change history per daemon run, one rendered
// view per subscriber. Each recompute renders every pane once, compares it
// with the previous rendering and, when anything changed, opens a new
// sequence number; every subscriber then re-renders its own scope and
// filter and receives exactly the items that differ. History keeps which
// panes each sequence touched, so a resumed cursor gets one delta bringing
// it from its sequence to now (coalesced; the cursor contract only promises
// to continue after the sequence).
#include "aggregator/view/watch_hub.h"

#include <algorithm>
#include <cctype>

#include "aggregator/http/api_error.h"
#include "libagtcore/base/timefmt.h"
#include "libagtcore/uv/handles.h"

namespace agt::agg {

core::Result<WatchCursor> ParseCursor(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return core::MakeError(core::Err::kCursorInvalid,
                           "cursor '" + std::string(text) + "' " + why + " (want <stream_id>:<sequence>)");
  };
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size())
    return bad("is malformed");
  std::string_view id = text.substr(0, colon), seq = text.substr(colon + 1);
  for (char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c))) return bad("has a bad stream id");
  if (seq.size() > 18) return bad("has a sequence out of range");
  int64_t n = 0;
  for (char c : seq) {
    if (c < '0' || c > '9') return bad("has a non-numeric sequence");
    n = n * 10 + (c - '0');
  }
  return WatchCursor{std::string(id), n};
}

struct WatchHub::Sub {
  Scope scope = Scope::kPanes;
  ViewFilter filter;
  core::TimeNs interval = 0;
  core::TimeNs next_heartbeat = 0;
  std::shared_ptr<ChunkedStream> stream;
  std::map<std::string, std::pair<std::string, std::string>> items;  // key -> (identity, json)
  bool dead = false;
};

namespace {

uv_timer_t* NewTimer(uv_loop_t* loop, void* data) {
  auto* t = new uv_timer_t;
  uv_timer_init(loop, t);
  t->data = data;
  uv_unref(reinterpret_cast<uv_handle_t*>(t));  // never keeps the loop alive by itself
  return t;
}

std::map<std::string, std::pair<std::string, std::string>> ToMap(std::vector<Item> items) {
  std::map<std::string, std::pair<std::string, std::string>> m;
  for (auto& it : items) m[std::move(it.key)] = {std::move(it.identity), std::move(it.json)};
  return m;
}

std::vector<std::string_view> Split(std::string_view key) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t sep = key.find('\x1f');
    parts.push_back(key.substr(0, sep));
    if (sep == std::string_view::npos) break;
    key = key.substr(sep + 1);
  }
  parts.resize(4);
  return parts;
}

}  // namespace

WatchHub::WatchHub(uv_loop_t* loop, std::string stream_id, RowSource rows,
                   const TargetRegistry* targets, const core::Clock& clock, WatchOptions options)
    : loop_(loop),
      stream_id_(std::move(stream_id)),
      rows_(std::move(rows)),
      targets_(targets),
      clock_(clock),
      options_(options) {
  coalesce_ = NewTimer(loop, this);
  ticker_ = NewTimer(loop, this);
}

WatchHub::~WatchHub() {
  for (auto& s : subs_)
    if (s->stream) s->stream->OnClose(nullptr);
  uv::CloseAndDelete(coalesce_);
  uv::CloseAndDelete(ticker_);
}

size_t WatchHub::subscriber_count() const {
  size_t n = 0;
  for (const auto& s : subs_) n += !s->dead;
  return n;
}

void WatchHub::MarkDirty() {
  if (dirty_ || shut_) return;
  dirty_ = true;
  uv_timer_start(coalesce_, [](uv_timer_t* t) { static_cast<WatchHub*>(t->data)->Flush(); },
                 static_cast<uint64_t>(options_.coalesce_ms), 0);
}

void WatchHub::Flush() {
  dirty_ = false;
  uv_timer_stop(coalesce_);
  Recompute();
}

void WatchHub::Reap() {
  subs_.remove_if([](const std::unique_ptr<Sub>& s) { return s->dead; });
  if (subs_.empty()) uv_timer_stop(ticker_);
}

void WatchHub::Recompute() {
  Reap();
  core::TimeNs now = clock_.Now();
  rows_cache_ = rows_();
  ViewFilter everything;
  everything.all_panes = true;
  std::map<std::string, std::string> next;
  for (Item& it : RenderItems(Scope::kPanes, rows_cache_, everything, 0))
    next[std::move(it.key)] = std::move(it.json);
  std::vector<std::string> changed;
  for (const auto& [k, v] : next) {
    auto it = pane_state_.find(k);
    if (it == pane_state_.end() || it->second != v) changed.push_back(k);
  }
  for (const auto& [k, v] : pane_state_)
    if (!next.count(k)) changed.push_back(k);
  if (changed.empty() && head_ != 0) return;
  pane_state_ = std::move(next);
  ++head_;
  generated_at_ = now;
  history_.push_back({head_, std::move(changed)});
  while (history_.size() > options_.history) history_.pop_front();
  for (auto& s : subs_)
    if (!s->dead) SendDelta(*s, now, false);
  for (const ChangeListener& l : listeners_) l(rows_cache_);
}

std::string WatchHub::Envelope(const Sub& s, std::string_view type, core::TimeNs now) {
  // The common fields of every line; the caller appends items/changes.
  JsonOut j;
  j.BeginObject();
  j.Key("schema_version").Int(1);
  j.Key("generated_at").Time(generated_at_ ? generated_at_ : now);
  j.Key("emitted_at").Time(now);
  j.Key("stream_id").Str(stream_id_);
  j.Key("cursor").Str(stream_id_ + ":" + std::to_string(head_));
  j.Key("scope").Str(ScopeName(s.scope));
  j.Key("type").Str(type);
  j.Key("sequence").Int(head_);
  j.Key("filters");
  WriteFilters(j, s.filter);
  j.Key("summary");
  WriteSummary(j, rows_cache_, s.filter);
  j.EndObject();
  std::string out = j.Take();
  out.pop_back();  // reopen the object
  return out;
}

void WatchHub::SendSnapshot(Sub& s, core::TimeNs now) {
  std::vector<Item> items = RenderItems(s.scope, rows_cache_, s.filter, 0);
  std::string line = Envelope(s, "snapshot", now) + ",\"items\":[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) line += ',';
    line += items[i].json;
  }
  line += "]}\n";
  s.items = ToMap(std::move(items));
  s.next_heartbeat = clock_.Monotonic() + s.interval;
  if (!s.stream->Write(line)) s.dead = true;
}

namespace {

void AppendUpsert(std::string* out, const std::string& identity, const std::string& item) {
  *out += "{\"op\":\"upsert\",\"identity\":" + identity + ",\"item\":" + item + "}";
}
void AppendDelete(std::string* out, const std::string& identity) {
  *out += "{\"op\":\"delete\",\"identity\":" + identity + "}";
}

}  // namespace

void WatchHub::SendDelta(Sub& s, core::TimeNs now, bool heartbeat) {
  std::string changes;
  if (!heartbeat) {
    auto next = ToMap(RenderItems(s.scope, rows_cache_, s.filter, 0));
    for (const auto& [k, v] : next) {
      auto it = s.items.find(k);
      if (it != s.items.end() && it->second.second == v.second) continue;
      if (!changes.empty()) changes += ',';
      AppendUpsert(&changes, v.first, v.second);
    }
    for (const auto& [k, v] : s.items) {
      if (next.count(k)) continue;
      if (!changes.empty()) changes += ',';
      AppendDelete(&changes, v.first);
    }
    if (changes.empty()) return;
    s.items = std::move(next);
  }
  std::string line = Envelope(s, "delta", now);
  if (heartbeat) line += ",\"heartbeat\":true";
  line += ",\"changes\":[" + changes + "]}\n";
  s.next_heartbeat = clock_.Monotonic() + s.interval;
  if (!s.stream->Write(line)) s.dead = true;
}

void WatchHub::SendResume(Sub& s, int64_t after, core::TimeNs now) {
  std::set<std::string> touched;  // keys of s.scope touched since `after`
  for (const Batch& b : history_) {
    if (b.seq <= after) continue;
    for (const std::string& pk : b.pane_keys) {
      auto p = Split(pk);
      std::string t(p[0]), sess(p[1]), win(p[2]);
      switch (s.scope) {
        case Scope::kPanes: touched.insert(pk); break;
        case Scope::kWindows: touched.insert(t + "\x1f" + sess + "\x1f" + win); break;
        case Scope::kSessions:
          touched.insert(t + "\x1f" + sess);
          touched.insert("*\x1f" + sess);
          break;
      }
    }
  }
  auto current = ToMap(RenderItems(s.scope, rows_cache_, s.filter, 0));
  std::string changes;
  for (const std::string& k : touched) {
    auto it = current.find(k);
    if (s.scope == Scope::kSessions && (k[0] == '*') != (s.filter.group_by == "session-name")) continue;
    if (!changes.empty()) changes += ',';
    if (it != current.end()) {
      AppendUpsert(&changes, it->second.first, it->second.second);
    } else {
      AppendDelete(&changes, IdentityFromKey(s.scope, k));
    }
  }
  s.items = std::move(current);
  std::string line = Envelope(s, "delta", now) + ",\"changes\":[" + changes + "]}\n";
  s.next_heartbeat = clock_.Monotonic() + s.interval;
  if (!s.stream->Write(line)) s.dead = true;
}

void WatchHub::Serve(const HttpRequest& req, Exchange& ex) {
  auto fail = [&](int status, core::Error e) { ex.Reply(ErrorResponse(status, e)); };
  if (shut_) return fail(503, core::MakeError(core::Err::kDaemonUnreachable, "daemon is shutting down"));
  auto sub = std::make_unique<Sub>();
  if (auto it = req.query.find("scope"); it != req.query.end()) {
    auto sc = ParseScope(it->second);
    if (!sc)
      return fail(400, core::MakeError(core::Err::kRequestInvalid,
                                       "query parameter 'scope': must be panes, windows or sessions, not '" +
                                           it->second + "'"));
    sub->scope = *sc;
  }
  auto f = ParseViewFilter(req.query);
  if (!f) return fail(400, f.error());
  sub->filter = *f;
  sub->interval = options_.default_interval;
  if (auto it = req.query.find("interval"); it != req.query.end()) {
    auto d = core::ParseDuration(it->second);
    if (!d || *d <= 0)
      return fail(400, core::MakeError(core::Err::kRequestInvalid,
                                       "query parameter 'interval': not a duration: '" + it->second + "'"));
    sub->interval = std::max<core::TimeNs>(*d, 100 * core::kNsPerMs);
  }
  bool once = false;
  if (auto it = req.query.find("once"); it != req.query.end())
    once = it->second.empty() || it->second == "1" || it->second == "true";
  std::optional<WatchCursor> cursor;
  if (auto it = req.query.find("cursor"); it != req.query.end()) {
    auto c = ParseCursor(it->second);
    if (!c) return fail(400, c.error());
    cursor = *c;
  }
  if (dirty_ || head_ == 0) Flush();
  std::string reset_reason;
  if (cursor) {
    if (cursor->stream_id != stream_id_) {
      reset_reason = "stream_changed";
    } else if (cursor->sequence > head_) {
      return fail(400, core::MakeError(core::Err::kCursorInvalid,
                                       "cursor sequence " + std::to_string(cursor->sequence) +
                                           " is ahead of the stream (at " + std::to_string(head_) + ")"));
    } else if (cursor->sequence < head_ &&
               (history_.empty() || history_.front().seq > cursor->sequence + 1)) {
      reset_reason = "cursor_expired";
    }
  }
  sub->stream = ex.Stream(200, "application/x-ndjson");
  core::TimeNs now = clock_.Now();
  if (!reset_reason.empty()) {
    std::string line = Envelope(*sub, "reset", now) + ",\"reason\":\"" + reset_reason + "\"}\n";
    sub->stream->Write(line);
  }
  if (cursor && reset_reason.empty()) {
    SendResume(*sub, cursor->sequence, now);
  } else {
    SendSnapshot(*sub, now);
  }
  if (once || sub->dead) {
    sub->stream->End();
    return;
  }
  Sub* raw = sub.get();
  sub->stream->OnClose([raw] { raw->dead = true; });
  subs_.push_back(std::move(sub));
  if (!uv_is_active(reinterpret_cast<uv_handle_t*>(ticker_))) {
    uv_timer_start(ticker_, [](uv_timer_t* t) { static_cast<WatchHub*>(t->data)->Tick(); }, 100, 100);
  }
}

void WatchHub::Tick() {
  Reap();
  core::TimeNs mono = clock_.Monotonic();
  core::TimeNs now = clock_.Now();
  for (auto& s : subs_) {
    if (s->dead || mono < s->next_heartbeat) continue;
    SendDelta(*s, now, true);
  }
}

void WatchHub::Shutdown() {
  if (shut_) return;
  if (dirty_) Flush();
  shut_ = true;
  core::TimeNs now = clock_.Now();
  for (auto& s : subs_) {
    if (s->dead) continue;
    s->stream->OnClose(nullptr);
    s->stream->Write(Envelope(*s, "reset", now) + ",\"reason\":\"shutdown\"}\n");
    s->stream->End();
    s->dead = true;
  }
  Reap();
  uv_timer_stop(ticker_);
  uv_timer_stop(coalesce_);
}

}  // namespace agt::agg
