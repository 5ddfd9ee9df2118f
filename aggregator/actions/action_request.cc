// Parsing of an action request body (POST /v1/actions/{type}): every field
// is optional except `ref`; a field of the wrong type, an unknown state or
// signal, or a bad duration is E_PAYLOAD_INVALID naming the field. The
// payload hash (FNV-1a over the body re-serialized without request_ref)
// is what the idempotency check compares.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cinttypes>
#include <cstdio>

#include "aggregator/actions/action_service.h"
#include "libagtcore/base/json.h"
#include "libagtcore/base/timefmt.h"

namespace agt::agg {
namespace {

core::Error Bad(const std::string& field, const std::string& what) {
  return core::MakeError(core::Err::kPayloadInvalid, "field '" + field + "': " + what);
}

std::string Hash(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, h);
  return buf;
}

}  // namespace

core::Result<ActionRequest> ParseActionRequest(std::string_view type, std::string_view body) {
  ActionRequest r;
  r.type = std::string(type);
  rapidjson::Document d;
  if (auto parsed = core::ParseJson(body, &d); !parsed)
    return core::MakeError(core::Err::kPayloadInvalid, "the body must be a JSON object: " + parsed.error().message);
  if (!d.IsObject()) return core::MakeError(core::Err::kPayloadInvalid, "the body must be a JSON object");
  auto str = [&](const char* k, std::string* out) -> core::Status {
    if (!d.HasMember(k)) return core::Ok();
    if (!d[k].IsString()) return Bad(k, "must be a string");
    *out = d[k].GetString();
    return core::Ok();
  };
  auto boolean = [&](const char* k, bool* out) -> core::Status {
    if (!d.HasMember(k)) return core::Ok();
    if (!d[k].IsBool()) return Bad(k, "must be true or false");
    *out = d[k].GetBool();
    return core::Ok();
  };
  auto integer = [&](const char* k, int64_t* out, int64_t lo, int64_t hi) -> core::Status {
    if (!d.HasMember(k)) return core::Ok();
    if (!d[k].IsInt64() || d[k].GetInt64() < lo || d[k].GetInt64() > hi)
      return Bad(k, "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    *out = d[k].GetInt64();
    return core::Ok();
  };
  std::string updated_within, if_state;
  for (auto st : {str("ref", &r.ref), str("request_ref", &r.request_ref), str("snapshot_id", &r.snapshot_id),
                  str("if_runtime", &r.if_runtime), str("if_state", &if_state),
                  str("if_updated_within", &updated_within), boolean("force_stale", &r.force_stale),
                  str("text", &r.text), boolean("paste", &r.paste), boolean("enter", &r.enter),
                  boolean("allow_dangerous", &r.allow_dangerous),
                  integer("enter_delay_ms", &r.enter_delay_ms, 0, 5000), integer("lines", &r.lines, 1, 100000),
                  integer("key_delay_ms", &r.key_delay_ms, 0, 1000),
                  boolean("escapes", &r.escapes), str("mode", &r.mode), str("signal", &r.signal),
                  str("client", &r.client), str("client_socket", &r.client_socket)}) {
    if (!st) return st.error();
  }
  if (r.ref.empty()) return core::MakeError(core::Err::kRefInvalid, "field 'ref' is required");
  if (d.HasMember("keys")) {
    if (!d["keys"].IsArray()) return Bad("keys", "must be an array of tmux key names");
    for (const auto& k : d["keys"].GetArray()) {
      if (!k.IsString() || k.GetStringLength() == 0) return Bad("keys", "every key must be a non-empty string");
      r.keys.emplace_back(k.GetString());
    }
  }
  auto strings = [&](const char* k, std::vector<std::string>* out) -> core::Status {
    if (!d.HasMember(k)) return core::Ok();
    if (!d[k].IsArray()) return Bad(k, "must be an array of strings");
    for (const auto& v : d[k].GetArray()) {
      if (!v.IsString()) return Bad(k, "every entry must be a string");
      out->emplace_back(v.GetString());
    }
    return core::Ok();
  };
  for (auto st : {strings("choices", &r.choices), strings("expect_choices", &r.expect_choices)})
    if (!st) return st.error();
  if (r.type == "respond" && r.choices.empty())
    return Bad("choices", "respond needs at least one choice (a number, yes/no or the option's text)");
  size_t start = 0;
  while (!if_state.empty() && start <= if_state.size()) {
    size_t comma = if_state.find(',', start);
    std::string one = if_state.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    auto s = core::ParseState(one);
    if (!s) return Bad("if_state", "unknown state '" + one + "'");
    r.if_state.push_back(*s);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!updated_within.empty()) {
    auto dur = core::ParseDuration(updated_within);
    if (!dur) return Bad("if_updated_within", dur.error().message);
    r.if_updated_within = *dur;
  }
  if (r.mode != "key" && r.mode != "signal") return Bad("mode", "must be key or signal");
  if (r.signal != "INT" && r.signal != "TERM" && r.signal != "KILL") return Bad("signal", "must be INT, TERM or KILL");
  if (r.type == "send" && r.text.empty() && r.keys.empty() && !r.enter)
    return Bad("text", "send needs text, keys or enter");
  if (d.HasMember("request_ref")) d.RemoveMember("request_ref");
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  d.Accept(w);
  r.payload_hash = Hash(std::string(type) + "\n" + std::string(sb.GetString(), sb.GetSize()));
  return r;
}

}  // namespace agt::agg
