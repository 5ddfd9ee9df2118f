// The local target's collector: control client -> topology -> runtimes and
// CAP polling (see collector_local.h for when topology is read and when a
// pane is marked for capture).
#include "aggregator/observe/collector_local.h"

#include <spdlog/spdlog.h>

#include "aggregator/observe/identify_agent.h"
#include "aggregator/observe/tmux_format.h"
#include "libagtcore/agent_version.h"
#include "libagtcore/ids.h"
#include "libagtcore/net/tmux_identity.h"

namespace agt::agg {
namespace {

uv_timer_t* NewTimer(uv_loop_t* loop, void* data) {
  auto* t = new uv_timer_t;
  uv_timer_init(loop, t);
  t->data = data;
  return t;
}

void FreeTimer(uv_timer_t* t) {
  uv_timer_stop(t);
  uv_close(reinterpret_cast<uv_handle_t*>(t),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
}

uint64_t Ms(TimeNs ns) { return ns <= 0 ? 0 : uint64_t((ns + core::kNsPerMs - 1) / core::kNsPerMs); }

bool IsStructural(const std::string& name) {
  static const char* const kNames[] = {
      "window-add", "window-close", "unlinked-window-add", "unlinked-window-close",
      "unlinked-window-renamed", "window-renamed", "layout-change", "session-changed",
      "sessions-changed", "session-renamed", "session-window-changed",
      "window-pane-changed", "client-session-changed", "pane-mode-changed"};
  for (const char* n : kNames)
    if (name == n) return true;
  return false;
}

}  // namespace

LocalCollector::LocalCollector(uv_loop_t* loop, LocalCollectorOptions options,
                               CollectorSink& sink, const core::Clock& clock,
                               const core::FileReader& files, AnalyzerFactory analyzers)
    : loop_(loop),
      options_(std::move(options)),
      sink_(sink),
      clock_(clock),
      files_(files),
      instance_(core::NewUlid(clock.Now())),
      poller_(options_.target_id, instance_, options_.poller, std::move(analyzers), sink),
      runtimes_(options_.target_id, instance_),
      scanner_(options_.target_id, options_.socket_path) {
  ControlClientOptions co;
  co.tmux_bin = options_.tmux_bin;
  co.socket_path = options_.socket_path;
  TmuxControlClient::Callbacks cb;
  cb.on_connected = [this] { OnConnected(); };
  cb.on_notification = [this](const ControlNotification& n) { OnNotification(n); };
  cb.on_disconnected = [this] { OnDisconnected(); };
  control_ = std::make_unique<TmuxControlClient>(loop_, co, cb);
  scan_timer_ = NewTimer(loop_, this);
  poll_timer_ = NewTimer(loop_, this);
  debounce_timer_ = NewTimer(loop_, this);
  grace_timer_ = NewTimer(loop_, this);
  topology_.target_id = options_.target_id;
  topology_.socket_path = options_.socket_path;
  // A local server's agents are this machine's processes: their version
  // comes from their files (a readlink and a few small reads, once per runtime).
  runtimes_.set_version_finder([](int64_t pid) {
    auto v = core::AgentVersionFromProcess(pid);
    return v ? v->version : std::string();
  });
}

LocalCollector::~LocalCollector() {
  Stop();
  control_.reset();
  FreeTimer(scan_timer_);
  FreeTimer(poll_timer_);
  FreeTimer(debounce_timer_);
  FreeTimer(grace_timer_);
}

void LocalCollector::Start() {
  control_->Start();
  uv_timer_start(
      scan_timer_, [](uv_timer_t* t) { static_cast<LocalCollector*>(t->data)->Refresh(); },
      Ms(options_.scan_interval), Ms(options_.scan_interval));
  // Until the client connects, the server counts as not running.
  uv_timer_start(
      grace_timer_,
      [](uv_timer_t* t) {
        auto* self = static_cast<LocalCollector*>(t->data);
        if (!self->control_->connected()) {
          Topology down;
          down.target_id = self->options_.target_id;
          down.socket_path = self->options_.socket_path;
          self->Publish(std::move(down));
        }
      },
      Ms(options_.down_grace), 0);
}

void LocalCollector::Stop() {
  control_->Stop();
  uv_timer_stop(scan_timer_);
  uv_timer_stop(poll_timer_);
  uv_timer_stop(debounce_timer_);
  uv_timer_stop(grace_timer_);
}

core::Status LocalCollector::Probe() const {
  if (control_->connected() || (published_ && !topology_.server_running)) return core::Ok();
  return core::MakeError(core::Err::kTargetUnreachable,
                         options_.target_id + ": no control client for " + options_.socket_path);
}

void LocalCollector::OnConnected() {
  uv_timer_stop(grace_timer_);
  Refresh();
}

void LocalCollector::OnDisconnected() {
  refresh_in_flight_ = false;
  refresh_again_ = false;
  uv_timer_start(
      grace_timer_,
      [](uv_timer_t* t) {
        auto* self = static_cast<LocalCollector*>(t->data);
        if (self->control_->connected()) return;
        Topology down;
        down.target_id = self->options_.target_id;
        down.socket_path = self->options_.socket_path;
        self->Publish(std::move(down));
      },
      Ms(options_.down_grace), 0);
}

void LocalCollector::OnNotification(const ControlNotification& n) {
  if (n.name == "output" || n.name == "extended-output") {
    if (poller_.Watching(n.pane_id)) {
      poller_.MarkChanged(n.pane_id, clock_.Now());
      SchedulePoll();
    }
    return;
  }
  if (IsStructural(n.name)) ScheduleRefresh();
}

void LocalCollector::ScheduleRefresh() {
  if (uv_is_active(reinterpret_cast<uv_handle_t*>(debounce_timer_))) return;
  uv_timer_start(
      debounce_timer_, [](uv_timer_t* t) { static_cast<LocalCollector*>(t->data)->Refresh(); },
      Ms(options_.refresh_debounce), 0);
}

void LocalCollector::Refresh() {
  if (!control_->connected()) return;
  if (refresh_in_flight_) {
    refresh_again_ = true;
    return;
  }
  static const std::string command = "list-panes -a -F " + TmuxQuote(ListPanesFormat());
  refresh_in_flight_ = control_->Send(command, [this](const ControlReply& r) { OnListPanes(r); });
}

void LocalCollector::OnListPanes(const ControlReply& reply) {
  refresh_in_flight_ = false;
  ++topology_reads_;
  if (refresh_again_) {
    refresh_again_ = false;
    Refresh();
  }
  if (!reply.ok) {
    if (reply.text != "disconnected")
      spdlog::warn("{}: list-panes failed: {}", options_.target_id, reply.text);
    return;
  }
  auto records = ParseListPanes(reply.text);
  if (!records) {
    spdlog::warn("{}: {}", options_.target_id, records.error().ToString());
    return;
  }
  const TimeNs now = clock_.Now();
  PaneScanner::Result scan = scanner_.Scan(*records, files_);
  for (auto& e : runtimes_.Update(scan.topology, scan.wrapped, scan.started, now)) sink_.OnEvent(std::move(e));
  poller_.SetPanes(scan.polled, now);
  scanner_.MarkActivity(scan.topology, poller_, now);
  Publish(std::move(scan.topology));
  SchedulePoll();
}

void LocalCollector::Publish(Topology t) {
  if (!t.server_running) {
    scanner_.Reset();
    const TimeNs now = clock_.Now();
    for (auto& e : runtimes_.Update(t, {}, {}, now)) sink_.OnEvent(std::move(e));
    poller_.SetPanes({}, now);
  }
  if (published_ && t == topology_) return;
  topology_ = std::move(t);
  published_ = true;
  sink_.OnTopology(topology_);
}

void LocalCollector::SchedulePoll() {
  const TimeNs deadline = poller_.NextDeadline();
  if (deadline == 0) {
    uv_timer_stop(poll_timer_);
    return;
  }
  uv_timer_start(
      poll_timer_, [](uv_timer_t* t) { static_cast<LocalCollector*>(t->data)->RunPoll(); },
      Ms(deadline - clock_.Now()), 0);
}

void LocalCollector::RunPoll() {
  const TimeNs now = clock_.Now();
  poller_.Tick(now);
  if (control_->connected()) {
    for (const auto& id : poller_.TakeDueCaptures(now)) {
      bool sent = control_->Send("capture-pane -p -t " + id, [this, id](const ControlReply& r) {
        if (r.ok) poller_.OnCapture(id, r.text, clock_.Now());
        else poller_.CaptureFailed(id);
        SchedulePoll();
      });
      if (!sent) poller_.CaptureFailed(id);
    }
  }
  SchedulePoll();
}

bool LocalCollector::SetPaneOptions(const std::string& pane_id, core::State state,
                                    core::Source source) {
  if (!control_->connected()) return false;
  // One command per line: each gets its own reply block.
  auto ignore = [](const ControlReply&) {};
  bool a = control_->Send("set-option -p -t " + pane_id + " @agtmux_state " +
                              std::string(core::StateName(state)),
                          ignore);
  bool b = control_->Send("set-option -p -t " + pane_id + " @agtmux_source " +
                              std::string(core::SourceColumn(source)),
                          ignore);
  return a && b;
}

}  // namespace agt::agg
