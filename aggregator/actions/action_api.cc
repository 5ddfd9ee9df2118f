// ServeActions: routes /v1/actions/* to the daemon's ActionService, and
// the daemon's ActionWorld (panes from DaemonCore, tmux by LocalExecutor,
// kill(2) for signals).
#include "aggregator/actions/action_api.h"

#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <thread>

#include "aggregator/actions/action_service.h"
#include "libagtcore/config.h"
#include "libagtcore/paths.h"

namespace agt::agg {
namespace {

class DaemonWorld final : public ActionWorld {
 public:
  explicit DaemonWorld(DaemonCore* core) : core_(core) {}
  std::vector<PaneRow> Panes() const override { return core_->Rows(); }
  const TargetStatus* FindTarget(const std::string& name) const override { return core_->targets().Find(name); }
  TargetExecutor* Executor(const TargetStatus& target) override {
    return target.spec.kind == "local" ? &local_ : nullptr;
  }
  core::Status Signal(int64_t pid, int sig) override {
    if (pid <= 1) return core::MakeError(core::Err::kPidUnavailable, "refusing to signal pid " + std::to_string(pid));
    if (::kill(static_cast<pid_t>(pid), sig) != 0)
      return core::MakeError(core::Err::kIo, "kill " + std::to_string(pid) + ": " + std::strerror(errno));
    return core::Ok();
  }
  void Sleep(core::TimeNs d) override { std::this_thread::sleep_for(std::chrono::nanoseconds(d)); }

 private:
  DaemonCore* core_;
  LocalExecutor local_;
};

struct Served {
  std::unique_ptr<DaemonWorld> world;
  std::unique_ptr<ActionService> service;
};

core::Result<ActionService*> ServiceFor(const ApiContext& ctx) {
  static std::map<DaemonCore*, Served> services;
  auto it = services.find(ctx.core);
  if (it != services.end()) return it->second.service.get();
  auto paths = core::ResolvePaths(core::RealEnv());
  if (!paths) return paths.error();
  ActionOptions o;
  o.db_path = paths->state_dir + "/actions.db";
  if (const char* ttl = std::getenv("AGTMUX_ACTION_SNAPSHOT_TTL_MS"); ttl && *ttl)
    o.snapshot_ttl = std::strtoll(ttl, nullptr, 10) * core::kNsPerMs;
  if (auto cfg = core::LoadConfig(paths->config_file)) o.send_policy = cfg->config.send_policy;
  Served s;
  s.world = std::make_unique<DaemonWorld>(ctx.core);
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
  ActionReply r;
  if (req.method == "POST") {
    r = (*svc)->Post(rest, req.body);
  } else if (req.method == "GET") {
    r = (*svc)->Get(rest);
  } else {
    ex.Reply(ErrorResponse(405, core::MakeError(core::Err::kRequestInvalid,
                                                req.method + " is not allowed on " + req.path + " (allowed: GET, POST)")));
    return true;
  }
  ex.Reply(HttpResponse{r.status, "application/json", std::move(r.body)});
  return true;
}

}  // namespace agt::agg
