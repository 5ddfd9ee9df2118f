// API v1 handlers (see api.h and docs/api.md). Each read handler parses the
// view filters of docs/spec.md §11 from the query, renders the view from the daemon core
// and wraps it in the common envelope: schema_version, generated_at,
// filters, summary, the partial-result fields, items.
#include "aggregator/api/api.h"
#include "aggregator/api/action_api.h"

#include <rapidjson/document.h>
#include <unistd.h>

#include <map>

#include "aggregator/http/api_error.h"
#include "aggregator/api/tmux_follow.h"
#include "aggregator/targets/ssh_executor.h"
#include "libagtcore/event_codec.h"
#include "libagtcore/base/json.h"
#include "libagtcore/ref.h"

namespace agt::agg {
namespace {

HttpResponse Json(int status, std::string body) {
  body.push_back('\n');
  return HttpResponse{status, "application/json", std::move(body)};
}

HttpResponse Error(int status, core::Err code, std::string message) {
  return ErrorResponse(status, core::MakeError(code, std::move(message)));
}

class Api {
 public:
  explicit Api(ApiContext ctx) : ctx_(std::move(ctx)) {}
  // The server (and with it this handler) goes before the loop is closed:
  // no action may reach the loop after that.
  ~Api() { StopActions(ctx_.core); }
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  void Handle(const HttpRequest& req, Exchange& ex) {
    const std::string& p = req.path;
    auto method_is = [&](const char* m) { return req.method == m; };
    auto wrong_method = [&](const char* allowed) {
      ex.Reply(Error(405, core::Err::kRequestInvalid,
                     req.method + " is not allowed on " + p + " (allowed: " + allowed + ")"));
    };
    if (p == "/v1/health") return method_is("GET") ? ex.Reply(Health()) : wrong_method("GET");
    if (p == "/v1/panes" || p == "/v1/windows" || p == "/v1/sessions") {
      if (!method_is("GET")) return wrong_method("GET");
      return ex.Reply(Read(*ParseScope(p.substr(4)), req));
    }
    if (p == "/v1/watch") {
      if (!method_is("GET")) return wrong_method("GET");
      return ctx_.core->watch().Serve(req, ex);
    }
    if (p == "/v1/explain") return method_is("GET") ? ex.Reply(Explain(req)) : wrong_method("GET");
    if (p == "/v1/events") return method_is("POST") ? ex.Reply(PostEvents(req)) : wrong_method("POST");
    if (p == "/v1/follow") return method_is("POST") ? ex.Reply(Follow(req)) : wrong_method("POST");
    if (p == "/v1/targets") {
      if (method_is("GET")) return ex.Reply(Targets());
      if (method_is("POST")) return ex.Reply(AddTarget(req));
      return wrong_method("GET, POST");
    }
    const std::string prefix = "/v1/targets/";
    if (p.compare(0, prefix.size(), prefix) == 0) {
      std::string rest = p.substr(prefix.size());
      const std::string connect = "/connect";
      if (rest.size() > connect.size() && rest.compare(rest.size() - connect.size(), connect.size(), connect) == 0) {
        if (!method_is("POST")) return wrong_method("POST");
        return ex.Reply(Connect(rest.substr(0, rest.size() - connect.size())));
      }
      if (rest.find('/') == std::string::npos && !rest.empty()) {
        if (!method_is("DELETE")) return wrong_method("DELETE");
        return ex.Reply(RemoveTarget(rest));
      }
    }
    if (ServeActions(ctx_, req, ex)) return;
    ex.Reply(Error(404, core::Err::kNotFound, "no such endpoint: " + req.method + " " + p));
  }

 private:
  core::TimeNs Now() const { return ctx_.clock->Now(); }

  HttpResponse Health() {
    DaemonCore& c = *ctx_.core;
    std::vector<PaneRow> rows = c.Rows();
    int64_t agents = 0;
    for (const auto& r : rows) agents += r.agent;
    core::TimeNs now = Now();
    JsonOut j;
    j.BeginObject();
    j.Key("schema_version").Int(1).Key("generated_at").Time(now);
    j.Key("status").Str("ok").Key("version").Str(AGTMUX_VERSION);
    j.Key("pid").Int(getpid()).Key("started_at").Time(ctx_.started_at);
    j.Key("uptime_seconds").Int((now - ctx_.started_at) / core::kNsPerSec);
    j.Key("socket_path").Str(ctx_.socket_path);
    j.Key("stream_id").Str(c.watch().stream_id()).Key("sequence").Int(c.watch().sequence());
    j.Key("engine").Str(c.state().name()).Key("persistence").Str(c.persistence().name());
    j.Key("targets").Int(static_cast<int64_t>(c.targets().all().size()));
    j.Key("panes").Int(static_cast<int64_t>(rows.size())).Key("agent_panes").Int(agents);
    j.Key("watchers").Int(static_cast<int64_t>(c.watch().subscriber_count()));
    j.Key("events_ingested").Int(c.events_ingested());
    j.Key("store_error");
    c.store_error().empty() ? j.Null() : j.Str(c.store_error());
    j.Key("events_dropped").Int(c.drops().total()).Key("dropped").BeginObject();
    for (size_t i = 0; i < kDropReasons; ++i) {
      const auto reason = static_cast<DropReason>(i);
      j.Key(std::string(DropReasonName(reason))).Int(c.drops().count(reason));
    }
    j.EndObject();
    j.EndObject();
    return Json(200, j.Take());
  }

  HttpResponse Read(Scope scope, const HttpRequest& req) {
    auto f = ParseViewFilter(req.query);
    if (!f) return ErrorResponse(400, f.error());
    for (const auto& t : f->targets)
      if (!ctx_.core->targets().Find(t))
        return Error(404, core::Err::kTargetInvalid, "unknown target '" + t + "' (see agtmux target list)");
    std::vector<PaneRow> rows = ctx_.core->Rows();
    core::TimeNs now = Now();
    JsonOut j;
    j.BeginObject();
    j.Key("schema_version").Int(1).Key("generated_at").Time(now);
    j.Key("scope").Str(ScopeName(scope));
    j.Key("filters");
    WriteFilters(j, *f);
    j.Key("summary");
    WriteSummary(j, rows, *f);
    WritePartial(j, ctx_.core->targets(), *f);
    j.Key("items").BeginArray();
    WriteItems(j, scope, rows, *f, now);
    j.EndArray();
    j.EndObject();
    return Json(200, j.Take());
  }

  /// One target's item; `rows` = the daemon's rows (one collection for
  /// every target of a listing).
  void WriteTarget(JsonOut& j, const TargetStatus& t, const std::vector<PaneRow>& rows) {
    int64_t panes = 0, agents = 0;
    for (const auto& r : rows) {
      if (r.target != t.spec.name) continue;
      panes += r.in_topology;
      agents += r.agent;
    }
    const auto& topo = ctx_.core->topologies();
    auto it = topo.find(t.spec.name);
    j.BeginObject();
    j.Key("name").Str(t.spec.name).Key("kind").Str(t.spec.kind);
    j.Key("tmux_socket").Str(t.spec.tmux_socket).Key("ssh_target").Str(t.spec.ssh_target);
    j.Key("via").Str(t.spec.via);
    j.Key("default").Bool(t.spec.name == "host");
    j.Key("health").Str(core::TargetHealthName(t.health)).Key("error");
    t.error.empty() ? j.Null() : j.Str(t.error);
    // The error as one word (SshFailureReason), for scripts and the UI.
    const std::string_view reason = t.spec.kind == "ssh" ? SshFailureReason(t.error) : std::string_view();
    j.Key("reason");
    reason.empty() ? j.Null() : j.Str(std::string(reason));
    j.Key("connected").Bool(t.connected);
    j.Key("server_running").Bool(it != topo.end() && it->second.server_running);
    // "none": the collector found no server at the socket (not an error for
    // the collector, but nothing is watched); "unknown": no read yet.
    j.Key("server").Str(it == topo.end() ? "unknown" : it->second.server_running ? "running" : "none");
    j.Key("pane_count").Int(panes).Key("agent_pane_count").Int(agents);
    j.EndObject();
  }

  HttpResponse Targets() {
    JsonOut j;
    j.BeginObject().Key("schema_version").Int(1).Key("generated_at").Time(Now());
    j.Key("items").BeginArray();
    const std::vector<PaneRow> rows = ctx_.core->Rows();
    for (const auto& t : ctx_.core->targets().all()) WriteTarget(j, t, rows);
    j.EndArray().EndObject();
    return Json(200, j.Take());
  }

  HttpResponse OneTarget(int status, const std::string& name) {
    const TargetStatus* t = ctx_.core->targets().Find(name);
    JsonOut j;
    j.BeginObject().Key("schema_version").Int(1).Key("generated_at").Time(Now()).Key("target");
    WriteTarget(j, *t, ctx_.core->Rows());
    j.EndObject();
    return Json(status, j.Take());
  }

  HttpResponse AddTarget(const HttpRequest& req) {
    rapidjson::Document d;
    if (auto parsed = core::ParseJson(req.body, &d); !parsed)
      return Error(400, core::Err::kPayloadInvalid, "body must be a JSON object {\"name\",\"kind\",...}: " +
                                                        parsed.error().message);
    if (!d.IsObject())
      return Error(400, core::Err::kPayloadInvalid, "body must be a JSON object {\"name\",\"kind\",...}");
    TargetSpec spec;
    for (auto [key, out] : {std::pair{"name", &spec.name}, std::pair{"kind", &spec.kind},
                            std::pair{"tmux_socket", &spec.tmux_socket},
                            std::pair{"ssh_target", &spec.ssh_target}, std::pair{"via", &spec.via}}) {
      if (!d.HasMember(key)) continue;
      if (!d[key].IsString())
        return Error(400, core::Err::kPayloadInvalid, std::string("field '") + key + "' must be a string");
      *out = d[key].GetString();
    }
    if (spec.kind.empty()) spec.kind = spec.ssh_target.empty() ? "local" : "ssh";
    return AddSpec(spec);
  }

  // POST /v1/follow {"tmux_socket"}: the CLI's $TMUX server gets watched
  // (tmux_follow.h); 200 with the target that already watches it, else 201
  // with the target added for it.
  HttpResponse Follow(const HttpRequest& req) {
    rapidjson::Document d;
    if (auto parsed = core::ParseJson(req.body, &d); !parsed || !d.IsObject() || !d.HasMember("tmux_socket") ||
                                                     !d["tmux_socket"].IsString())
      return Error(400, core::Err::kPayloadInvalid, "body must be a JSON object {\"tmux_socket\": \"/path\"}");
    auto plan = PlanFollow(ctx_.core->targets(), d["tmux_socket"].GetString());
    if (!plan) return ErrorResponse(400, plan.error());
    if (!plan->watched_by.empty()) return OneTarget(200, plan->watched_by);
    return AddSpec(plan->add);
  }

  // A wrapper or a hook run in a tmux server that no local target watches
  // (the shell alias starts `agtmux wrap claude` in `tmux -L work`, and no
  // other agtmux command was typed there) reports target "host" and its
  // $TMUX socket. That server gets watched, as /v1/follow would, and the
  // event is filed under its target: as a pane of "host" its %N would name
  // another server's pane. A socket that is gone (a spooled event of a
  // server since ended) or not this user's is left as it was.
  void FollowReportedServers(std::vector<core::Event>* events) {
    std::map<std::string, std::string> decided;  // socket -> target ("" = leave)
    for (core::Event& e : *events) {
      bool outside = e.source == core::Source::kWrapper || e.source == core::Source::kHook ||
                     e.source == core::Source::kNotify;
      if (!outside || !e.runtime || e.runtime->tmux_socket.empty() || e.target_id != "host") continue;
      const std::string& socket = e.runtime->tmux_socket;
      auto it = decided.find(socket);
      if (it == decided.end()) it = decided.emplace(socket, FollowSocket(socket)).first;
      if (!it->second.empty()) e.target_id = it->second;
    }
  }

  /// The local target that watches `socket`, added when none does; "" for
  /// host or when the socket cannot be followed.
  std::string FollowSocket(const std::string& socket) {
    // The usual case, a server already watched under the path it reports,
    // costs no stat() (a hook sends its socket with every event).
    for (const TargetStatus& t : ctx_.core->targets().all())
      if (t.spec.kind == "local" && t.spec.tmux_socket == socket) return t.spec.name == "host" ? "" : t.spec.name;
    auto plan = PlanFollow(ctx_.core->targets(), socket);
    if (!plan) return "";
    if (!plan->watched_by.empty()) return plan->watched_by == "host" ? "" : plan->watched_by;
    if (AddSpec(plan->add).status != 201) return "";
    return plan->add.name;
  }

  HttpResponse AddSpec(const TargetSpec& spec) {
    if (auto st = ctx_.core->targets().Add(spec); !st) {
      bool exists = st.error().message.find("already exists") != std::string::npos;
      return ErrorResponse(exists ? 409 : 400, st.error());
    }
    if (ctx_.connect_target) {
      if (auto st = ctx_.connect_target(spec); !st) {
        if (TargetStatus* t = ctx_.core->targets().Find(spec.name)) {
          t->health = core::TargetHealth::kDown;
          t->error = st.error().message;
        }
      }
    }
    return OneTarget(201, spec.name);
  }

  HttpResponse Connect(const std::string& name) {
    TargetStatus* t = ctx_.core->targets().Find(name);
    if (!t) return Error(404, core::Err::kNotFound, "no target named '" + name + "'");
    if (ctx_.connect_target) {
      if (auto st = ctx_.connect_target(t->spec); !st) {
        t->health = core::TargetHealth::kDown;
        t->error = st.error().message;
        return ErrorResponse(502, core::MakeError(core::Err::kTargetUnreachable, st.error().message));
      }
    }
    return OneTarget(200, name);
  }

  HttpResponse RemoveTarget(const std::string& name) {
    if (auto st = ctx_.core->targets().Remove(name); !st) return ErrorResponse(st.error());
    if (ctx_.disconnect_target) ctx_.disconnect_target(name);
    ctx_.core->RemoveTarget(name);
    JsonOut j;
    j.BeginObject().Key("schema_version").Int(1).Key("generated_at").Time(Now());
    j.Key("removed").Str(name).EndObject();
    return Json(200, j.Take());
  }

  HttpResponse PostEvents(const HttpRequest& req) {
    int64_t dropped = 0;
    auto events = core::DecodeEvents(req.body, &dropped);
    if (!events) return ErrorResponse(400, events.error());
    FollowReportedServers(&*events);
    auto results = ctx_.core->Ingest(std::move(*events));
    if (!results) return ErrorResponse(500, results.error());
    // A producer reports, with a delivered batch, the events it had to drop
    // while it could neither deliver nor spool them (docs/api.md).
    if (dropped > 0) ctx_.core->drops().Add(DropReason::kProducer, dropped);
    JsonOut j;
    j.BeginObject().Key("schema_version").Int(1).Key("results").BeginArray();
    for (const IngestResult& r : *results) {
      j.BeginObject().Key("event_id").Str(r.event_id).Key("disposition").Str(DispositionName(r.disposition));
      if (!r.error_code.empty()) j.Key("error_code").Str(r.error_code);
      j.EndObject();
    }
    j.EndArray().EndObject();
    return Json(200, j.Take());
  }

  HttpResponse Explain(const HttpRequest& req) {
    auto it = req.query.find("ref");
    if (it == req.query.end()) return Error(400, core::Err::kRefInvalid, "query parameter 'ref' is required");
    auto ref = core::ParseRef(it->second);
    if (!ref) return ErrorResponse(400, ref.error());
    const EngineSeam& st = ctx_.core->state();
    std::vector<PaneRow> rows = ctx_.core->Rows();
    const PaneRow* row = nullptr;
    for (const PaneRow& r : rows) {
      bool match = ref->kind == core::Ref::Kind::kRuntime
                       ? r.agent && r.runtime_id == ref->runtime_id
                       : r.target == ref->target && r.pane_id == ref->pane_id &&
                             (!r.in_topology || (r.session_name == ref->session && r.window_id == ref->window_id));
      if (match) {
        row = &r;
        break;
      }
    }
    if (!row) return Error(404, core::Err::kRefNotFound, "no pane matches " + it->second);
    core::TimeNs now = Now();
    JsonOut j;
    j.BeginObject().Key("schema_version").Int(1).Key("generated_at").Time(now);
    j.Key("ref").Str(it->second);
    j.Key("identity").BeginObject();
    j.Key("target").Str(row->target).Key("session_name").Str(row->session_name);
    j.Key("window_id").Str(row->window_id).Key("pane_id").Str(row->pane_id).EndObject();
    j.Key("agent").Bool(row->agent);
    if (!row->agent) {
      j.Key("state").Str("unknown").Key("reason_code").Str("no_agent");
      j.Key("why").Str("no agent runtime is active in this pane").EndObject();
      return Json(200, j.Take());
    }
    const state::Runtime* rt = st.FindRuntime(row->runtime_id);
    j.Key("runtime").BeginObject();
    j.Key("runtime_id").Str(row->runtime_id).Key("agent_type").Str(row->agent_type);
    j.Key("pid");
    row->runtime_pid ? j.Int(*row->runtime_pid) : j.Null();
    j.Key("owner").Str(rt ? core::SourceName(rt->owner) : "unknown");
    j.Key("agent_version");
    row->agent_version.empty() ? j.Null() : j.Str(row->agent_version);
    j.Key("started_at").Time(rt ? rt->started_at : 0).EndObject();
    WriteVerification(j, row->agent_type, row->agent_version);
    const state::PaneState& ps = row->st;
    j.Key("state").Str(core::StateName(ps.signal.state));
    j.Key("reason_code");
    ps.signal.reason_code.empty() ? j.Null() : j.Str(ps.signal.reason_code);
    j.Key("source");
    ps.has_source ? j.Str(core::SourceColumn(ps.source)) : j.Null();
    j.Key("state_version").Int(ps.state_version).Key("updated_at").Time(ps.updated_at);
    j.Key("candidates").BeginArray();
    std::string why;
    for (const state::Candidate& c : st.Candidates(row->runtime_id)) {
      bool winner = ps.has_source && c.source == ps.source;
      j.BeginObject();
      j.Key("source").Str(core::SourceName(c.source)).Key("column").Str(core::SourceColumn(c.source));
      j.Key("state").Str(core::StateName(c.signal.state));
      j.Key("confidence").Str(core::ConfidenceName(c.signal.confidence));
      j.Key("rule_id").Str(c.signal.rule_id).Key("evidence").Str(c.signal.evidence);
      j.Key("reason_code").Str(c.signal.reason_code).Key("event_id").Str(c.event_id);
      j.Key("seen_at").Time(c.seen_at).Key("age_seconds").Int((now - c.seen_at) / core::kNsPerSec);
      j.Key("stale").Bool(c.stale).Key("winner").Bool(winner);
      j.EndObject();
      if (winner && ps.signal.rule_id == state::fusion_rule::kAnsweredWait) {
        why = std::string(core::SourceColumn(c.source)) + " (" + std::string(core::SourceName(c.source)) +
              ") said " + std::string(core::StateName(c.signal.state)) +
              "; the screen saw that dialog go and cannot read what followed, so the turn goes on: " +
              "running (" + std::string(state::fusion_rule::kAnsweredWait) + ")";
      } else if (winner) {
        why = std::string(core::SourceColumn(c.source)) + " (" + std::string(core::SourceName(c.source)) +
              ") decided " + std::string(core::StateName(c.signal.state)) +
              (c.signal.rule_id.empty() ? "" : " by rule " + c.signal.rule_id) + " with " +
              std::string(core::ConfidenceName(c.signal.confidence)) +
              " confidence; it has the highest precedence among the fresh candidates";
      }
    }
    j.EndArray();
    if (why.empty()) {
      why = ps.signal.state == core::State::kUnknown
                ? "no fresh candidate decides: unknown (" + ps.signal.reason_code + ")"
                : "decided by " + (ps.signal.rule_id.empty() ? std::string("the engine") : "rule " + ps.signal.rule_id);
    }
    j.Key("why").Str(why);
    j.EndObject();
    return Json(200, j.Take());
  }

  ApiContext ctx_;
};

}  // namespace

Handler MakeApiHandler(ApiContext ctx) {
  auto api = std::make_shared<Api>(std::move(ctx));
  return [api](const HttpRequest& req, Exchange& ex) { api->Handle(req, ex); };
}

}  // namespace agt::agg
