// Notifier (see notifier.h): the OS side of notifications. One timer,
// armed for the policy's next due notice; at firing, a `tmux list-clients`
// on the pane's server (2 s at most) decides focus and names the clients
// for display-message; then every configured channel, each on its own,
// so one that fails does not stop the others. Failures are logged with
// their reason, the first at once and then at most one line a minute.
#include "aggregator/notify/notifier.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "libagtcore/uv/handles.h"

namespace agt::agg {
namespace {

constexpr core::TimeNs kListClientsTimeout = 2 * core::kNsPerSec;
constexpr core::TimeNs kTmuxMessageTimeout = 2 * core::kNsPerSec;
constexpr core::TimeNs kFailureLogEvery = 60 * core::kNsPerSec;

bool OnPath(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string_view DesktopUrgency(core::State s) {
  return s == core::State::kWaitingApproval || s == core::State::kError ? "critical" : "normal";
}

}  // namespace

std::vector<TmuxClient> ParseClients(std::string_view out) {
  std::vector<TmuxClient> clients;
  while (!out.empty()) {
    size_t nl = out.find('\n');
    std::string_view line = out.substr(0, nl);
    out = nl == std::string_view::npos ? std::string_view() : out.substr(nl + 1);
    size_t t1 = line.find('\t');
    size_t t2 = t1 == std::string_view::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string_view::npos) continue;
    if (line.substr(0, t1) == "1") continue;  // a control client (the daemon's own)
    clients.push_back({std::string(line.substr(t1 + 1, t2 - t1 - 1)), std::string(line.substr(t2 + 1))});
  }
  return clients;
}

PaneObservation ObservePane(const PaneRow& row) {
  PaneObservation o;
  o.agent = row.agent;
  o.state = row.st.signal.state;
  o.state_since = row.st.updated_at;
  Notice& n = o.notice;
  n.target = row.target;
  n.session = row.session_name;
  n.pane_id = row.pane_id;
  n.runtime_id = row.runtime_id;
  n.agent = row.agent_type;
  n.window_index = row.window_index;
  n.window_name = row.window_name;
  n.pane_index = row.pane_index;
  n.state = row.st.signal.state;
  n.source = row.agent && row.st.has_source ? std::string(core::SourceColumn(row.st.source)) : "";
  n.detail = row.st.signal.detail;
  n.evidence = row.st.signal.evidence;
  n.entered_at = row.st.updated_at;
  o.key = n.Key();
  return o;
}

Notifier::Notifier(uv_loop_t* loop, const core::Clock& clock, NotifierOptions options)
    : loop_(loop),
      clock_(clock),
      options_(std::move(options)),
      policy_(NotifyPolicyOptions{options_.config.states, options_.config.dwell, options_.config.cooldown,
                                  clock.Now()}),
      children_(loop),
      webhook_(loop) {
  timer_ = new uv_timer_t;
  uv_timer_init(loop, timer_);
  timer_->data = this;
  uv_unref(uv::AsHandle(timer_));
}

Notifier::~Notifier() { uv::CloseAndDelete(timer_); }

bool Notifier::enabled() const {
  const core::NotifyConfig& c = options_.config;
  return !c.command.empty() || c.desktop || c.tmux_message || !c.webhook.empty();
}

void Notifier::OnRows(const std::vector<PaneRow>& rows) {
  if (!enabled()) return;
  std::vector<PaneObservation> panes;
  panes.reserve(rows.size());
  for (const PaneRow& r : rows) panes.push_back(ObservePane(r));
  policy_.Observe(panes, clock_.Monotonic());
  Arm();
}

void Notifier::Arm() {
  std::optional<core::TimeNs> due = policy_.NextDue();
  if (!due) {
    uv_timer_stop(timer_);
    return;
  }
  core::TimeNs wait = std::max<core::TimeNs>(*due - clock_.Monotonic(), 0);
  // Rounded up: a timer that fires a hair early would find nothing due.
  uint64_t ms = static_cast<uint64_t>((wait + core::kNsPerMs - 1) / core::kNsPerMs);
  uv_timer_start(timer_, [](uv_timer_t* t) { static_cast<Notifier*>(t->data)->FireDue(); }, ms, 0);
}

void Notifier::FireDue() {
  int64_t suppressed = policy_.suppressed_by_cooldown();
  for (Notice& n : policy_.TakeDue(clock_.Monotonic())) Check(std::move(n));
  if (policy_.suppressed_by_cooldown() > suppressed)
    spdlog::debug("notify: {} notice(s) not sent: the pane was notified within the cooldown",
                  policy_.suppressed_by_cooldown() - suppressed);
  Arm();
}

void Notifier::Check(Notice n) {
  std::optional<std::string> socket = options_.tmux_socket ? options_.tmux_socket(n.target) : std::nullopt;
  const core::NotifyConfig& c = options_.config;
  if (!socket || (!c.skip_focused && !c.tmux_message)) {
    Deliver(n, socket.value_or(""), {});
    return;
  }
  ChildOptions co;
  co.argv = {options_.tmux_program, "-S", *socket, "list-clients", "-F",
             "#{client_control_mode}\t#{client_name}\t#{pane_id}"};
  co.timeout = kListClientsTimeout;
  co.capture_stdout = true;
  std::string sock = *socket;
  auto st = children_.Spawn(co, [this, n, sock](const ChildExit& e) {
    // A server that does not answer has no client looking at the pane.
    std::vector<TmuxClient> clients = e.exit_status == 0 ? ParseClients(e.out) : std::vector<TmuxClient>{};
    if (options_.config.skip_focused) {
      for (const TmuxClient& cl : clients) {
        if (cl.pane_id == n.pane_id) {
          spdlog::info("notify: not sent, {} is on screen in client {}: {}", n.pane_id, cl.name, n.Title());
          return;
        }
      }
    }
    Deliver(n, sock, clients);
  });
  if (!st) {
    Failed("tmux list-clients", st.error().message);
    Deliver(n, sock, {});
  }
}

void Notifier::Deliver(const Notice& n, const std::string& socket, const std::vector<TmuxClient>& clients) {
  const core::NotifyConfig& c = options_.config;
  policy_.Sent(n.Key(), clock_.Monotonic());
  spdlog::info("notify: {}", n.Title());
  auto report = [this](std::string channel) {
    return [this, channel](const ChildExit& e) {
      if (e.timed_out) Failed(channel, "killed after its timeout");
      else if (e.exit_status != 0) Failed(channel, "exit status " + std::to_string(e.exit_status));
    };
  };
  if (!c.command.empty()) {
    ChildOptions co;
    co.argv = c.command;
    co.env = n.Environment();
    co.timeout = c.command_timeout;
    if (auto st = children_.Spawn(co, report("command " + c.command[0])); !st) Failed("command", st.error().message);
  }
  if (c.desktop) {
    if (!OnPath(options_.desktop_program)) {
      if (!said_no_desktop_)
        spdlog::warn("notify: desktop notifications are on, but {} is not on PATH; none will be shown",
                     options_.desktop_program);
      said_no_desktop_ = true;
    } else {
      ChildOptions co;
      co.argv = {options_.desktop_program, "--app-name=agtmux", "--urgency=" + std::string(DesktopUrgency(n.state)),
                 n.Title(), n.Message()};
      co.timeout = kTmuxMessageTimeout;
      if (auto st = children_.Spawn(co, report("notify-send")); !st) Failed("notify-send", st.error().message);
    }
  }
  if (c.tmux_message && !socket.empty()) {
    std::string text = TmuxLiteral("agtmux: " + n.Title() + ": " + n.Message());
    for (const TmuxClient& cl : clients) {
      ChildOptions co;
      co.argv = {options_.tmux_program, "-S", socket, "display-message", "-c", cl.name, "-d", "10000", text};
      co.timeout = kTmuxMessageTimeout;
      if (auto st = children_.Spawn(co, report("tmux display-message")); !st)
        Failed("tmux display-message", st.error().message);
    }
  }
  if (!c.webhook.empty()) {
    WebhookPost p;
    p.url = c.webhook;
    p.title = HeaderValue(n.Title(), 250);
    p.priority = c.webhook_priority;
    p.tags = HeaderValue(n.Tags(), 250);
    p.body = n.Message();
    p.timeout = c.webhook_timeout;
    webhook_.Post(std::move(p), [this](const std::string& error) {
      if (!error.empty()) Failed("webhook", error);
    });
  }
}

void Notifier::Failed(const std::string& channel, const std::string& why) {
  core::TimeNs now = clock_.Monotonic();
  if (last_failure_log_ != 0 && now - last_failure_log_ < kFailureLogEvery) {
    ++failures_unlogged_;
    return;
  }
  if (failures_unlogged_ > 0) {
    spdlog::warn("notify: {} failed: {} ({} more failures in the last minute not logged)", channel, why,
                 failures_unlogged_);
  } else {
    spdlog::warn("notify: {} failed: {}", channel, why);
  }
  last_failure_log_ = now;
  failures_unlogged_ = 0;
}

std::unique_ptr<Notifier> StartNotifier(uv_loop_t* loop, const core::Clock& clock, const core::NotifyConfig& config,
                                        const TargetRegistry& targets, WatchHub& hub) {
  NotifierOptions o;
  o.config = config;
  o.tmux_socket = [&targets](const std::string& name) -> std::optional<std::string> {
    const TargetStatus* t = targets.Find(name);
    if (t == nullptr || t->spec.kind != "local") return std::nullopt;
    if (!t->spec.tmux_socket.empty()) return t->spec.tmux_socket;
    const TargetStatus* host = targets.Find("host");
    return host ? std::optional<std::string>(host->spec.tmux_socket) : std::nullopt;
  };
  auto n = std::make_unique<Notifier>(loop, clock, std::move(o));
  if (n->enabled()) {
    Notifier* raw = n.get();
    hub.AddListener([raw](const std::vector<PaneRow>& rows) { raw->OnRows(rows); });
  }
  return n;
}

}  // namespace agt::agg
