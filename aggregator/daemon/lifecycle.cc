// agtmuxd's lifecycle (see lifecycle.h). Start-up order matters: the lock is
// taken before anything touches the socket, a stale socket is removed only
// while holding it, the store is restored before the socket accepts, and
// the spool is drained before the collectors start, so events the wrapper
// spooled while the daemon was away land before fresh CAP verdicts.
#include "aggregator/daemon/lifecycle.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <uv.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include "aggregator/daemon/daemon_config.h"
#include "aggregator/daemon/home_check.h"
#include "aggregator/daemon/instance_lock.h"
#include "aggregator/daemon/spool_drain.h"
#include "aggregator/api/action_api.h"
#include "aggregator/api/api.h"
#include "aggregator/http/http_server.h"
#include "aggregator/notify/notifier.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/config.h"
#include "libagtcore/ids.h"
#include "libagtcore/os/log.h"
#include "libagtcore/os/process.h"

namespace agt::agg {
namespace {

/// Routes pane decorations to the collector of the pane's target.
class CollectorSet final : public PaneDecorator {
 public:
  void Decorate(const std::string& target, const std::string& pane, core::State s,
                core::Source src) override {
    auto it = collectors.find(target);
    if (it != collectors.end() && it->second) it->second->Decorate(target, pane, s, src);
  }
  std::map<std::string, std::unique_ptr<PaneDecorator>> collectors;
};

struct Daemon {
  const DaemonOptions& opt;
  uv_loop_t loop{};
  std::unique_ptr<DaemonCore> core;
  std::unique_ptr<HttpServer> server;
  CollectorSet collectors;
  std::unique_ptr<Notifier> notifier;  // [notify]: listens to the watch hub
  uv_signal_t sigterm{}, sigint{};
  uv_timer_t tick{}, spool{}, deadline{}, retention{};
  state::RetentionOptions retention_options;
  uint64_t retention_interval_ms = 0;
  bool stopping = false;
  std::optional<HomeCheck> home;  // the socket bound and the state directory
  std::shared_ptr<spdlog::logger> log;

  explicit Daemon(const DaemonOptions& o) : opt(o) {}

  core::Status Connect(const TargetSpec& spec) {
    if (!opt.collectors) return core::Ok();
    collectors.collectors.erase(spec.name);
    auto c = opt.collectors(&loop, spec, *core);
    if (!c) return c.error();
    collectors.collectors[spec.name] = std::move(*c);
    if (TargetStatus* t = core->targets().Find(spec.name)) {
      t->connected = collectors.collectors[spec.name] != nullptr;
      t->health = core::TargetHealth::kOk;
      t->error.clear();
    }
    return core::Ok();
  }

  void Drain() {
    DrainOptions o;
    o.now = core::SystemClock::Get().Now();
    o.bad_max_age = retention_options.payload_age;  // .bad files hold payloads: they go when payloads do
    DrainReport r = DrainSpool(
        opt.paths.spool_dir,
        [this](std::vector<core::Event> events) -> core::Status {
          auto res = core->Ingest(std::move(events));
          if (!res) return res.error();
          return core::Ok();
        },
        core::ProcessAlive, o);
    if (r.files > 0) log->info("spool: drained {} events from {} files", r.events, r.files);
    if (r.bad_files_expired > 0) log->info("spool: {} expired .bad files deleted", r.bad_files_expired);
    for (const auto& e : r.errors) log->warn("spool: {}", e);
    DropCounter& drops = core->drops();
    for (auto [reason, n] : {std::pair{DropReason::kSpoolUndecodable, r.undecodable},
                             std::pair{DropReason::kSpoolQuarantined, r.quarantined},
                             std::pair{DropReason::kProducer, r.producer_dropped}}) {
      if (n > 0 && !drops.Add(reason, n)) log->warn("cannot record {} dropped events in dropped.json", n);
    }
  }

  // One bounded retention step (at most max_batches transactions of
  // batch_rows rows, a few ms each); when a backlog remains, the next step
  // comes 1 s later rather than an interval later, so ingest interleaves.
  void Retain() {
    core::TimeNs now = core::SystemClock::Get().Now();
    auto r = core->persistence_mut().RunRetention(now, retention_options);
    uint64_t next = retention_interval_ms;
    if (!r) {
      log->warn("retention: {}", r.error().ToString());
    } else {
      if (r->events_deleted + r->inbox_deleted + r->payloads_cleared > 0) {
        log->info("retention: {} events and {} inbox rows deleted, {} payloads cleared{}",
                  r->events_deleted, r->inbox_deleted, r->payloads_cleared, r->done ? "" : " (more to do)");
      }
      if (!r->done) next = 1000;
    }
    if (!stopping) uv_timer_start(&retention, [](uv_timer_t* t) { static_cast<Daemon*>(t->data)->Retain(); }, next, 0);
  }

  // Once a second: the engine's timers, and whether the daemon can still
  // be reached and still has its state (home_check.h); a daemon that lost
  // either stops, saying why.
  void Tick() {
    core->Tick();
    if (stopping || !home) return;
    if (std::string why = home->Lost(); !why.empty()) {
      log->warn("{}; nothing can reach this daemon: stopping", why);
      Stop();
    }
  }

  void Stop() {
    if (stopping) return;
    stopping = true;
    log->info("shutting down");
    core->watch().Shutdown();
    uv_timer_stop(&tick);
    uv_timer_stop(&spool);
    uv_timer_stop(&retention);
    // A request in flight gets up to 3 s to finish.
    uv_timer_start(&deadline, [](uv_timer_t* t) { static_cast<Daemon*>(t->data)->Finish(); }, 3000, 0);
    server->Shutdown([this] { Finish(); });
  }

  void Finish() {
    uv_timer_stop(&deadline);
    collectors.collectors.clear();
    if (auto st = core->Flush(); !st) log->error("flush: {}", st.error().ToString());
    uv_stop(&loop);
  }
};

}  // namespace

namespace {

// Whether a child process handle (a tmux control client) is still open.
bool ChildrenRunning(uv_loop_t* loop) {
  bool any = false;
  uv_walk(loop, [](uv_handle_t* h, void* arg) {
    if (h->type == UV_PROCESS && !uv_is_closing(h)) *static_cast<bool*>(arg) = true;
  }, &any);
  return any;
}

}  // namespace

int RunDaemon(const DaemonOptions& opt) {
  const core::Paths& paths = opt.paths;
  for (const auto& [dir, what] : {std::pair{paths.socket_dir, "socket"}, std::pair{paths.state_dir, "state"}}) {
    if (auto st = core::EnsureDir(dir, 0700); !st) {
      std::fprintf(stderr, "agtmuxd: cannot create the %s directory: %s\n", what, st.error().ToString().c_str());
      return 1;
    }
  }
  auto lock = InstanceLock::Acquire(paths.socket_dir + "/agtmuxd.lock");
  if (!lock) {
    std::fprintf(stderr, "agtmuxd: %s\n", lock.error().ToString().c_str());
    return 3;
  }
  auto stale_socket = InstanceLock::RemoveStaleSocket(paths.socket_path);
  if (!stale_socket) {
    std::fprintf(stderr, "agtmuxd: %s\n", stale_socket.error().ToString().c_str());
    return 1;
  }
  const bool stale = *stale_socket;

  Daemon d(opt);
  // The default logger, so the collectors' spdlog calls land in the log
  // too; [daemon] log_level, or AGTMUX_LOG_LEVEL over it.
  core::LogOptions lo;
  lo.path = paths.log_path;
  lo.level = opt.config.daemon.log_level;
  lo.name = "agtmuxd";
  if (auto st = core::InitLogging(lo); !st) {
    std::fprintf(stderr, "agtmuxd: %s\n", st.error().ToString().c_str());
    return 1;
  }
  d.log = spdlog::default_logger();
  if (stale) d.log->warn("removed a stale socket at {}", paths.socket_path);
  uv_loop_init(&d.loop);
  signal(SIGPIPE, SIG_IGN);

  const core::Clock& clock = core::SystemClock::Get();
  CoreOptions co;
  co.backend.state_dir = paths.state_dir;
  co.backend.fast_durability = opt.fast_durability;
  co.backend.engine = EngineOptionsFor(opt.config.daemon);
  co.targets_file = paths.state_dir + "/targets.json";
  co.screens_dir = paths.screens_dir;
  co.host_socket = opt.host_socket;
  co.stream_id = core::NewUlid(clock.Now());
  auto core = DaemonCore::Create(&d.loop, clock, co);
  if (!core) {
    std::fprintf(stderr, "agtmuxd: %s\n", core.error().ToString().c_str());
    d.log->error("start-up: {}", core.error().ToString());
    return 1;
  }
  d.core = std::move(*core);
  d.core->set_decorator(&d.collectors);
  d.notifier = StartNotifier(&d.loop, clock, opt.config.notify, d.core->targets(), d.core->watch());

  ServerOptions so;
  so.header_timeout_ms = opt.header_timeout_ms;
  so.limits.max_body_bytes = opt.max_body_bytes;
  so.allowed_uid = getuid();
  ApiContext ctx;
  ctx.core = d.core.get();
  ctx.clock = &clock;
  ctx.socket_path = paths.socket_path;
  ctx.started_at = clock.Now();
  ctx.connect_target = [&d](const TargetSpec& spec) { return d.Connect(spec); };
  ctx.disconnect_target = [&d](const std::string& name) { d.collectors.collectors.erase(name); };
  d.server = std::make_unique<HttpServer>(&d.loop, so, MakeApiHandler(ctx));
  if (auto st = d.server->Listen(paths.socket_path); !st) {
    std::fprintf(stderr, "agtmuxd: %s\n", st.error().ToString().c_str());
    return 1;
  }
  if (auto home = HomeCheck::Record(paths.socket_path, paths.state_dir); home) {
    d.home = std::move(*home);
  } else {
    d.log->warn("{}; a removed socket will not be noticed", home.error().ToString());
  }
  d.log->info("agtmuxd {} listening on {} (engine {}, persistence {}, stream {})", AGTMUX_VERSION,
              paths.socket_path, d.core->state().name(), d.core->persistence().name(),
              d.core->watch().stream_id());

  // Retention ages from config.toml ([daemon] retention_payloads,
  // retention_events; the spool drain expires .bad files at the first).
  d.retention_options.payload_age = opt.config.daemon.retention_payloads;
  d.retention_options.metadata_age = opt.config.daemon.retention_events;
  d.Drain();
  for (const TargetStatus& t : std::vector<TargetStatus>(d.core->targets().all())) {
    if (auto st = d.Connect(t.spec); !st) {
      d.log->warn("target {}: {}", t.spec.name, st.error().ToString());
      if (TargetStatus* ts = d.core->targets().Find(t.spec.name)) {
        ts->health = core::TargetHealth::kDown;
        ts->error = st.error().message;
      }
    }
  }

  d.retention_options.batch_rows = 1000;
  d.retention_options.max_batches = 4;
  d.retention_interval_ms = static_cast<uint64_t>(opt.retention_interval_ms);
  if (const char* v = std::getenv("AGTMUX_RETENTION_INTERVAL_MS"); v && *v) {
    d.retention_interval_ms = std::strtoull(v, nullptr, 10);
  }
  if (d.retention_interval_ms == 0) d.retention_interval_ms = 3600 * 1000;
  for (uv_timer_t* t : {&d.tick, &d.spool, &d.deadline, &d.retention}) {
    uv_timer_init(&d.loop, t);
    t->data = &d;
  }
  uv_timer_start(&d.tick, [](uv_timer_t* t) { static_cast<Daemon*>(t->data)->Tick(); }, 1000, 1000);
  uv_timer_start(&d.spool, [](uv_timer_t* t) { static_cast<Daemon*>(t->data)->Drain(); },
                 static_cast<uint64_t>(opt.spool_interval_ms), static_cast<uint64_t>(opt.spool_interval_ms));
  // The first run soon after start (a daemon that was down for days has a
  // backlog), then every interval.
  uv_timer_start(&d.retention, [](uv_timer_t* t) { static_cast<Daemon*>(t->data)->Retain(); },
                 std::min<uint64_t>(d.retention_interval_ms, 10 * 1000), 0);
  for (auto [sig, h] : {std::pair{SIGTERM, &d.sigterm}, std::pair{SIGINT, &d.sigint}}) {
    uv_signal_init(&d.loop, h);
    h->data = &d;
    uv_signal_start(h, [](uv_signal_t* s, int) { static_cast<Daemon*>(s->data)->Stop(); }, sig);
  }

  uv_run(&d.loop, UV_RUN_DEFAULT);

  // Tear down in dependency order, every handle closed once by its owner:
  // the connections the deadline cut short (closing one may still tell the
  // watch hub, so the core is alive then), then the core, whose destructor
  // closes its timers with callbacks that free them, then what is left:
  // the daemon's own signals and timers, embedded in `d`. The loop runs the
  // close callbacks; only then may the server go, since a connection's
  // close callback uses it.
  StopActions(d.core.get());  // no action may reach the loop, the store or the core after this
  d.server->CloseAll();
  d.core.reset();
  d.notifier.reset();  // after the core: the watch hub holds its listener
  // The collectors just told their tmux control clients to exit; their
  // exit callbacks free what the clients allocated. Give them up to 1 s
  // before everything left is closed (a handle closed here has no owner's
  // callback).
  for (int i = 0; i < 100 && ChildrenRunning(&d.loop); ++i) {
    uv_run(&d.loop, UV_RUN_NOWAIT);
    if (ChildrenRunning(&d.loop)) ::usleep(10 * 1000);
  }
  uv_run(&d.loop, UV_RUN_NOWAIT);
  uv_walk(&d.loop, [](uv_handle_t* h, void*) {
    if (!uv_is_closing(h)) uv_close(h, nullptr);
  }, nullptr);
  uv_run(&d.loop, UV_RUN_DEFAULT);
  d.server.reset();
  if (int rc = uv_loop_close(&d.loop); rc != 0) d.log->warn("loop: handles left open at exit ({})", uv_strerror(rc));
  // A file another daemon put at the path since is not ours to remove.
  if (!d.home || d.home->SocketIsOurs()) ::unlink(paths.socket_path.c_str());
  d.log->info("stopped");
  core::ShutdownLogging();
  return 0;
}

}  // namespace agt::agg
