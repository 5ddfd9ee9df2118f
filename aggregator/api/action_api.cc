// ServeActions: routes /v1/actions/* to the daemon's ActionService over
// the daemon's ActionWorld (daemon_action_world.h). An action's answer is
// deferred (the HTTP server's DeferredReply) until its tmux work, run by a
// pool of worker threads, is done.
#include "aggregator/api/action_api.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

#include "aggregator/actions/action_service.h"
#include "aggregator/actions/daemon_action_world.h"
#include "aggregator/federation/remote_actions.h"
#include "aggregator/http/api_error.h"
#include "libagtcore/config.h"
#include "libagtcore/os/paths.h"

namespace agt::agg {
namespace {

// At most this many actions run their tmux part at once (on different
// panes; one pane's actions run one at a time).
constexpr int kActionWorkers = 4;

struct Served {
  std::unique_ptr<ActionWorld> world;
  std::unique_ptr<ActionService> service;
};

// Never destroyed, and a stopped service is kept: a worker may still be
// running one of its actions when the daemon exits, and the daemon does
// not wait for it (action_runner.h).
std::map<DaemonCore*, Served>& Services() {
  static auto* services = new std::map<DaemonCore*, Served>;
  return *services;
}
std::vector<Served>& Stopped() {
  static auto* stopped = new std::vector<Served>;
  return *stopped;
}

core::Result<ActionService*> ServiceFor(const ApiContext& ctx) {
  auto& services = Services();
  auto it = services.find(ctx.core);
  if (it != services.end()) return it->second.service.get();
  auto paths = core::ResolvePaths(core::RealEnv());
  if (!paths) return paths.error();
  ActionOptions o;
  o.store = ctx.core->persistence_mut().store();  // agtmux.db; null under a fake persistence
  if (const char* ttl = std::getenv("AGTMUX_ACTION_SNAPSHOT_TTL_MS"); ttl && *ttl)
    o.snapshot_ttl = std::strtoll(ttl, nullptr, 10) * core::kNsPerMs;
  if (auto cfg = core::LoadConfig(paths->config_file)) o.send_policy = cfg->send_policy;
  if (ctx.core->loop()) o.runner = MakeWorkerRunner(ctx.core->loop(), kActionWorkers);
  Served s;
  s.world = MakeDaemonWorld(ctx.core);
  auto svc = ActionService::Create(s.world.get(), *ctx.clock, std::move(o));
  if (!svc) return svc.error();
  s.service = std::move(*svc);
  ActionService* out = s.service.get();
  services.emplace(ctx.core, std::move(s));
  return out;
}

}  // namespace

bool ServeActions(const ApiContext& ctx, const HttpRequest& req, Exchange& ex) {
  const std::string prefix = "/v1/actions/";
  if (req.path.compare(0, prefix.size(), prefix) != 0) return false;
  std::string rest = req.path.substr(prefix.size());
  auto svc = ServiceFor(ctx);
  if (!svc) {
    ex.Reply(ErrorResponse(500, svc.error()));
    return true;
  }
  if (req.method == "POST") {
    if (ForwardRemoteAction(*ctx.core, rest, req, ex)) return true;
    auto answer = ex.Defer();
    (*svc)->Post(rest, req.body, [answer](ActionReply r) { answer->Reply(std::move(r)); });
  } else if (req.method == "GET") {
    if (ForwardRemoteLookup(*ctx.core, rest, ex)) return true;
    ex.Reply((*svc)->Get(rest));
  } else {
    ex.Reply(ErrorResponse(405, core::MakeError(core::Err::kRequestInvalid,
                                                req.method + " is not allowed on " + req.path + " (allowed: GET, POST)")));
  }
  return true;
}

void StopActions(DaemonCore* core) {
  auto& services = Services();
  auto it = services.find(core);
  if (it == services.end()) return;
  it->second.service->Detach();
  Stopped().push_back(std::move(it->second));
  services.erase(it);
}

}  // namespace agt::agg
