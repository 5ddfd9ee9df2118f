// RemoteMirror (see remote_mirror.h): watch lines in, PaneRows out.
#include "aggregator/federation/remote_mirror.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

#include "aggregator/http/json_writer.h"
#include "libagtcore/base/json.h"
#include "libagtcore/base/timefmt.h"

namespace agt::agg {
namespace {

using core::Err;
using core::MakeError;

core::Error Bad(const std::string& what) { return MakeError(Err::kPayloadInvalid, "remote watch line: " + what); }

std::string Str(const rapidjson::Value& o, const char* key) {
  auto it = o.FindMember(key);
  return it != o.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength())
                                                     : std::string();
}

int64_t Int(const rapidjson::Value& o, const char* key) {
  auto it = o.FindMember(key);
  return it != o.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : 0;
}

bool Bool(const rapidjson::Value& o, const char* key) {
  auto it = o.FindMember(key);
  return it != o.MemberEnd() && it->value.IsBool() && it->value.GetBool();
}

core::TimeNs Time(const rapidjson::Value& o, const char* key) {
  auto t = core::ParseRfc3339(Str(o, key));
  return t ? *t : 0;
}

std::string IdentityKey(const rapidjson::Value& identity) {
  return Str(identity, "session_name") + '\x1f' + Str(identity, "window_id") + '\x1f' + Str(identity, "pane_id");
}

std::string Serialize(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

core::Result<PaneRow> RemotePaneRow(const rapidjson::Value& item, const std::string& target) {
  if (!item.IsObject()) return Bad("an item is not an object");
  auto id = item.FindMember("identity");
  if (id == item.MemberEnd() || !id->value.IsObject()) return Bad("an item has no identity");
  const rapidjson::Value& identity = id->value;
  PaneRow r;
  r.target = target;
  r.session_name = Str(identity, "session_name");
  r.window_id = Str(identity, "window_id");
  r.pane_id = Str(identity, "pane_id");
  if (r.pane_id.empty()) return Bad("an item's identity has no pane_id");
  r.in_topology = !r.window_id.empty();
  r.session_id = Str(item, "session_id");
  r.window_name = Str(item, "window_name");
  r.window_index = int(Int(item, "window_index"));
  r.pane_index = int(Int(item, "pane_index"));
  r.title = Str(item, "title");
  r.cwd = Str(item, "cwd");
  r.command = Str(item, "command");
  r.pid = Int(item, "pane_pid");
  r.agent = Bool(item, "agent");
  if (!r.agent) return r;
  r.runtime_id = Str(item, "runtime_id");
  r.agent_type = Str(item, "agent_type");
  r.agent_version = Str(item, "agent_version");
  if (auto p = item.FindMember("runtime_pid"); p != item.MemberEnd() && p->value.IsInt64())
    r.runtime_pid = p->value.GetInt64();
  state::PaneState& st = r.st;
  st.target_id = target;
  st.pane_id = r.pane_id;
  st.runtime_id = r.runtime_id;
  auto state = core::ParseState(Str(item, "state"));
  if (!state) return Bad("an item's state '" + Str(item, "state") + "' is not a state");
  st.signal.state = *state;
  st.signal.reason_code = Str(item, "reason_code");
  st.signal.rule_id = Str(item, "rule_id");
  st.signal.evidence = Str(item, "evidence");
  if (auto c = core::ParseConfidence(Str(item, "confidence"))) st.signal.confidence = *c;
  if (auto s = core::ParseSource(Str(item, "signal_source"))) {
    st.source = *s;
    st.has_source = true;
  }
  if (auto w = item.FindMember("waiting"); w != item.MemberEnd() && w->value.IsObject()) {
    core::WaitingDetail& d = st.signal.detail;
    d.approval_type = Str(w->value, "approval_type");
    d.details = Str(w->value, "details");
    d.multi_select = Bool(w->value, "multi_select");
    d.cursor_position = int(Int(w->value, "cursor_position"));
    if (auto ch = w->value.FindMember("choices"); ch != w->value.MemberEnd() && ch->value.IsArray())
      for (const auto& c : ch->value.GetArray())
        if (c.IsString()) d.choices.emplace_back(c.GetString(), c.GetStringLength());
  }
  st.state_version = Int(item, "state_version");
  st.updated_at = Time(item, "updated_at");
  st.last_seen_at = Time(item, "last_seen_at");
  return r;
}

core::Result<RemoteMirror::Applied> RemoteMirror::Apply(std::string_view line) {
  rapidjson::Document d;
  if (auto st = core::ParseJson(line, &d); !st) return Bad(st.error().message);
  if (!d.IsObject()) return Bad("not an object");
  const std::string type = Str(d, "type");
  const std::string stream = Str(d, "stream_id");
  const int64_t sequence = Int(d, "sequence");
  if (type == "reset") {
    awaiting_snapshot_ = true;
    return Applied::kUnchanged;
  }
  if (type == "snapshot") {
    auto items = d.FindMember("items");
    if (items == d.MemberEnd() || !items->value.IsArray()) return Bad("a snapshot without items");
    if (auto st = ApplyItems(items->value, true); !st) return st.error();
    stream_id_ = stream;
    sequence_ = sequence;
    awaiting_snapshot_ = false;
    Render();
    return Applied::kChanged;
  }
  if (type != "delta") return Bad("unknown type '" + type + "'");
  if (awaiting_snapshot_ || stream != stream_id_) return Bad("a delta of stream " + stream + " before its snapshot");
  if (sequence <= sequence_ && !Bool(d, "heartbeat")) {
    ++duplicates_;
    return Applied::kDuplicate;
  }
  sequence_ = std::max(sequence_, sequence);
  auto changes = d.FindMember("changes");
  if (changes == d.MemberEnd() || !changes->value.IsArray() || changes->value.Empty()) return Applied::kUnchanged;
  if (auto st = ApplyChanges(changes->value); !st) return st.error();
  Render();
  return Applied::kChanged;
}

core::Status RemoteMirror::ApplyItems(const rapidjson::Value& items, bool replace) {
  std::map<std::string, std::pair<PaneRow, std::string>> next;
  for (const auto& item : items.GetArray()) {
    auto row = RemotePaneRow(item, target_);
    if (!row) return row.error();
    row->json = PaneJsonPartsOf(*row);
    next[IdentityKey(item["identity"])] = {std::move(*row), Serialize(item)};
  }
  if (replace) panes_ = std::move(next);
  else for (auto& [k, v] : next) panes_[k] = std::move(v);
  return core::Ok();
}

core::Status RemoteMirror::ApplyChanges(const rapidjson::Value& changes) {
  for (const auto& c : changes.GetArray()) {
    if (!c.IsObject()) return Bad("a change is not an object");
    auto id = c.FindMember("identity");
    if (id == c.MemberEnd() || !id->value.IsObject()) return Bad("a change has no identity");
    const std::string op = Str(c, "op");
    if (op == "delete") {
      panes_.erase(IdentityKey(id->value));
    } else if (op == "upsert") {
      auto item = c.FindMember("item");
      if (item == c.MemberEnd()) return Bad("an upsert without item");
      auto row = RemotePaneRow(item->value, target_);
      if (!row) return row.error();
      row->json = PaneJsonPartsOf(*row);
      panes_[IdentityKey(id->value)] = {std::move(*row), Serialize(item->value)};
    } else {
      return Bad("unknown change op '" + op + "'");
    }
  }
  return core::Ok();
}

std::string RemoteMirror::cursor() const {
  return stream_id_.empty() ? std::string() : stream_id_ + ":" + std::to_string(sequence_);
}

void RemoteMirror::SetReachable(bool reachable, core::TimeNs now) {
  if (reachable == reachable_) return;
  reachable_ = reachable;
  unreachable_since_ = reachable ? 0 : now;
  Render();
}

void RemoteMirror::Render() {
  rows_.clear();
  rows_.reserve(panes_.size());
  for (const auto& [key, entry] : panes_) {
    PaneRow r = entry.first;
    if (!reachable_ && r.agent) {
      // The remote is the authority and cannot be asked: say so, keep the
      // layout and the last time anything was heard (last_seen_at).
      r.st.signal = core::Signal{};
      r.st.signal.state = core::State::kUnknown;
      r.st.signal.reason_code = "target_unreachable";
      r.st.has_source = false;
      if (unreachable_since_ != 0) r.st.updated_at = unreachable_since_;
      r.json = PaneJsonPartsOf(r);
    }
    rows_.push_back(std::move(r));
  }
  // In the view's order: the views merge each target's rows as one run.
  std::sort(rows_.begin(), rows_.end(), PaneOrder);
}

std::string RemoteMirror::Save() const {
  JsonOut j;
  j.BeginObject().Key("cursor").Str(cursor()).Key("items").BeginArray();
  for (const auto& [key, entry] : panes_) j.Raw(entry.second);
  j.EndArray().EndObject();
  return j.Take();
}

core::Status RemoteMirror::Load(std::string_view text) {
  rapidjson::Document d;
  if (auto st = core::ParseJson(text, &d); !st) return st.error();
  if (!d.IsObject() || !d.HasMember("items") || !d["items"].IsArray()) return Bad("saved mirror without items");
  if (auto st = ApplyItems(d["items"], true); !st) return st;
  const std::string cursor = Str(d, "cursor");
  const size_t colon = cursor.rfind(':');
  if (colon != std::string::npos) {
    stream_id_ = cursor.substr(0, colon);
    sequence_ = std::strtoll(cursor.c_str() + colon + 1, nullptr, 10);
  }
  Render();
  return core::Ok();
}

}  // namespace agt::agg
