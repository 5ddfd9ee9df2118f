// The strict JSON codec of event envelope v1 (the wire form is in event.h).
//
// Every event crosses a process boundary through this file (hooks, the
// wrapper's spool, POST /v1/events), so decoding is strict: a known field
// with the wrong type is rejected with an E_PAYLOAD_INVALID error that
// names it ("field \"signal.state\" must be a string"), unknown fields are
// ignored so newer senders can talk to older daemons, and `null` counts as
// absent for optional fields. Encoding replaces ill-formed UTF-8 (terminal
// text can hold any byte) with U+FFFD so the output is always valid JSON.
#include "libagtcore/event_codec.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "libagtcore/base/json.h"
#include "libagtcore/base/timefmt.h"
#include "libagtcore/base/utf8.h"

namespace agt::core {
namespace {

using Value = rapidjson::Value;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// ---- encoding ----

void Str(Writer& w, std::string_view s) {
  if (IsValidUtf8(s)) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  } else {
    std::string clean = SanitizeUtf8(s);
    w.String(clean.data(), static_cast<rapidjson::SizeType>(clean.size()));
  }
}

void Field(Writer& w, const char* key, std::string_view s) {
  w.Key(key);
  Str(w, s);
}

void TimeField(Writer& w, const char* key, TimeNs t) { Field(w, key, FormatRfc3339(t)); }

void EncodeSignal(Writer& w, const Signal& s) {
  w.StartObject();
  Field(w, "state", StateName(s.state));
  if (!s.reason_code.empty()) Field(w, "reason_code", s.reason_code);
  Field(w, "confidence", ConfidenceName(s.confidence));
  if (!s.rule_id.empty()) Field(w, "rule_id", s.rule_id);
  if (!s.evidence.empty()) Field(w, "evidence", s.evidence);
  if (!s.detail.empty() || s.detail.multi_select || s.detail.cursor_position != 0) {
    w.Key("detail");
    w.StartObject();
    Field(w, "approval_type", s.detail.approval_type);
    Field(w, "details", s.detail.details);
    w.Key("choices");
    w.StartArray();
    for (const std::string& c : s.detail.choices) Str(w, c);
    w.EndArray();
    w.Key("multi_select");
    w.Bool(s.detail.multi_select);
    w.Key("cursor_position");
    w.Int(s.detail.cursor_position);
    w.EndObject();
  }
  w.EndObject();
}

void EncodeRuntime(Writer& w, const RuntimeInfo& r) {
  w.StartObject();
  Field(w, "agent_type", r.agent_type);
  Field(w, "cwd", r.cwd);
  Field(w, "argv_hash", r.argv_hash);
  Field(w, "tmux_socket", r.tmux_socket);
  Field(w, "boot_id", r.boot_id);
  if (!r.agent_version.empty()) Field(w, "agent_version", r.agent_version);
  TimeField(w, "started_at", r.started_at);
  w.Key("pane_epoch");
  w.Int64(r.pane_epoch);
  w.EndObject();
}

void EncodeInto(Writer& w, const Event& e) {
  w.StartObject();
  Field(w, "event_id", e.event_id);
  Field(w, "event_type", e.event_type);
  Field(w, "source", SourceName(e.source));
  Field(w, "dedupe_key", e.dedupe_key);
  if (e.source_event_id) Field(w, "source_event_id", *e.source_event_id);
  if (e.source_seq) {
    w.Key("source_seq");
    w.Int64(*e.source_seq);
  }
  TimeField(w, "event_time", e.event_time);
  if (e.ingested_at != 0) TimeField(w, "ingested_at", e.ingested_at);
  if (!e.runtime_id.empty()) Field(w, "runtime_id", e.runtime_id);
  if (!e.target_id.empty()) Field(w, "target_id", e.target_id);
  if (!e.pane_id.empty()) Field(w, "pane_id", e.pane_id);
  if (e.pid) {
    w.Key("pid");
    w.Int64(*e.pid);
  }
  if (e.start_hint) TimeField(w, "start_hint", *e.start_hint);
  if (!e.action_id.empty()) Field(w, "action_id", e.action_id);
  if (e.signal) {
    w.Key("signal");
    EncodeSignal(w, *e.signal);
  }
  if (e.runtime) {
    w.Key("runtime");
    EncodeRuntime(w, *e.runtime);
  }
  if (e.exit) {
    w.Key("exit");
    w.StartObject();
    w.Key("code");
    w.Int(e.exit->code);
    w.Key("signal");
    w.Int(e.exit->signal);
    w.EndObject();
  }
  if (!e.health.empty()) Field(w, "health", e.health);
  if (!e.raw_payload.empty()) Field(w, "raw_payload", e.raw_payload);
  w.EndObject();
}

// ---- decoding ----

/// Reads the members of one JSON object, naming fields with a dotted prefix
/// ("signal.detail.choices") in errors. The first error sticks; later reads
/// become no-ops so decoders can read straight through and check once.
class ObjectReader {
 public:
  ObjectReader(const Value& obj, std::string prefix)
      : obj_(obj), prefix_(std::move(prefix)) {}

  bool failed() const { return error_.has_value(); }
  Error error() const { return *error_; }
  void Fail(std::string message) {
    if (!error_) error_ = MakeError(Err::kPayloadInvalid, std::move(message));
  }
  std::string Name(const char* key) const { return "\"" + prefix_ + key + "\""; }

  /// The member, or nullptr when absent or null (and for required ones, fails).
  const Value* Find(const char* key, bool required) {
    if (failed()) return nullptr;
    auto it = obj_.FindMember(key);
    if (it == obj_.MemberEnd() || it->value.IsNull()) {
      if (required) Fail("missing " + Name(key));
      return nullptr;
    }
    return &it->value;
  }

  bool String(const char* key, bool required, std::string* out, bool non_empty = false) {
    const Value* v = Find(key, required);
    if (!v) return false;
    if (!v->IsString()) {
      Fail("field " + Name(key) + " must be a string");
      return false;
    }
    out->assign(v->GetString(), v->GetStringLength());
    if (non_empty && out->empty()) {
      Fail("field " + Name(key) + " must not be empty");
      return false;
    }
    return true;
  }

  bool Int64(const char* key, bool required, int64_t* out) {
    const Value* v = Find(key, required);
    if (!v) return false;
    if (!v->IsInt64()) {
      Fail("field " + Name(key) + " must be an integer" +
           (v->IsNumber() ? " in the int64 range" : ""));
      return false;
    }
    *out = v->GetInt64();
    return true;
  }

  bool Int(const char* key, bool required, int* out) {
    const Value* v = Find(key, required);
    if (!v) return false;
    if (!v->IsInt()) {
      Fail("field " + Name(key) + " must be an integer" +
           (v->IsNumber() ? " in the int32 range" : ""));
      return false;
    }
    *out = v->GetInt();
    return true;
  }

  bool Bool(const char* key, bool required, bool* out) {
    const Value* v = Find(key, required);
    if (!v) return false;
    if (!v->IsBool()) {
      Fail("field " + Name(key) + " must be true or false");
      return false;
    }
    *out = v->GetBool();
    return true;
  }

  bool Time(const char* key, bool required, TimeNs* out) {
    std::string text;
    if (!String(key, required, &text)) return false;
    Result<TimeNs> t = ParseRfc3339(text);
    if (!t.ok()) {
      Fail("field " + Name(key) + ": " + t.error().message);
      return false;
    }
    *out = *t;
    return true;
  }

  /// A nested object, or nullptr (absent, null, or wrong type: fails).
  const Value* Object(const char* key, bool required) {
    const Value* v = Find(key, required);
    if (!v) return nullptr;
    if (!v->IsObject()) {
      Fail("field " + Name(key) + " must be an object");
      return nullptr;
    }
    return v;
  }

  const std::string& prefix() const { return prefix_; }

 private:
  const Value& obj_;
  std::string prefix_;
  std::optional<Error> error_;
};

Status DecodeDetail(const Value& obj, const std::string& prefix, WaitingDetail* d) {
  ObjectReader r(obj, prefix);
  r.String("approval_type", false, &d->approval_type);
  r.String("details", false, &d->details);
  if (const Value* choices = r.Find("choices", false)) {
    if (!choices->IsArray()) {
      r.Fail("field " + r.Name("choices") + " must be an array of strings");
    } else {
      for (rapidjson::SizeType i = 0; i < choices->Size(); ++i) {
        const Value& c = (*choices)[i];
        if (!c.IsString()) {
          r.Fail("field " + r.Name("choices") + "[" + std::to_string(i) +
                 "] must be a string");
          break;
        }
        d->choices.emplace_back(c.GetString(), c.GetStringLength());
      }
    }
  }
  r.Bool("multi_select", false, &d->multi_select);
  if (r.Int("cursor_position", false, &d->cursor_position) && d->cursor_position < 0)
    r.Fail("field " + r.Name("cursor_position") + " must be 0 (unknown) or a 1-based index");
  if (r.failed()) return r.error();
  return Ok();
}

Status DecodeSignal(const Value& obj, Signal* s) {
  ObjectReader r(obj, "signal.");
  std::string text;
  if (r.String("state", true, &text)) {
    if (auto st = ParseState(text)) {
      s->state = *st;
    } else {
      r.Fail("unknown state \"" + text + "\" in field " + r.Name("state"));
    }
  }
  r.String("reason_code", false, &s->reason_code);
  if (!r.failed() && s->state == State::kUnknown && s->reason_code.empty())
    r.Fail("field " + r.Name("reason_code") + " is required when the state is \"unknown\"");
  if (r.String("confidence", true, &text)) {
    if (auto c = ParseConfidence(text)) {
      s->confidence = *c;
    } else {
      r.Fail("unknown confidence \"" + text + "\" in field " + r.Name("confidence") +
             " (expected high, medium or low)");
    }
  }
  r.String("rule_id", false, &s->rule_id);
  r.String("evidence", false, &s->evidence);
  if (const Value* d = r.Object("detail", false)) {
    if (Status st = DecodeDetail(*d, "signal.detail.", &s->detail); !st.ok())
      return st.error();
  }
  if (r.failed()) return r.error();
  return Ok();
}

Status DecodeRuntime(const Value& obj, RuntimeInfo* ri) {
  ObjectReader r(obj, "runtime.");
  r.String("agent_type", false, &ri->agent_type);
  r.String("cwd", false, &ri->cwd);
  r.String("argv_hash", false, &ri->argv_hash);
  r.String("tmux_socket", false, &ri->tmux_socket);
  r.String("boot_id", false, &ri->boot_id);
  r.String("agent_version", false, &ri->agent_version);
  r.Time("started_at", false, &ri->started_at);
  r.Int64("pane_epoch", false, &ri->pane_epoch);
  if (r.failed()) return r.error();
  return Ok();
}

Result<Event> DecodeValue(const Value& v) {
  if (!v.IsObject()) return MakeError(Err::kPayloadInvalid, "an event must be a JSON object");
  ObjectReader r(v, "");
  Event e;
  r.String("event_id", true, &e.event_id, true);
  r.String("event_type", true, &e.event_type, true);
  std::string text;
  if (r.String("source", true, &text)) {
    if (auto s = ParseSource(text)) {
      e.source = *s;
    } else {
      r.Fail("unknown source \"" + text + "\" (expected hook, notify, wrapper or poller)");
    }
  }
  r.String("dedupe_key", true, &e.dedupe_key, true);
  if (r.String("source_event_id", false, &text)) e.source_event_id = text;
  int64_t n = 0;
  if (r.Int64("source_seq", false, &n)) e.source_seq = n;
  r.Time("event_time", true, &e.event_time);
  r.Time("ingested_at", false, &e.ingested_at);
  r.String("runtime_id", false, &e.runtime_id);
  r.String("target_id", false, &e.target_id);
  r.String("pane_id", false, &e.pane_id);
  if (r.Int64("pid", false, &n)) e.pid = n;
  TimeNs t = 0;
  if (r.Time("start_hint", false, &t)) e.start_hint = t;
  r.String("action_id", false, &e.action_id);
  if (const Value* s = r.Object("signal", false)) {
    Signal sig;
    if (Status st = DecodeSignal(*s, &sig); !st.ok()) return st.error();
    e.signal = std::move(sig);
  }
  if (const Value* rt = r.Object("runtime", false)) {
    RuntimeInfo ri;
    if (Status st = DecodeRuntime(*rt, &ri); !st.ok()) return st.error();
    e.runtime = std::move(ri);
  }
  if (const Value* x = r.Object("exit", false)) {
    ObjectReader xr(*x, "exit.");
    ExitInfo ex;
    xr.Int("code", false, &ex.code);
    xr.Int("signal", false, &ex.signal);
    if (xr.failed()) return xr.error();
    e.exit = ex;
  }
  if (r.String("health", false, &e.health) && !ParseTargetHealth(e.health))
    r.Fail("field \"health\" must be ok, degraded or down, got \"" + e.health + "\"");
  r.String("raw_payload", false, &e.raw_payload);
  if (r.failed()) return r.error();
  if (e.runtime_id.empty() && (e.target_id.empty() || e.pane_id.empty()))
    return MakeError(Err::kPayloadInvalid,
                     "missing \"runtime_id\" (or both \"target_id\" and \"pane_id\" "
                     "for an event still to be bound)");
  return e;
}

Result<rapidjson::Document> Parse(std::string_view json) {
  rapidjson::Document doc;
  JsonOptions options;
  options.validate_utf8 = true;
  if (Status st = ParseJson(json, &doc, options); !st) return st.error();
  return doc;
}

}  // namespace

std::string EncodeEvent(const Event& e) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  EncodeInto(w, e);
  return std::string(buf.GetString(), buf.GetSize());
}

Result<Event> DecodeEvent(std::string_view json) {
  Result<rapidjson::Document> doc = Parse(json);
  if (!doc.ok()) return doc.error();
  return DecodeValue(*doc);
}

namespace {

Result<std::vector<Event>> DecodeBatchValue(const Value& v) {
  const Value* arr = &v;
  if (arr->IsObject()) {
    auto it = arr->FindMember("events");
    if (it == arr->MemberEnd())
      return MakeError(Err::kPayloadInvalid, "missing \"events\"");
    arr = &it->value;
  }
  if (!arr->IsArray())
    return MakeError(Err::kPayloadInvalid,
                     "a batch must be a JSON array of events or {\"events\": [...]}");
  std::vector<Event> out;
  out.reserve(arr->Size());
  for (rapidjson::SizeType i = 0; i < arr->Size(); ++i) {
    Result<Event> e = DecodeValue((*arr)[i]);
    if (!e.ok())
      return MakeError(Err::kPayloadInvalid,
                       "event " + std::to_string(i) + ": " + e.error().message);
    out.push_back(std::move(e).value());
  }
  return out;
}

}  // namespace

Result<std::vector<Event>> DecodeEventBatch(std::string_view json) {
  Result<rapidjson::Document> doc = Parse(json);
  if (!doc.ok()) return doc.error();
  return DecodeBatchValue(*doc);
}

Result<std::vector<Event>> DecodeEvents(std::string_view json, int64_t* dropped) {
  Result<rapidjson::Document> doc = Parse(json);
  if (!doc.ok()) return doc.error();
  if (dropped != nullptr) {
    *dropped = 0;
    if (doc->IsObject()) {
      auto d = doc->FindMember("dropped");
      if (d != doc->MemberEnd() && d->value.IsInt64() && d->value.GetInt64() > 0) *dropped = d->value.GetInt64();
    }
  }
  if (doc->IsArray() || (doc->IsObject() && doc->HasMember("events"))) return DecodeBatchValue(*doc);
  Result<Event> one = DecodeValue(*doc);
  if (!one.ok()) return one.error();
  std::vector<Event> out;
  out.push_back(std::move(one).value());
  return out;
}

}  // namespace agt::core
