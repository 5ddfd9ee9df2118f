// ForwardRemoteAction (see remote_actions.h).
#include "aggregator/federation/remote_actions.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "aggregator/http/api_error.h"
#include "libagtcore/json.h"
#include "libagtcore/ref.h"

namespace agt::agg {
namespace {

/// The remote daemon's answer as the local caller must read it: the pane's
/// `target` is the local target's name (the remote calls it `host`, which
/// here is this machine), and an error message says which target refused,
/// so `agtmux respond vm/...` never reads as a refusal of the local daemon.
/// A body that is not a JSON object passes as it is.
std::string LocalAnswer(const std::string& body, const std::string& target) {
  rapidjson::Document d;
  if (!core::ParseJson(body, &d).ok() || !d.IsObject()) return body;
  auto& a = d.GetAllocator();
  if (d.HasMember("target") && d["target"].IsString()) d["target"].SetString(target.c_str(), a);
  if (d.HasMember("error") && d["error"].IsObject() && d["error"].HasMember("message") &&
      d["error"]["message"].IsString()) {
    const std::string message = "target " + target + ": " + d["error"]["message"].GetString();
    d["error"]["message"].SetString(message.c_str(), a);
  }
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  d.Accept(w);
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
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
  auto answer = ex.Defer();
  (*caller)(std::move(fwd), [answer, target = ref->target](core::Result<net::HttpResponse> r) {
    if (!r) {
      answer->Reply(ErrorResponse(r.error()));
      return;
    }
    HttpResponse out;
    out.status = r->status;
    out.body = LocalAnswer(r->body, target);
    answer->Reply(std::move(out));
  });
  return true;
}

}  // namespace agt::agg
