// SshControlFeed (see ssh_control_feed.h). The thread owns the executor and
// its channels; the loop thread only sees FeedReports through a uv_async.
#include "aggregator/observe/ssh_control_feed.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>

#include "aggregator/observe/tmux_control.h"
#include "libagtcore/base/shell.h"
#include "libagtcore/base/text.h"
#include "libagtcore/uv/handles.h"

namespace agt::agg {
namespace {

using core::TimeNs;

constexpr TimeNs kReadSlice = 50 * core::kNsPerMs;     // how soon Stop is seen
constexpr TimeNs kRelistEvery = 200 * core::kNsPerMs;  // at most one listing in this time

// Notifications after which the scan's topology may differ.
bool Structural(const std::string& name) {
  return name == "window-add" || name == "window-close" || name == "unlinked-window-add" ||
         name == "unlinked-window-close" || name == "window-renamed" || name == "layout-change" ||
         name == "sessions-changed" || name == "session-renamed" || name == "session-window-changed" ||
         name == "window-pane-changed" || name == "pane-mode-changed";
}

// Notifications tmux 3.3a sends to every control client, a half-identified
// one included (the others skip a client without a session): each is a
// moment at which an attach could have crashed the server.
bool ReachesEveryClient(const std::string& name) {
  return name == "sessions-changed" || name == "session-renamed" || name == "session-window-changed" ||
         name == "window-pane-changed" || name == "pane-mode-changed" || name == "client-detached" ||
         name == "paste-buffer-changed" || name == "paste-buffer-deleted";
}

TimeNs Monotonic() { return core::SystemClock::Get().Monotonic(); }

// The remote's session ids; nullopt when no tmux server answers. While
// clients' channels are open the listing runs on a channel of its own:
// SshExecutor::Run drops and reconnects the ssh session after a failure,
// which would free the session under them.
core::Result<std::optional<std::set<std::string>>> ListSessions(SshExecutor& ex, const std::vector<std::string>& tmux,
                                                                bool channels_open, TimeNs timeout) {
  std::vector<std::string> argv = tmux;
  argv.insert(argv.end(), {"list-sessions", "-F", "#{session_id}"});
  std::string out;
  int status = 0;
  if (!channels_open) {
    auto r = ex.Run(argv, {});
    if (!r) return r.error();
    out = std::move(r->out);
    status = r->exit_code;
  } else {
    auto ch = ex.OpenCommand({"sh", "-c", core::ShellJoin(argv) + " 2>/dev/null; echo \"=$?\""}, timeout);
    if (!ch) return ch.error();
    const TimeNs deadline = Monotonic() + timeout;
    char buf[4096];
    while (true) {
      const TimeNs left = deadline - Monotonic();
      if (left <= 0) return core::MakeError(core::Err::kTimeout, "listing the remote tmux sessions timed out");
      auto n = (*ch)->Read(buf, sizeof buf, left);
      if (!n) return n.error();
      if (*n == 0) break;
      out.append(buf, *n);
    }
    // The last line is "=<tmux's exit status>".
    while (!out.empty() && out.back() == '\n') out.pop_back();
    const size_t line = out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1;
    if (out.compare(line, 1, "=") != 0)
      return core::MakeError(core::Err::kTargetUnreachable, "listing the remote tmux sessions: no exit status");
    status = std::atoi(out.c_str() + line + 1);
    out.resize(line);
  }
  if (status != 0) return std::optional<std::set<std::string>>();
  std::set<std::string> ids;
  for (std::string_view line : core::SplitLines(out))
    if (!line.empty()) ids.insert(std::string(line));
  return std::optional<std::set<std::string>>(std::move(ids));
}

}  // namespace

void StirRhythm::Stir(TimeNs now) {
  if (any_ && now - last_ < kCoalesce) return;
  if (any_ && now - last_ < kPause) {
    gaps_.push_back(now - last_);
    if (gaps_.size() > kGaps) gaps_.erase(gaps_.begin());
  }
  any_ = true;
  last_ = now;
}

TimeNs StirRhythm::QuietNeeded(TimeNs settle) const {
  TimeNs longest = 0;
  for (TimeNs g : gaps_) longest = std::max(longest, g);
  return std::max(settle, 2 * longest);
}

std::vector<std::string> SessionsToAttach(const std::map<std::string, TimeNs>& waiting, bool have_clients,
                                          TimeNs now, TimeNs stirred, TimeNs quiet, TimeNs& forced_at,
                                          const SshControlFeedOptions& options) {
  std::vector<std::string> attach;
  if (waiting.empty()) return attach;
  auto oldest = std::min_element(waiting.begin(), waiting.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
  if (!have_clients) {
    // Nothing can be heard without a client: one, at once, one per settle.
    if (now - forced_at >= options.settle) {
      attach.push_back(oldest->first);
      forced_at = now;
    }
  } else if (now - stirred >= std::max(quiet, options.settle)) {
    for (const auto& w : waiting) attach.push_back(w.first);
  } else if (now - oldest->second >= options.settle_max && now - forced_at >= options.settle_max) {
    attach.push_back(oldest->first);
    forced_at = now;
  }
  return attach;
}

std::vector<std::string> AttachCommand(const std::vector<std::string>& tmux,
                                       const std::string& session) {
  const std::string t = core::ShellJoin(tmux);
  // -r: read-only; a control client that never sets a size does not size
  // the session's windows.
  const std::string attach = " -C attach-session -r -t " + core::ShellJoin({session});
  // tmux before 3.2 has no -N: its -V says 1.x, 2.x, 3.0 or 3.1 (with a
  // letter after some).
  const std::string old_tmux =
      "'tmux 1.'*|'tmux 2.'*|'tmux 3.0'|'tmux 3.0'[a-z]|'tmux 3.1'|'tmux 3.1'[a-z]";
  const std::string script =
      "case \"$(" + t + " -V 2>/dev/null)\" in\n" +
      "  " + old_tmux + ") " + t + " has-session 2>/dev/null && exec " + t + attach + " ;;\n" +
      "  *) exec " + t + " -N" + attach + " ;;\n" +
      "esac\n"
      "exit 1\n";
  return {"sh", "-c", script};
}

SshControlFeed::SshControlFeed(uv_loop_t* loop, SshOptions ssh, SshControlFeedOptions options, Sink sink)
    : loop_(loop), ssh_(std::move(ssh)), options_(std::move(options)), sink_(std::move(sink)) {
  async_ = new uv_async_t;
  uv_async_init(loop_, async_, [](uv_async_t* a) { static_cast<SshControlFeed*>(a->data)->Drain(); });
  async_->data = this;
}

SshControlFeed::~SshControlFeed() {
  stop_ = true;
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  uv::CloseAndDelete(async_);
}

void SshControlFeed::Start() { thread_ = std::thread([this] { Run(); }); }

void SshControlFeed::Post(FeedReport r) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(r));
  }
  uv_async_send(async_);
}

void SshControlFeed::Drain() {
  std::vector<FeedReport> reports;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reports.swap(queue_);
  }
  for (auto& r : reports) sink_(std::move(r));
}

bool SshControlFeed::Sleep(TimeNs ns) {
  std::unique_lock<std::mutex> lock(mu_);
  return !wake_.wait_for(lock, std::chrono::nanoseconds(ns), [this] { return stop_.load(); });
}

void SshControlFeed::Run() {
  SshExecutor ex(ssh_);
  while (!stop_) {
    std::string why;
    if (!Follow(ex, why)) return;
    FeedReport down;
    down.why = why;
    Post(std::move(down));
    if (!Sleep(options_.retry)) return;
  }
}

bool SshControlFeed::Follow(SshExecutor& ex, std::string& why) {
  struct Client {
    std::string session;
    std::unique_ptr<SshChannel> channel;
    ControlParser parser;
    int64_t connection = 0;
  };
  std::vector<Client> clients;
  // Sessions listed but not followed yet -> when they were first listed.
  std::map<std::string, TimeNs> waiting;
  // Sessions whose client ended -> why; checked against the next listing:
  // a session still there means its client died on its own (killed), and
  // the feed goes down.
  std::map<std::string, std::string> ended;
  bool relist = true;
  TimeNs listed_at = 0;
  // The last moment a half-identified client could have been hurt: a
  // notification every client gets, a client ended or dropped, an attach.
  TimeNs stirred = Monotonic();
  StirRhythm rhythm;  // of the remote's own changes (not the feed's attaches)
  // The last attach that did not wait for the server to settle; long ago.
  TimeNs forced_at = std::numeric_limits<TimeNs>::min() / 2;
  bool posted_up = false;

  auto report = [&](FeedReport& r) {
    r.up = true;
    for (const Client& c : clients) r.sessions[c.session] = c.connection;
    for (const auto& [session, since] : waiting) r.waiting.insert(session);
  };
  char buf[16384];
  while (!stop_) {
    TimeNs now = Monotonic();
    FeedReport r;
    bool fresh = false;  // the sessions were listed in this round
    if (relist && now - listed_at >= kRelistEvery) {
      auto list = ListSessions(ex, options_.tmux, !clients.empty(), options_.timeout);
      if (!list) {
        why = list.error().message;
        return true;
      }
      if (!*list) {
        why = "no tmux server";
        return true;
      }
      const std::set<std::string>& listed = **list;
      for (const auto& [session, reason] : ended) {
        if (!listed.count(session)) continue;
        why = reason;
        return true;
      }
      ended.clear();
      now = Monotonic();
      listed_at = now;
      relist = false;
      fresh = true;
      // Clients of sessions gone are dropped (tmux has detached them
      // already); the others are kept.
      const size_t before = clients.size();
      std::erase_if(clients, [&](const Client& c) { return !listed.count(c.session); });
      if (clients.size() != before) stirred = now;
      std::erase_if(waiting, [&](const auto& w) { return !listed.count(w.first); });
      for (const std::string& s : listed) {
        bool followed = false;
        for (const Client& c : clients) followed = followed || c.session == s;
        if (!followed) waiting.emplace(s, now);
      }
      if (clients.empty() && waiting.empty()) {
        why = "no tmux session";
        return true;
      }
      r.changed = true;
    }
    // Attach the sessions due, from a listing newer than the last change
    // heard.
    if (!waiting.empty() && (fresh || !relist)) {
      const std::vector<std::string> attach =
          SessionsToAttach(waiting, !clients.empty(), now, stirred, rhythm.QuietNeeded(options_.settle), forced_at,
                           options_);
      for (const std::string& session : attach) {
        ++attaches_;
        auto ch = ex.OpenCommand(AttachCommand(options_.tmux, session), options_.timeout);
        if (!ch) {
          why = ch.error().message;
          return true;
        }
        clients.push_back(Client{session, std::move(*ch), {}, ++next_connection_});
        waiting.erase(session);
        r.changed = true;
      }
      if (!attach.empty()) stirred = Monotonic();
    }
    if (!posted_up || r.changed) {
      posted_up = true;
      report(r);
      Post(std::move(r));
      r = FeedReport{};
    }
    // Every channel is drained without waiting; when none had bytes, a read
    // of the first waits a slice on the session's socket (bytes for any
    // channel wake it; the others are read at the end of the slice).
    bool any = false;
    std::set<size_t> gone;
    for (size_t i = 0; i < clients.size() + 1; ++i) {
      const bool wait = i == clients.size();
      if (wait && (any || clients.empty())) break;
      Client& c = clients[wait ? 0 : i];
      auto n = c.channel->Read(buf, sizeof buf, wait ? kReadSlice : 0);
      if (!n) {
        if (n.error().code == core::Err::kTimeout) continue;
        why = n.error().message;
        return true;
      }
      if (*n == 0) {
        // Its session may have been closed: the sessions are listed again.
        ended.emplace(c.session, "the control client of session " + c.session + " ended");
        gone.insert(wait ? 0 : i);
        continue;
      }
      any = true;
      c.parser.Feed(std::string_view(buf, *n));
      c.parser.TakeReplies();
      for (const auto& note : c.parser.TakeNotifications()) {
        if (note.name == "output" || note.name == "extended-output") {
          r.output.insert(note.pane_id);
          continue;
        }
        if (ReachesEveryClient(note.name)) {
          stirred = Monotonic();
          rhythm.Stir(stirred);
        }
        if (note.name == "exit") {
          ended.emplace(c.session, "the control client of session " + c.session + " exited" +
                                       (note.args.empty() ? "" : " (" + note.args + ")"));
            gone.insert(wait ? 0 : i);
        } else if (Structural(note.name)) {
          r.changed = true;
          if (note.name == "sessions-changed") relist = true;
        }
      }
    }
    if (clients.empty()) Sleep(kReadSlice);
    if (!gone.empty()) {
      for (auto it = gone.rbegin(); it != gone.rend(); ++it) clients.erase(clients.begin() + std::ptrdiff_t(*it));
      stirred = Monotonic();
      relist = true;
      r.changed = true;
    }
    if (!r.output.empty() || r.changed) {
      report(r);
      Post(std::move(r));
    }
  }
  return false;
}

}  // namespace agt::agg
