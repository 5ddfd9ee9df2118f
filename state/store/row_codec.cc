// The store's JSON column formats (see row_codec.h). Decoding is strict
// about types, because a column that does not parse means the file was
// written by something else: the error names the column field so a corrupt
// row can be found.
#include "state/store/row_codec.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "libagtcore/base/json.h"

namespace agt::state {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
using core::Err;
using core::MakeError;

void Str(Writer& w, const char* key, std::string_view v) {
  w.Key(key);
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

void WriteDetail(Writer& w, const core::WaitingDetail& d) {
  w.StartObject();
  Str(w, "approval_type", d.approval_type);
  Str(w, "details", d.details);
  w.Key("choices");
  w.StartArray();
  for (const auto& c : d.choices) w.String(c.data(), static_cast<rapidjson::SizeType>(c.size()));
  w.EndArray();
  w.Key("multi_select");
  w.Bool(d.multi_select);
  w.Key("cursor_position");
  w.Int(d.cursor_position);
  w.EndObject();
}

core::Error Bad(std::string_view what, std::string_view field) {
  return MakeError(Err::kStore, "stored " + std::string(what) + " JSON: bad field `" +
                                    std::string(field) + "`");
}

core::Result<rapidjson::Document> Parse(std::string_view json, std::string_view what) {
  rapidjson::Document doc;
  if (!core::ParseJson(json, &doc) || !doc.IsObject()) {
    return MakeError(Err::kStore, "stored " + std::string(what) + " JSON does not parse");
  }
  return doc;
}

bool GetStr(const rapidjson::Value& o, const char* key, std::string* out) {
  auto it = o.FindMember(key);
  if (it == o.MemberEnd()) return true;  // absent: keep the default
  if (!it->value.IsString()) return false;
  out->assign(it->value.GetString(), it->value.GetStringLength());
  return true;
}

template <typename Int>
bool GetInt(const rapidjson::Value& o, const char* key, Int* out) {
  auto it = o.FindMember(key);
  if (it == o.MemberEnd()) return true;
  if (!it->value.IsInt64()) return false;
  *out = static_cast<Int>(it->value.GetInt64());
  return true;
}

core::Result<core::WaitingDetail> ReadDetail(const rapidjson::Value& o) {
  core::WaitingDetail d;
  if (!o.IsObject()) return Bad("detail", "detail");
  if (!GetStr(o, "approval_type", &d.approval_type)) return Bad("detail", "approval_type");
  if (!GetStr(o, "details", &d.details)) return Bad("detail", "details");
  if (auto it = o.FindMember("choices"); it != o.MemberEnd()) {
    if (!it->value.IsArray()) return Bad("detail", "choices");
    for (const auto& c : it->value.GetArray()) {
      if (!c.IsString()) return Bad("detail", "choices");
      d.choices.emplace_back(c.GetString(), c.GetStringLength());
    }
  }
  if (auto it = o.FindMember("multi_select"); it != o.MemberEnd()) {
    if (!it->value.IsBool()) return Bad("detail", "multi_select");
    d.multi_select = it->value.GetBool();
  }
  if (!GetInt(o, "cursor_position", &d.cursor_position)) return Bad("detail", "cursor_position");
  return d;
}

}  // namespace

std::string EncodeDetail(const core::WaitingDetail& d) {
  if (d == core::WaitingDetail{}) return {};
  rapidjson::StringBuffer buf;
  Writer w(buf);
  WriteDetail(w, d);
  return std::string(buf.GetString(), buf.GetSize());
}

core::Result<core::WaitingDetail> DecodeDetail(std::string_view json) {
  if (json.empty()) return core::WaitingDetail{};
  auto doc = Parse(json, "detail");
  if (!doc.ok()) return doc.error();
  return ReadDetail(*doc);
}

std::string EncodeSignal(const core::Signal& s) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  Str(w, "state", core::StateName(s.state));
  Str(w, "reason_code", s.reason_code);
  Str(w, "confidence", core::ConfidenceName(s.confidence));
  Str(w, "rule_id", s.rule_id);
  Str(w, "evidence", s.evidence);
  if (!(s.detail == core::WaitingDetail{})) {
    w.Key("detail");
    WriteDetail(w, s.detail);
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

core::Result<core::Signal> DecodeSignal(std::string_view json) {
  auto doc = Parse(json, "signal");
  if (!doc.ok()) return doc.error();
  core::Signal s;
  std::string name;
  if (!GetStr(*doc, "state", &name)) return Bad("signal", "state");
  auto st = core::ParseState(name);
  if (!st) return Bad("signal", "state");
  s.state = *st;
  name.clear();
  if (!GetStr(*doc, "confidence", &name)) return Bad("signal", "confidence");
  auto conf = core::ParseConfidence(name);
  if (!conf) return Bad("signal", "confidence");
  s.confidence = *conf;
  if (!GetStr(*doc, "reason_code", &s.reason_code)) return Bad("signal", "reason_code");
  if (!GetStr(*doc, "rule_id", &s.rule_id)) return Bad("signal", "rule_id");
  if (!GetStr(*doc, "evidence", &s.evidence)) return Bad("signal", "evidence");
  if (auto it = doc->FindMember("detail"); it != doc->MemberEnd()) {
    auto d = ReadDetail(it->value);
    if (!d.ok()) return d.error();
    s.detail = std::move(*d);
  }
  return s;
}

std::string EncodeRuntimeInfo(const core::RuntimeInfo& r) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  Str(w, "agent_type", r.agent_type);
  Str(w, "cwd", r.cwd);
  Str(w, "argv_hash", r.argv_hash);
  Str(w, "tmux_socket", r.tmux_socket);
  Str(w, "boot_id", r.boot_id);
  if (!r.agent_version.empty()) Str(w, "agent_version", r.agent_version);
  w.Key("started_at");
  w.Int64(r.started_at);
  w.Key("pane_epoch");
  w.Int64(r.pane_epoch);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

core::Result<core::RuntimeInfo> DecodeRuntimeInfo(std::string_view json) {
  auto doc = Parse(json, "runtime");
  if (!doc.ok()) return doc.error();
  core::RuntimeInfo r;
  if (!GetStr(*doc, "agent_type", &r.agent_type)) return Bad("runtime", "agent_type");
  if (!GetStr(*doc, "cwd", &r.cwd)) return Bad("runtime", "cwd");
  if (!GetStr(*doc, "argv_hash", &r.argv_hash)) return Bad("runtime", "argv_hash");
  if (!GetStr(*doc, "tmux_socket", &r.tmux_socket)) return Bad("runtime", "tmux_socket");
  if (!GetStr(*doc, "boot_id", &r.boot_id)) return Bad("runtime", "boot_id");
  if (doc->HasMember("agent_version") && !GetStr(*doc, "agent_version", &r.agent_version))
    return Bad("runtime", "agent_version");
  if (!GetInt(*doc, "started_at", &r.started_at)) return Bad("runtime", "started_at");
  if (!GetInt(*doc, "pane_epoch", &r.pane_epoch)) return Bad("runtime", "pane_epoch");
  return r;
}

std::string EncodeExitInfo(const core::ExitInfo& x) {
  return "{\"code\":" + std::to_string(x.code) + ",\"signal\":" + std::to_string(x.signal) + "}";
}

core::Result<core::ExitInfo> DecodeExitInfo(std::string_view json) {
  auto doc = Parse(json, "exit");
  if (!doc.ok()) return doc.error();
  core::ExitInfo x;
  if (!GetInt(*doc, "code", &x.code)) return Bad("exit", "code");
  if (!GetInt(*doc, "signal", &x.signal)) return Bad("exit", "signal");
  return x;
}

}  // namespace agt::state
