// SshControlFeed (see ssh_control_feed.h). The thread owns the executor and
// its channels; the loop thread only sees FeedReports through a uv_async.
#include "aggregator/observe/ssh_control_feed.h"

#include <spdlog/spdlog.h>

#include <memory>

#include "aggregator/observe/tmux_control.h"
#include "libagtcore/text.h"
#include "libagtcore/uv/handles.h"

namespace agt::agg {
namespace {

using core::TimeNs;

constexpr TimeNs kReadSlice = 50 * core::kNsPerMs;  // how soon Stop is seen

// Notifications after which the scan's topology may differ.
bool Structural(const std::string& name) {
  return name == "window-add" || name == "window-close" || name == "unlinked-window-add" ||
         name == "unlinked-window-close" || name == "window-renamed" || name == "layout-change" ||
         name == "sessions-changed" || name == "session-renamed" || name == "session-window-changed" ||
         name == "window-pane-changed" || name == "pane-mode-changed";
}

}  // namespace

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
  };
  // A client that ended, and why: when its session is still listed, the
  // client died on its own (killed, or it cannot stay attached) and the
  // feed goes down; when its session is gone, the others are reattached.
  std::pair<std::string, std::string> ended;
  while (!stop_) {
    // Channels are only opened and dropped here, with none left from a
    // previous round, so a failed Run never frees a session under one.
    std::vector<std::string> argv = options_.tmux;
    argv.insert(argv.end(), {"list-sessions", "-F", "#{session_id}"});
    auto list = ex.Run(argv, {});
    if (!list) {
      why = list.error().message;
      return true;
    }
    if (list->exit_code != 0) {
      why = "no tmux server";
      return true;
    }
    if (!ended.first.empty()) {
      for (std::string_view line : core::SplitLines(list->out)) {
        if (line != ended.first) continue;
        why = ended.second;
        return true;
      }
      ended = {};
    }
    std::vector<Client> clients;
    FeedReport up;
    up.up = true;
    up.changed = true;
    for (std::string_view line : core::SplitLines(list->out)) {
      if (line.empty()) continue;
      std::vector<std::string> attach = options_.tmux;
      // -r: read-only; a control client that never sets a size does not
      // size the session's windows.
      attach.insert(attach.end(), {"-C", "attach-session", "-r", "-t", std::string(line)});
      auto ch = ex.OpenCommand(attach, options_.timeout);
      if (!ch) {
        why = ch.error().message;
        return true;
      }
      clients.push_back(Client{std::string(line), std::move(*ch), {}});
      up.sessions[std::string(line)] = ++next_connection_;
    }
    if (clients.empty()) {
      why = "no tmux session";
      return true;
    }
    Post(up);
    // Every channel is drained without waiting; when none had bytes, a read
    // of the first waits a slice on the session's socket (bytes for any
    // channel wake it; the others are read at the end of the slice).
    char buf[16384];
    bool relist = false;
    while (!stop_ && !relist) {
      FeedReport r;
      r.up = true;
      r.sessions = up.sessions;
      bool any = false;
      for (size_t i = 0; i < clients.size() + 1; ++i) {
        const bool wait = i == clients.size();
        if (wait && any) break;
        Client& c = clients[wait ? 0 : i];
        auto n = c.channel->Read(buf, sizeof buf, wait ? kReadSlice : 0);
        if (!n) {
          if (n.error().code == core::Err::kTimeout) continue;
          why = n.error().message;
          return true;
        }
        if (*n == 0) {
          // Its session may have been closed: the sessions are listed again.
          ended = {c.session, "the control client of session " + c.session + " ended"};
          relist = true;
          break;
        }
        any = true;
        c.parser.Feed(std::string_view(buf, *n));
        c.parser.TakeReplies();
        for (const auto& note : c.parser.TakeNotifications()) {
          if (note.name == "output" || note.name == "extended-output") {
            r.output.insert(note.pane_id);
          } else if (note.name == "exit") {
            ended = {c.session, "the control client of session " + c.session + " exited" +
                                    (note.args.empty() ? "" : " (" + note.args + ")")};
            relist = true;
            r.changed = true;
          } else if (Structural(note.name)) {
            r.changed = true;
            // Attach to the sessions as they are now; the loop hears the
            // new connection numbers with the next report.
            if (note.name == "sessions-changed") relist = true;
          }
        }
      }
      if (!r.output.empty() || r.changed) Post(std::move(r));
    }
  }
  return false;
}

}  // namespace agt::agg
