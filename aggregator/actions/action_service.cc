// The action service: resolve the ref, record the action and its snapshot,
// check snapshot, guards and send policy, execute through tmux by argv,
// and store the result so a replayed request gets the same answer. Every
// refusal is recorded like a success: the audit trail has both.
#include "aggregator/actions/action_service.h"
#include "aggregator/actions/action_run.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <optional>

#include "aggregator/http/api_error.h"
#include "aggregator/http/json_writer.h"
#include "aggregator/observe/collector_ssh.h"
#include "libagtcore/ids.h"
#include "libagtcore/base/json.h"
#include "libagtcore/redact.h"
#include "libagtcore/ref.h"
#include "libagtcore/base/shell.h"
#include "state/store/redact_fallback.h"

namespace agt::agg {

namespace {

ActionReply ErrorReply(const core::Error& e) { return ErrorResponse(e); }

core::Error Fail(core::Err code, std::string msg) { return core::MakeError(code, std::move(msg)); }

std::string Nonce(core::TimeNs now) {
  std::string u = core::NewUlid(now);
  return u.substr(u.size() - 16);
}

std::string TrimRight(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

/// What delivery verification looks for: the last non-empty line of the
/// text, at most 40 bytes of its tail (a long line wraps on screen).
std::string Probe(const std::string& text) {
  std::string t = TrimRight(text);
  size_t nl = t.rfind('\n');
  if (nl != std::string::npos) t = t.substr(nl + 1);
  size_t a = t.find_first_not_of(' ');
  t = a == std::string::npos ? "" : t.substr(a);
  if (t.size() > 40) {
    size_t cut = t.size() - 40;
    while (cut < t.size() && (static_cast<unsigned char>(t[cut]) & 0xC0) == 0x80) ++cut;  // whole code points
    t = t.substr(cut);
  }
  return t;
}

}  // namespace

core::Status RunTmux(TargetExecutor& ex, const std::vector<std::string>& prefix, std::vector<std::string> args,
                     std::string* out, std::string stdin_data) {
  std::vector<std::string> argv = prefix;
  argv.insert(argv.end(), args.begin(), args.end());
  ExecOptions o;
  o.stdin_data = std::move(stdin_data);
  auto r = ex.Run(argv, o);
  if (!r) return r.error();
  if (r->exit_code != 0) {
    std::string err = r->err;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    return core::MakeError(core::Err::kIo,
                           "tmux " + args[0] + " failed (exit " + std::to_string(r->exit_code) + "): " + err);
  }
  if (out) *out = std::move(r->out);
  return core::Ok();
}

std::vector<std::string> TmuxArgv(const TargetStatus& target) {
  if (target.spec.tmux_socket.empty()) return {"tmux"};
  return {"tmux", "-S", target.spec.tmux_socket};
}

core::Result<std::unique_ptr<ActionService>> ActionService::Create(ActionWorld* world, const core::Clock& clock,
                                                                   ActionOptions options) {
  std::unique_ptr<state::Store> own;
  if (!options.store) {
    state::StoreOptions so;
    so.path = options.db_path;
    so.durability = state::Durability::kNormal;
    // The same rules as agtmux.db (the store's fallback knows fewer shapes).
    if (auto r = core::Redactor::LoadBuiltin(); r.ok())
      so.redact = state::PatternRedactor(std::make_shared<const core::Redactor>(std::move(*r)));
    auto store = state::Store::Open(so);
    if (!store) return store.error();
    own = std::move(*store);
  }
  // The spec's defaults name `dd if=/dev/` too; add it while the block list
  // is the built-in one (a user's own list is taken as it is).
  if (options.send_policy.block == core::Config::DefaultSendPolicy().block)
    options.send_policy.block.push_back(R"(\bdd\s+(.*\s)?if=/dev/)");
  auto policy = SendPolicy::Create(options.send_policy);
  if (!policy) return policy.error();
  if (!options.runner) options.runner = MakeInlineRunner();
  return std::unique_ptr<ActionService>(
      new ActionService(world, clock, std::move(options), std::move(own), std::move(*policy)));
}

ActionService::ActionService(ActionWorld* world, const core::Clock& clock, ActionOptions options,
                             std::unique_ptr<state::Store> own_store, SendPolicy policy)
    : world_(world), clock_(clock), options_(std::move(options)), own_store_(std::move(own_store)),
      store_(options_.store ? options_.store : own_store_.get()), policy_(std::move(policy)) {}

void ActionService::Post(std::string_view type, std::string_view body, ActionReplyFn reply) {
  if (type != "send" && type != "respond" && type != "attach" && type != "view-output" && type != "kill" &&
      type != "snapshot")
    return reply(ErrorReply(Fail(core::Err::kNotFound, "no such action: " + std::string(type) +
                                                           " (send, respond, attach, view-output, kill, snapshot)")));
  auto req = ParseActionRequest(type, body);
  if (!req) return reply(ErrorReply(req.error()));
  std::string ref_key;
  if (!req->request_ref.empty() && req->type != "snapshot") {
    ref_key = req->type + '\x1f' + req->request_ref;
    if (in_flight_.count(ref_key))
      return reply(ErrorReply(Fail(core::Err::kIdempotencyConflict,
                                   "an action with request_ref '" + req->request_ref + "' has not finished")));
    bool replayed = false;
    ActionReply prior = Replay(*req, &replayed);
    if (replayed) return reply(std::move(prior));
  }
  // Ref errors come before anything is recorded: there is no pane to act on.
  auto row = Resolve(req->ref);
  if (!row) return reply(ErrorReply(row.error()));
  if (req->type == "snapshot") return reply(Snapshot(*row));
  std::string lane = row->target + '\x1f' + row->pane_id;
  if (!ref_key.empty()) in_flight_.insert(ref_key);
  lanes_[lane].push_back(Queued{std::move(*req), std::move(reply)});
  StartNext(lane);
}

ActionReply ActionService::Post(std::string_view type, std::string_view body) {
  std::optional<ActionReply> answer;
  Post(type, body, [&answer](ActionReply r) { answer = std::move(r); });
  AGT_CHECK(answer.has_value());  // an inline runner answers before Post returns
  return std::move(*answer);
}

void ActionService::Detach() {
  if (options_.runner) options_.runner->Detach();
  lanes_.clear();
}

ActionReply ActionService::Replay(const ActionRequest& req, bool* replayed) {
  // A replay answers from the stored result, whatever the pane does now.
  *replayed = true;
  auto prior = store_->FindActionByRequest(req.type, req.request_ref);
  if (!prior) {
    if (prior.error().code == core::Err::kNotFound) *replayed = false;
    return ErrorReply(prior.error());
  }
  rapidjson::Document meta;
  if (!core::ParseJson(prior->metadata_json, &meta) || !meta.IsObject() || !meta.HasMember("payload_hash"))
    return ErrorReply(Fail(core::Err::kStore, "action " + prior->action_id + " has unreadable metadata"));
  if (meta["payload_hash"].GetString() != req.payload_hash)
    return ErrorReply(Fail(core::Err::kIdempotencyConflict, "request_ref '" + req.request_ref +
                                                                "' was used by action " + prior->action_id +
                                                                " with a different payload"));
  if (!meta.HasMember("response") || !meta.HasMember("status"))
    return ErrorReply(Fail(core::Err::kIdempotencyConflict,
                           "action " + prior->action_id + " with this request_ref has not finished"));
  rapidjson::Value& resp = meta["response"];
  resp.AddMember("replayed", true, meta.GetAllocator());
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  resp.Accept(w);
  return {meta["status"].GetInt(), "application/json", std::string(sb.GetString(), sb.GetSize()) + "\n"};
}

core::Result<PaneRow> ActionService::Resolve(const std::string& text) const {
  auto ref = core::ParseRef(text);
  if (!ref) return ref.error();
  if (ref->kind == core::Ref::Kind::kPane && !world_->FindTarget(ref->target))
    return Fail(core::Err::kRefNotFound, "unknown target '" + ref->target + "' in " + text);
  std::vector<PaneRow> found;
  for (PaneRow& r : world_->Panes()) {
    bool match = ref->kind == core::Ref::Kind::kRuntime
                     ? r.agent && r.runtime_id == ref->runtime_id
                     : r.target == ref->target && r.pane_id == ref->pane_id &&
                           (!r.in_topology || (r.session_name == ref->session && r.window_id == ref->window_id));
    if (match) found.push_back(std::move(r));
  }
  if (found.empty()) return Fail(core::Err::kRefNotFound, "no pane matches " + text);
  if (found.size() > 1)
    return Fail(core::Err::kRefAmbiguous, text + " matches " + std::to_string(found.size()) +
                                              " panes; nothing was done (use a pane: ref)");
  return std::move(found[0]);
}

namespace {

/// The pane's snapshot as of `now`, not yet tied to an action.
state::ActionSnapshotRow TakeSnapshot(const PaneRow& row, core::TimeNs now, core::TimeNs ttl) {
  state::ActionSnapshotRow snap;
  snap.snapshot_id = core::NewUlid(now);
  snap.target_id = row.target;
  snap.pane_id = row.pane_id;
  snap.runtime_id = row.agent ? row.runtime_id : "";
  snap.state_version = row.agent ? row.st.state_version : 0;
  snap.observed_at = now;
  snap.expires_at = now + ttl;
  snap.nonce = Nonce(now);
  return snap;
}

}  // namespace

ActionReply ActionService::Snapshot(const PaneRow& row) {
  state::ActionSnapshotRow snap = TakeSnapshot(row, clock_.Now(), options_.snapshot_ttl);
  if (auto st = store_->InsertActionSnapshot(snap); !st) return ErrorReply(st.error());
  JsonOut j;
  j.BeginObject().Key("schema_version").Int(1).Key("snapshot_id").Str(snap.snapshot_id);
  j.Key("target").Str(row.target).Key("pane_id").Str(row.pane_id);
  j.Key("runtime_id").Str(snap.runtime_id).Key("state_version").Int(snap.state_version);
  j.Key("state").Str(row.agent ? core::StateName(row.st.signal.state) : "unknown");
  if (row.agent && core::NeedsAction(row.st.signal.state)) {
    // What `respond` guards on: the choices as the state saw them (the
    // same "waiting" object as a pane item's).
    j.Key("waiting");
    WriteWaiting(j, row.st.signal.detail);
  }
  j.Key("observed_at").Time(snap.observed_at).Key("expires_at").Time(snap.expires_at);
  j.Key("nonce").Str(snap.nonce).EndObject();
  return {200, "application/json", j.Take() + "\n"};
}

void ActionService::StartNext(const std::string& lane) {
  while (!busy_.count(lane)) {
    auto it = lanes_.find(lane);
    if (it == lanes_.end()) return;
    if (it->second.empty()) {
      lanes_.erase(it);
      return;
    }
    Queued q = std::move(it->second.front());
    it->second.pop_front();
    busy_.insert(lane);
    if (Begin(lane, q)) return;  // its worker ends it (End)
  }
}

bool ActionService::Begin(const std::string& lane, Queued& q) {
  std::string ref_key = q.req.request_ref.empty() ? "" : q.req.type + '\x1f' + q.req.request_ref;
  auto release = [&] {
    busy_.erase(lane);
    if (!ref_key.empty()) in_flight_.erase(ref_key);
  };
  // Resolved again: the pane may have changed while the action waited.
  auto row = Resolve(q.req.ref);
  if (!row) {
    release();
    q.reply(ErrorReply(row.error()));
    return false;
  }
  core::TimeNs now = clock_.Now();
  auto run = std::make_shared<Run>();
  run->req = std::move(q.req);
  run->snap = TakeSnapshot(*row, now, options_.snapshot_ttl);
  run->action.action_id = core::NewUlid(now);
  run->action.action_type = run->req.type;
  run->action.request_ref = run->req.request_ref.empty() ? run->action.action_id : run->req.request_ref;
  run->req.request_ref = run->action.request_ref;
  run->action.target_id = row->target;
  run->action.pane_id = row->pane_id;
  run->action.runtime_id = run->snap.runtime_id;
  run->action.requested_at = now;
  run->action.metadata_json = "{\"payload_hash\":\"" + run->req.payload_hash + "\"}";
  run->snap.action_id = run->action.action_id;
  core::Status recorded = store_->InsertAction(run->action);
  if (recorded) recorded = store_->InsertActionSnapshot(run->snap);
  if (!recorded) {
    release();
    q.reply(ErrorReply(recorded.error()));
    return false;
  }
  run->extra.BeginObject();
  Audit(*run, "action_requested",
        "ref=" + run->req.ref + " runtime=" + run->snap.runtime_id + " state_version=" +
            std::to_string(run->snap.state_version));

  TargetExecutor* ex = nullptr;
  core::Status outcome = CheckSnapshot(*run, *row);
  if (outcome) outcome = CheckGuards(*run, *row);
  if (outcome) outcome = Prepare(*run, *row, &ex);
  if (!outcome || !ex) {
    ActionReply r = Finish(*run, outcome);
    release();
    q.reply(std::move(r));
    return false;
  }
  ActionReplyFn reply = std::move(q.reply);
  auto runner = options_.runner;
  runner->Submit(
      [this, run, row = std::move(*row), ex] {
        if (auto st = Perform(*run, row, *ex); !st) run->failed = st.error();
      },
      [this, run, lane, ref_key, reply = std::move(reply)] { End(lane, ref_key, *run, reply); });
  return true;
}

void ActionService::End(const std::string& lane, const std::string& ref_key, Run& run, const ActionReplyFn& reply) {
  core::Status outcome = run.failed ? core::Status(*run.failed) : core::Ok();
  ActionReply r = Finish(run, outcome);
  busy_.erase(lane);
  if (!ref_key.empty()) in_flight_.erase(ref_key);
  reply(std::move(r));
  StartNext(lane);
}

core::Status ActionService::CheckSnapshot(Run& run, const PaneRow& row) {
  run.base_snapshot_id = run.snap.snapshot_id;
  if (run.req.snapshot_id.empty()) return core::Ok();  // taken just now: nothing can have moved
  auto base = store_->FindActionSnapshot(run.req.snapshot_id);
  if (!base) return Fail(core::Err::kPreconditionFailed, "unknown snapshot_id '" + run.req.snapshot_id + "'");
  run.base_snapshot_id = base->snapshot_id;
  if (base->target_id != row.target || base->pane_id != row.pane_id)
    return Fail(core::Err::kPreconditionFailed, "snapshot " + base->snapshot_id + " was taken of pane " +
                                                    base->target_id + "/" + base->pane_id + ", not this one");
  core::TimeNs now = clock_.Now();
  if (now > base->expires_at)
    return Fail(core::Err::kSnapshotExpired, "snapshot " + base->snapshot_id + " expired " +
                                                 std::to_string((now - base->expires_at) / core::kNsPerMs) +
                                                 " ms ago; look at the pane again");
  if (base->runtime_id != run.snap.runtime_id)
    return Fail(core::Err::kRuntimeStale, "the pane's runtime changed since the snapshot (" +
                                              (base->runtime_id.empty() ? "none" : base->runtime_id) + " -> " +
                                              (run.snap.runtime_id.empty() ? "none" : run.snap.runtime_id) + ")");
  if (base->state_version != run.snap.state_version && !run.req.force_stale)
    return Fail(core::Err::kPreconditionFailed,
                "the pane's state moved since the snapshot (state_version " + std::to_string(base->state_version) +
                    " -> " + std::to_string(run.snap.state_version) + "); use force_stale to act anyway");
  return core::Ok();
}

core::Status ActionService::CheckGuards(const Run& run, const PaneRow& row) const {
  const ActionRequest& q = run.req;
  if (!q.if_runtime.empty() && (!row.agent || row.runtime_id != q.if_runtime))
    return Fail(core::Err::kRuntimeStale, "if_runtime: the pane's runtime is " +
                                              (row.agent ? row.runtime_id : std::string("none")) + ", not " +
                                              q.if_runtime);
  if (!q.if_state.empty()) {
    core::State s = row.agent ? row.st.signal.state : core::State::kUnknown;
    if (std::find(q.if_state.begin(), q.if_state.end(), s) == q.if_state.end() || !row.agent)
      return Fail(core::Err::kPreconditionFailed,
                  "if_state: the pane is " + std::string(row.agent ? core::StateName(s) : "without an agent"));
  }
  if (q.if_updated_within) {
    core::TimeNs last = row.agent ? std::max(row.st.updated_at, row.st.last_seen_at) : 0;
    core::TimeNs age = clock_.Now() - last;
    if (!row.agent || age > *q.if_updated_within)
      return Fail(core::Err::kPreconditionFailed,
                  "if_updated_within: the pane's state was last updated " +
                      (row.agent ? std::to_string(age / core::kNsPerMs) + " ms ago" : std::string("never")) +
                      " (limit " + std::to_string(*q.if_updated_within / core::kNsPerMs) + " ms)");
  }
  return core::Ok();
}

core::Status ActionService::Prepare(Run& run, const PaneRow& row, TargetExecutor** ex) {
  const TargetStatus* target = world_->FindTarget(row.target);
  if (!target) return Fail(core::Err::kRefNotFound, "target '" + row.target + "' was removed");
  run.tmux = TmuxArgv(*target);
  if (run.req.type == "send") {
    std::string typed = run.req.text;
    for (const auto& k : run.req.keys) typed += (typed.empty() ? "" : " ") + k;
    run.policy = policy_.Check(typed);
    if (run.policy.level != PolicyLevel::kNone) {
      run.extra.Key("policy").BeginObject().Key("level").Str(PolicyLevelName(run.policy.level));
      run.extra.Key("rule").Str(run.policy.rule).Key("pattern").Str(run.policy.pattern).EndObject();
    }
    if (run.policy.level == PolicyLevel::kBlock && !run.req.allow_dangerous)
      return Fail(core::Err::kPolicyBlocked, "the text matches " + run.policy.rule + " (" + run.policy.pattern +
                                                 "); nothing was sent (allow_dangerous overrides)");
  }
  // kill(2) and printing a command are done here: no tmux, no waiting.
  if (run.req.type == "kill" && run.req.mode == "signal") return DoKill(run, row, nullptr);
  TargetExecutor* executor = world_->Executor(*target);
  // Attaching to a remote pane runs nothing here: it prints the command.
  if (run.req.type == "attach" && target->spec.kind != "local") return DoAttach(run, row, *target, executor);
  if (!executor) return Fail(core::Err::kUnsupported, "target '" + row.target + "' (" + target->spec.kind +
                                                          ") cannot run actions from this daemon");
  run.target = *target;
  *ex = executor;
  return core::Ok();
}

core::Status ActionService::Perform(Run& run, const PaneRow& row, TargetExecutor& ex) {
  if (run.req.type == "send") return DoSend(run, row, ex);
  if (run.req.type == "respond") return DoRespond(run, row, ex);
  if (run.req.type == "view-output") return DoViewOutput(run, row, ex);
  if (run.req.type == "kill") return DoKill(run, row, &ex);
  return DoAttach(run, row, run.target, &ex);
}

core::Status ActionService::DoSend(Run& run, const PaneRow& row, TargetExecutor& ex) {
  const std::vector<std::string>& tmux = run.tmux;
  const ActionRequest& q = run.req;
  const std::string& pane = row.pane_id;
  std::string method = "none";
  if (!q.text.empty()) {
    if (q.paste || q.text.find('\n') != std::string::npos) {
      // One message: a bracketed paste, so the agent sees it as one input.
      std::string buffer = "agtmux-" + run.action.action_id;
      if (auto st = RunTmux(ex, tmux, {"load-buffer", "-b", buffer, "-"}, nullptr, q.text); !st) return st;
      if (auto st = RunTmux(ex, tmux, {"paste-buffer", "-p", "-d", "-b", buffer, "-t", pane}); !st) return st;
      method = "paste";
    } else {
      if (auto st = RunTmux(ex, tmux, {"send-keys", "-t", pane, "-l", "--", q.text}); !st) return st;
      method = "send-keys -l";
    }
  }
  for (const auto& k : q.keys)
    if (auto st = RunTmux(ex, tmux, {"send-keys", "-t", pane, k}); !st) return st;
  std::string delivery = "not_checked";
  std::string probe = Probe(q.text);
  if (!probe.empty()) {
    delivery = "unverified";
    for (int i = 0; i < 5 && delivery != "verified"; ++i) {
      if (i > 0) world_->Sleep(40 * core::kNsPerMs);
      std::string screen;
      if (RunTmux(ex, tmux, {"capture-pane", "-p", "-J", "-t", pane, "-S", "-60"}, &screen) &&
          screen.find(probe) != std::string::npos)
        delivery = "verified";
    }
  }
  if (q.enter) {
    // ink treats Enter that arrives with the text as part of a paste.
    world_->Sleep(q.enter_delay_ms * core::kNsPerMs);
    if (auto st = RunTmux(ex, tmux, {"send-keys", "-t", pane, "Enter"}); !st) return st;
  }
  run.extra.Key("method").Str(method).Key("delivery").Str(delivery);
  run.extra.Key("keys").BeginArray();
  for (const auto& k : q.keys) run.extra.Str(k);
  run.extra.EndArray().Key("enter").Bool(q.enter);
  Audit(run, "action_sent", "method=" + method + " bytes=" + std::to_string(q.text.size()) +
                                " keys=" + std::to_string(q.keys.size()) + " enter=" + (q.enter ? "1" : "0") +
                                " delivery=" + delivery);
  return core::Ok();
}

core::Status ActionService::DoViewOutput(Run& run, const PaneRow& row, TargetExecutor& ex) {
  std::vector<std::string> args = {"capture-pane", "-p", "-J", "-t", row.pane_id, "-S",
                                   "-" + std::to_string(run.req.lines)};
  if (run.req.escapes) args.insert(args.begin() + 1, "-e");
  std::string out;
  if (auto st = RunTmux(ex, run.tmux, args, &out); !st) return st;
  out = TrimRight(std::move(out));
  // Keep the last `lines` lines (capture-pane adds the visible screen).
  size_t pos = out.size();
  for (int64_t n = 0; n < run.req.lines && pos != std::string::npos && pos > 0; ++n) pos = out.rfind('\n', pos - 1);
  if (pos != std::string::npos && pos < out.size() && out[pos] == '\n') out = out.substr(pos + 1);
  run.extra.Key("lines").Int(run.req.lines).Key("output").Str(out);
  return core::Ok();
}

core::Status ActionService::DoKill(Run& run, const PaneRow& row, TargetExecutor* ex) {
  if (run.req.mode == "key") {
    if (auto st = RunTmux(*ex, run.tmux, {"send-keys", "-t", row.pane_id, "C-c"}); !st)
      return st;
    run.extra.Key("mode").Str("key").Key("key").Str("C-c");
    Audit(run, "action_killed", "mode=key key=C-c");
    return core::Ok();
  }
  if (!row.agent || !row.runtime_pid)
    return Fail(core::Err::kPidUnavailable, "the pane's runtime has no known pid; use mode key");
  const TargetStatus* target = world_->FindTarget(row.target);
  if (target->spec.kind != "local")
    return Fail(core::Err::kUnsupported, "mode signal works on local targets only; use mode key");
  int sig = run.req.signal == "TERM" ? SIGTERM : run.req.signal == "KILL" ? SIGKILL : SIGINT;
  if (auto st = world_->Signal(*row.runtime_pid, sig); !st) return st;
  run.extra.Key("mode").Str("signal").Key("signal").Str(run.req.signal).Key("pid").Int(*row.runtime_pid);
  Audit(run, "action_killed", "mode=signal signal=" + run.req.signal + " pid=" + std::to_string(*row.runtime_pid));
  return core::Ok();
}

core::Status ActionService::DoAttach(Run& run, const PaneRow& row, const TargetStatus& target,
                                     TargetExecutor* ex) {
  std::vector<std::string> tmux = TmuxArgv(target);
  std::string session = row.session_id.empty() ? row.session_name : row.session_id;
  if (target.spec.kind != "local") {
    // Remote: the user runs it; nothing is switched from here. ssh hands
    // its command to the remote shell as one string. The pane id is enough
    // for tmux to find its window and session (the collector may not have
    // reported them).
    std::string pane = core::ShellQuote(row.pane_id);
    std::string remote = core::ShellJoin(tmux) + " select-window -t " + pane + " \\; select-pane -t " + pane +
                         " \\; attach-session -t " + pane;
    // `--` ends ssh's options: the target is a destination, never an option
    // (targets are validated too: ParseSshTarget). ssh takes no host:port,
    // so a port becomes -p. A Host alias stays an alias: ssh reads the
    // same ~/.ssh/config the daemon did.
    std::vector<std::string> cmd = {"ssh", "-t"};
    std::string destination = target.spec.ssh_target;
    if (auto ssh = ParseSshTarget(target.spec.ssh_target)) {
      destination = (ssh->user.empty() ? "" : ssh->user + "@") + ssh->host;
      if (ssh->port != 0 && ssh->port != 22) cmd.insert(cmd.end(), {"-p", std::to_string(ssh->port)});
    }
    cmd.insert(cmd.end(), {"--", destination, remote});
    run.extra.Key("mode").Str("print").Key("command").BeginArray();
    for (const auto& a : cmd) run.extra.Str(a);
    run.extra.EndArray();
    return core::Ok();
  }
  if (!row.window_id.empty())
    if (auto st = RunTmux(*ex, tmux, {"select-window", "-t", row.window_id}); !st) return st;
  if (auto st = RunTmux(*ex, tmux, {"select-pane", "-t", row.pane_id}); !st) return st;
  // A client of another tmux server cannot be switched to this one's pane:
  // the caller is given the attach command instead.
  // (By device and inode: std::filesystem::equivalent refuses two sockets.)
  auto same_file = [](const std::string& a, const std::string& b) {
    struct stat sa {}, sb {};
    return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  };
  const bool other_server = !run.req.client_socket.empty() && !target.spec.tmux_socket.empty() &&
                            !same_file(run.req.client_socket, target.spec.tmux_socket);
  if (!run.req.client.empty() && !other_server) {
    if (auto st = RunTmux(*ex, tmux, {"switch-client", "-c", run.req.client, "-t", row.pane_id}); !st) return st;
    run.extra.Key("mode").Str("switched").Key("client").Str(run.req.client);
    Audit(run, "action_attached", "switch-client " + run.req.client);
    return core::Ok();
  }
  std::vector<std::string> cmd = tmux;
  cmd.insert(cmd.end(), {"attach-session", "-t", session});
  run.extra.Key("mode").Str("attach").Key("command").BeginArray();
  for (const auto& a : cmd) run.extra.Str(a);
  run.extra.EndArray();
  return core::Ok();
}

void ActionService::Audit(Run& run, std::string_view event_type, const std::string& detail) {
  state::ActionEventRow e;
  e.action_id = run.action.action_id;
  e.seq = run.event_seq++;
  e.event_type = std::string(event_type);
  e.detail = detail;
  auto write = [this, e = std::move(e)]() mutable {
    e.event_time = clock_.Now();
    e.event_id = core::NewUlid(e.event_time);
    (void)store_->InsertActionEvent(e);  // the audit is best effort; the action row holds the outcome
  };
  // The store is the loop's: a worker's audit goes there first (and is
  // written before the action's answer, which follows it on the loop).
  if (std::this_thread::get_id() == loop_thread_) {
    write();
  } else {
    options_.runner->ToLoop(std::move(write));
  }
}

ActionReply ActionService::Finish(Run& run, const core::Status& outcome) {
  core::TimeNs now = clock_.Now();
  run.extra.EndObject();
  run.action.completed_at = now;
  run.action.result_code = outcome ? "ok" : "refused";
  if (!outcome && (outcome.error().code == core::Err::kIo || outcome.error().code == core::Err::kTimeout ||
                   outcome.error().code == core::Err::kUnsupported))
    run.action.result_code = "failed";
  run.action.error_code = outcome ? "" : std::string(core::ErrName(outcome.error().code));
  Audit(run, outcome ? "action_completed" : "action_" + run.action.result_code,
        outcome ? "ok" : outcome.error().ToString());

  JsonOut j;
  j.BeginObject().Key("schema_version").Int(1);
  j.Key("action_id").Str(run.action.action_id).Key("action_type").Str(run.action.action_type);
  j.Key("request_ref").Str(run.action.request_ref).Key("result_code").Str(run.action.result_code);
  j.Key("requested_at").Time(run.action.requested_at).Key("completed_at").Time(now);
  j.Key("target").Str(run.action.target_id).Key("pane_id").Str(run.action.pane_id);
  j.Key("runtime_id").Str(run.action.runtime_id);
  j.Key("snapshot").BeginObject().Key("snapshot_id").Str(run.snap.snapshot_id);
  j.Key("checked_against").Str(run.base_snapshot_id);
  j.Key("state_version").Int(run.snap.state_version).Key("observed_at").Time(run.snap.observed_at);
  j.Key("expires_at").Time(run.snap.expires_at).Key("nonce").Str(run.snap.nonce).EndObject();
  if (!outcome) {
    j.Key("error").BeginObject().Key("code").Str(core::ErrName(outcome.error().code));
    j.Key("message").Str(outcome.error().message + " (action " + run.action.action_id + ")").EndObject();
  }
  j.Key("result").Raw(run.extra.Take());
  j.EndObject();
  std::string body = j.Take();
  int status = outcome ? 200 : HttpStatusFor(outcome.error().code);
  run.action.metadata_json = "{\"payload_hash\":\"" + run.req.payload_hash + "\",\"snapshot_id\":\"" +
                             run.snap.snapshot_id + "\",\"status\":" + std::to_string(status) +
                             ",\"response\":" + body + "}";
  (void)store_->UpdateAction(run.action);
  return {status, "application/json", body + "\n"};
}

ActionReply ActionService::Get(const std::string& action_id) {
  auto a = store_->FindAction(action_id);
  if (!a) return ErrorReply(a.error().code == core::Err::kNotFound
                                ? Fail(core::Err::kNotFound, "no action " + action_id)
                                : a.error());
  rapidjson::Document meta;
  if (!core::ParseJson(a->metadata_json, &meta)) meta.SetObject();
  JsonOut j;
  j.BeginObject().Key("schema_version").Int(1).Key("generated_at").Time(clock_.Now());
  j.Key("action").BeginObject();
  j.Key("action_id").Str(a->action_id).Key("action_type").Str(a->action_type);
  j.Key("request_ref").Str(a->request_ref).Key("target").Str(a->target_id).Key("pane_id").Str(a->pane_id);
  j.Key("runtime_id").Str(a->runtime_id).Key("requested_at").Time(a->requested_at);
  j.Key("completed_at");
  a->completed_at ? j.Time(*a->completed_at) : j.Null();
  j.Key("result_code").Str(a->result_code).Key("error_code");
  a->error_code.empty() ? j.Null() : j.Str(a->error_code);
  j.EndObject();
  if (!meta.HasParseError() && meta.IsObject() && meta.HasMember("snapshot_id") && meta["snapshot_id"].IsString()) {
    if (auto s = store_->FindActionSnapshot(meta["snapshot_id"].GetString())) {
      j.Key("snapshot").BeginObject().Key("snapshot_id").Str(s->snapshot_id);
      j.Key("runtime_id").Str(s->runtime_id).Key("state_version").Int(s->state_version);
      j.Key("observed_at").Time(s->observed_at).Key("expires_at").Time(s->expires_at);
      j.Key("nonce").Str(s->nonce).EndObject();
    }
  }
  j.Key("events").BeginArray();
  if (auto evs = store_->ActionEvents(action_id)) {
    for (const state::ActionEventRow& e : *evs) {
      j.BeginObject().Key("event_id").Str(e.event_id).Key("event_type").Str(e.event_type);
      j.Key("action_id").Str(e.action_id).Key("event_time").Time(e.event_time);
      j.Key("detail").Str(e.detail).EndObject();
    }
  }
  j.EndArray().EndObject();
  return {200, "application/json", j.Take() + "\n"};
}

}  // namespace agt::agg
