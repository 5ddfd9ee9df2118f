// ForwardRemoteAction and ForwardRemoteLookup (see remote_actions.h).
#include "aggregator/federation/remote_actions.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "aggregator/federation/remote_names.h"
#include "aggregator/http/api_error.h"
#include "libagtcore/base/json.h"
#include "libagtcore/ref.h"

namespace agt::agg {
namespace {

using Value = rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

/// Sets the string member `key` of `obj` (when it is one) to `rename(its text)`.
template <typename Rename>
void RenameMember(Value& obj, const char* key, Allocator& a, Rename rename) {
  if (!obj.IsObject() || !obj.HasMember(key) || !obj[key].IsString()) return;
  const std::string renamed = rename(std::string(obj[key].GetString(), obj[key].GetStringLength()));
  obj[key].SetString(renamed.c_str(), static_cast<rapidjson::SizeType>(renamed.size()), a);
}

/// The remote daemon's answer (an action's, or an action's audit) as the
/// local caller must read it (remote_names.h): the pane's `target` is the
/// local target's name (the remote calls it `host`, which here is this
/// machine), action ids are the ones this daemon looks up, refs in texts
/// name the local target, and an error message says which target refused,
/// so `agtmux respond vm/...` never reads as a refusal of the local daemon.
/// A body that is not a JSON object passes as it is.
std::string LocalAnswer(const std::string& body, const std::string& target) {
  rapidjson::Document d;
  if (!core::ParseJson(body, &d).ok() || !d.IsObject()) return body;
  auto& a = d.GetAllocator();
  auto local_target = [&](const std::string&) { return target; };
  auto local_id = [&](const std::string& id) { return LocalActionId(target, id); };
  auto local_text = [&](const std::string& text) { return LocalNames(text, target); };
  RenameMember(d, "target", a, local_target);
  RenameMember(d, "action_id", a, local_id);
  if (d.HasMember("action")) {  // GET /v1/actions/{id}
    RenameMember(d["action"], "target", a, local_target);
    RenameMember(d["action"], "action_id", a, local_id);
  }
  if (d.HasMember("events") && d["events"].IsArray()) {
    for (Value& e : d["events"].GetArray()) {
      RenameMember(e, "action_id", a, local_id);
      RenameMember(e, "detail", a, local_text);
    }
  }
  if (d.HasMember("error"))
    RenameMember(d["error"], "message", a, [&](const std::string& m) { return "target " + target + ": " + local_text(m); });
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  d.Accept(w);
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

/// Sends `fwd` through `caller` and answers `ex` with the reply in the
/// local names of `target`.
void Forward(const RemoteCaller& caller, net::HttpRequest fwd, const std::string& target, Exchange& ex) {
  auto answer = ex.Defer();
  caller(std::move(fwd), [answer, target](core::Result<net::HttpResponse> r) {
    if (!r) {
      answer->Reply(ErrorResponse(r.error()));
      return;
    }
    HttpResponse out;
    out.status = r->status;
    out.body = LocalAnswer(r->body, target);
    answer->Reply(std::move(out));
  });
}

}  // namespace

bool ForwardRemoteAction(const DaemonCore& core, const std::string& type, const HttpRequest& req, Exchange& ex) {
  rapidjson::Document d;
  if (!core::ParseJson(req.body, &d).ok() || !d.IsObject() || !d.HasMember("ref") || !d["ref"].IsString())
    return false;  // the local service reports what is wrong
  auto ref = core::ParseRef(d["ref"].GetString());
  if (!ref || ref->kind != core::Ref::Kind::kPane) return false;
  const RemoteCaller* caller = core.RemoteCallerFor(ref->target);
  if (!caller) return false;
  // attach runs here: it answers the `ssh -t` command for the pane, as for
  // any ssh target (the remote daemon would attach a client on its host).
  if (type == "attach") return false;
  core::Ref remote = *ref;
  remote.target = "host";  // federation reads the remote's own host target
  d["ref"].SetString(core::FormatRef(remote), d.GetAllocator());
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  d.Accept(w);
  net::HttpRequest fwd;
  fwd.method = "POST";
  fwd.path = "/v1/actions/" + type;
  fwd.content_type = "application/json";
  fwd.body.assign(buf.GetString(), buf.GetSize());
  Forward(*caller, std::move(fwd), ref->target, ex);
  return true;
}

bool ForwardRemoteLookup(const DaemonCore& core, const std::string& id, Exchange& ex) {
  auto forwarded = ParseLocalActionId(id);
  if (!forwarded) return false;
  const RemoteCaller* caller = core.RemoteCallerFor(forwarded->target);
  if (!caller) {
    ex.Reply(ErrorResponse(core::MakeError(
        core::Err::kNotFound, "no action " + id + ": an id <target>/<id> is an action forwarded to a target's agtmuxd, "
                              "and target " + forwarded->target + " is not read through one")));
    return true;
  }
  net::HttpRequest fwd;
  fwd.method = "GET";
  fwd.path = "/v1/actions/" + core::PercentEncode(forwarded->remote_id);
  Forward(*caller, std::move(fwd), forwarded->target, ex);
  return true;
}

}  // namespace agt::agg
