// The local target's collector: control client -> topology -> runtimes and
// CAP polling (see collector_local.h for when topology is read and when a
// pane is marked for capture).
#include "aggregator/observe/collector_local.h"

#include <spdlog/spdlog.h>

#include "aggregator/observe/pane_agent.h"
#include "aggregator/observe/tmux_format.h"
#include "libagtcore/agent_version.h"
#include "libagtcore/ids.h"
#include "libagtcore/net/tmux_identity.h"

namespace agt::agg {
namespace {

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

PollerOptions PollerOptionsOf(const LocalCollectorOptions& options) {
  PollerOptions o = options.poller;
  o.byte_screens = options.byte_screens;
  return o;
}

/// The data of `%output %7 <data>` or `%extended-output %7 <age> ... : <data>`.
std::string_view OutputData(const ControlNotification& n) {
  std::string_view a = n.args;
  if (n.name == "extended-output") {
    const size_t colon = a.find(" : ");
    return colon == std::string_view::npos ? std::string_view() : a.substr(colon + 3);
  }
  const size_t sp = a.find(' ');
  return sp == std::string_view::npos ? std::string_view() : a.substr(sp + 1);
}

ControlClientOptions ControlOptions(const LocalCollectorOptions& options) {
  ControlClientOptions co;
  co.tmux_bin = options.tmux_bin;
  co.socket_path = options.socket_path;
  co.probe_interval = options.probe_interval;
  co.reconnect_min = options.reconnect_min;
  co.pause_after_s = options.pause_after_s;
  return co;
}

}  // namespace

LocalCollector::LocalCollector(uv_loop_t* loop, LocalCollectorOptions options,
                               CollectorSink& sink, const core::Clock& clock,
                               const core::FileReader& files, AnalyzerFactory analyzers)
    : loop_(loop),
      options_(std::move(options)),
      clock_(clock),
      files_(files),
      instance_(core::NewUlid(clock.Now())),
      step_(options_.target_id, options_.socket_path, instance_, PollerOptionsOf(options_), std::move(analyzers),
            sink),
      feeds_(loop, ControlOptions(options_),
             [this](const std::string& session, const ControlNotification& n) { OnOutput(session, n); }),
      scan_timer_(loop),
      poll_timer_(loop),
      debounce_timer_(loop),
      grace_timer_(loop) {
  TmuxControlClient::Callbacks cb;
  cb.on_connected = [this] { OnConnected(); };
  cb.on_notification = [this](const ControlNotification& n) { OnNotification(n); };
  cb.on_disconnected = [this] { OnDisconnected(); };
  control_ = std::make_unique<TmuxControlClient>(loop_, ControlOptions(options_), cb);
  // A local server's agents are this machine's processes: their version
  // comes from their files (a readlink and a few small reads, once per runtime).
  step_.runtimes().set_version_finder([](int64_t pid) {
    auto v = core::AgentVersionFromProcess(pid);
    return v ? v->version : std::string();
  });
}

LocalCollector::~LocalCollector() {
  Stop();
  control_.reset();
}

void LocalCollector::Start() {
  control_->Start();
  scan_timer_.Every(options_.scan_interval, [this] { Refresh(); });
  // Until the client connects, the server counts as not running.
  grace_timer_.Once(options_.down_grace, [this] { PublishDownUnlessConnected(); });
}

void LocalCollector::Stop() {
  control_->Stop();
  feeds_.Stop();
  scan_timer_.Stop();
  poll_timer_.Stop();
  debounce_timer_.Stop();
  grace_timer_.Stop();
}

void LocalCollector::PublishDownUnlessConnected() {
  if (control_->connected()) return;
  ScanStep::Hooks hooks;
  hooks.before_publish = [this] { feeds_.Stop(); };
  step_.ApplyServerDown(clock_.Now(), hooks);
}

core::Status LocalCollector::Probe() const {
  if (control_->connected() || (step_.published() && !step_.topology().server_running)) return core::Ok();
  return core::MakeError(core::Err::kTargetUnreachable,
                         options_.target_id + ": no control client for " + options_.socket_path);
}

void LocalCollector::OnConnected() {
  grace_timer_.Stop();
  Refresh();
}

void LocalCollector::OnDisconnected() {
  main_session_.clear();
  refresh_in_flight_ = false;
  refresh_again_ = false;
  // Nothing can be captured without the client: polling waits for the next
  // topology (a deadline that cannot be acted on must not stay armed).
  poll_timer_.Stop();
  grace_timer_.Once(options_.down_grace, [this] { PublishDownUnlessConnected(); });
}

void LocalCollector::OnNotification(const ControlNotification& n) {
  if (n.name == "output" || n.name == "extended-output" || n.name == "pause") {
    OnOutput(main_session_, n);
    return;
  }
  // `%session-changed $3 name`: the session whose %output this client gets.
  if (n.name == "session-changed") main_session_ = n.args.substr(0, n.args.find(' '));
  if (IsStructural(n.name)) ScheduleRefresh();
}

void LocalCollector::OnOutput(const std::string& session_id, const ControlNotification& n) {
  Poller& poller = step_.poller();
  if (n.name == "pause") {
    // We fell behind and tmux dropped the pane's output to us: go on at
    // once, through the connection that was paused, and read the pane again
    // from a seed (its screen missed bytes).
    ++pauses_;
    const std::string go = "refresh-client -A '" + n.pane_id + ":continue'";
    if (session_id == main_session_) control_->Send(go, [](const ControlReply&) {});
    else feeds_.Send(session_id, go);
    poller.Resync(n.pane_id, clock_.Now());
    poller.MarkChanged(n.pane_id, clock_.Now());
    SchedulePoll();
    return;
  }
  if (n.name != "output" && n.name != "extended-output") return;
  if (!poller.Watching(n.pane_id)) return;
  ++output_marks_;
  auto src = byte_source_.find(n.pane_id);
  if (src != byte_source_.end() && src->second == session_id && poller.WantsSeed(n.pane_id))
    poller.OnOutput(n.pane_id, UnescapeOutput(OutputData(n)), clock_.Now());
  else
    poller.MarkChanged(n.pane_id, clock_.Now());
  SchedulePoll();
}

void LocalCollector::ScheduleRefresh() {
  if (debounce_timer_.active()) return;
  debounce_timer_.Once(options_.refresh_debounce, [this] { Refresh(); });
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
  ScanStep::Hooks hooks;
  hooks.heard = [this](const PaneScanner::Result& scan) {
    // Feed clients follow the sessions the scan found agents in; the
    // sessions heard whole since the last read spare their panes the
    // activity marks.
    feeds_.Update(FeedSessions(scan.topology, scan.polled, main_session_));
    return HeardPanes(scan.topology);
  };
  step_.Apply(*records, files_, clock_.Now(), hooks);
  SchedulePoll();
}

std::set<std::string> LocalCollector::HeardPanes(const Topology& topology) {
  // A client heard every change since the previous read only if the same
  // connection was attached then too: output written before it attached
  // is left to the activity scan.
  std::map<std::string, int64_t> now = feeds_.Connected();
  if (control_->connected() && !main_session_.empty()) now[main_session_] = -control_->spawns();
  std::set<std::string> panes;
  std::map<std::string, std::string> source;
  for (const auto& p : topology.panes) {
    auto a = now.find(p.session_id);
    auto b = heard_.find(p.session_id);
    if (a == now.end() || b == heard_.end() || a->second != b->second) continue;
    panes.insert(p.pane_id);
    // One connection's bytes per pane: the main client's when it shows the
    // pane, else the feed of the lowest session id that shows it.
    auto [it, fresh] = source.emplace(p.pane_id, p.session_id);
    if (!fresh && it->second != main_session_ &&
        (p.session_id == main_session_ || p.session_id < it->second))
      it->second = p.session_id;
  }
  heard_ = std::move(now);
  byte_source_ = std::move(source);
  step_.poller().SetBytePanes(panes, clock_.Now());
  return panes;
}

void LocalCollector::SchedulePoll() {
  const TimeNs deadline = control_->connected() ? step_.poller().NextDeadline() : 0;
  if (deadline == 0) {
    poll_timer_.Stop();
    return;
  }
  poll_timer_.Once(deadline - clock_.Now(), [this] { RunPoll(); });
}

void LocalCollector::RunPoll() {
  const TimeNs now = clock_.Now();
  Poller& poller = step_.poller();
  poller.Tick(now);
  if (control_->connected()) {
    for (const auto& id : poller.TakeDueCaptures(now)) {
      if (poller.WantsSeed(id)) {
        if (!SendSeed(id)) poller.CaptureFailed(id);
        continue;
      }
      bool sent = control_->Send("capture-pane -p -t " + id, [this, id](const ControlReply& r) {
        if (r.ok) step_.poller().OnCapture(id, r.text, clock_.Now());
        else step_.poller().CaptureFailed(id);
        SchedulePoll();
      });
      if (!sent) poller.CaptureFailed(id);
    }
  }
  SchedulePoll();
}

bool LocalCollector::SendSeed(const std::string& pane_id) {
  auto done = [this, pane_id](const ControlReply& head, const ControlReply& screen) {
    Poller& poller = step_.poller();
    auto seed = head.ok && screen.ok ? ParseSeed(head.text, screen.text)
                                     : core::Result<PaneSeed>(core::MakeError(
                                           core::Err::kPayloadInvalid, head.ok ? screen.text : head.text));
    if (seed) {
      poller.OnSeed(pane_id, *seed, clock_.Now());
    } else {
      if (head.text != "disconnected")
        spdlog::debug("{}: seed capture of {} failed: {}", options_.target_id, pane_id,
                      seed.error().ToString());
      poller.CaptureFailed(pane_id);
    }
    SchedulePoll();
  };
  // Through the connection its bytes come by, so that the reply is in
  // order with them: what tmux wrote before it is in the capture.
  auto src = byte_source_.find(pane_id);
  if (src == byte_source_.end()) return false;
  if (src->second == main_session_) return control_->SendPair(SeedCommand(pane_id), std::move(done));
  return feeds_.SendPair(src->second, SeedCommand(pane_id), std::move(done));
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
