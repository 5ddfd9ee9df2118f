// The loop of `agtmux ui`: one poll over the terminal, the daemon's watch
// stream and the worker's results, so no key waits on the daemon. The
// stream is asked for a heartbeat every second; three seconds without a
// byte means the daemon is not answering: the view says so, keeps the
// last rows, and reconnects with its cursor (a restarted daemon answers
// reset + snapshot, docs/api.md). Actions and the preview run on the
// worker (cli/ui/worker.h).
//
// AGTMUX_UI_STATS=<file> appends one line per frame painted after a
// change of the stream: "update <ns>" (apply + rebuild + layout + paint),
// for bench/cli/ui_bench.py.
#include "cli/ui/app.h"

#include <poll.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "cli/client/action_client.h"
#include "cli/client/daemon_client.h"
#include "cli/ui/model.h"
#include "cli/ui/terminal.h"
#include "cli/ui/watch_conn.h"
#include "cli/ui/worker.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/base/json.h"
#include "libagtcore/os/paths.h"
#include "libagtcore/base/shell.h"

namespace agt::cli::ui {
namespace {

constexpr core::TimeNs kSilence = 3 * core::kNsPerSec;     // no byte for this long: not answering
constexpr core::TimeNs kRetry = 500 * core::kNsPerMs;      // reconnect attempts
constexpr core::TimeNs kPreviewEvery = 2 * core::kNsPerSec;  // refresh of the selected pane's screen

core::TimeNs Mono() { return core::SystemClock::Get().Monotonic(); }

std::string FirstLine(const std::string& s) {
  std::string out = s.substr(0, s.find('\n'));
  return out;
}

/// The last non-blank line of `s`.
std::string LastLine(const std::string& s) {
  size_t end = s.find_last_not_of(" \n");
  if (end == std::string::npos) return "";
  size_t start = s.rfind('\n', end);
  return s.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}

/// Inside tmux but in no pane: a `display-popup` (tmux sets $TMUX there,
/// and $TMUX_PANE only in panes).
bool InPopup() {
  const char* tmux = std::getenv("TMUX");
  const char* pane = std::getenv("TMUX_PANE");
  return tmux && *tmux && !(pane && *pane);
}

class App {
 public:
  App(const UiOptions& o, core::Paths paths) : options_(o), paths_(std::move(paths)) {
    if (const char* s = std::getenv("AGTMUX_UI_STATS"); s && *s) stats_ = std::fopen(s, "a");
  }
  ~App() {
    if (stats_) std::fclose(stats_);
  }

  int Run() {
    Terminal terminal;
    terminal_ = &terminal;
    while (!quit_) {
      const core::TimeNs now = Mono();
      Connect(now);
      if (conn_.is_open() && now - last_byte_ > kSilence) {
        conn_.Close();
        model_.set_connection(Connection::kNotAnswering);
        next_connect_ = now;
        dirty_ = true;
      }
      MaybePreview(now);
      Draw(now);
      pollfd fds[3] = {{STDIN_FILENO, POLLIN, 0}, {worker_.fd(), POLLIN, 0}, {-1, 0, 0}};
      if (conn_.is_open()) fds[2] = {conn_.fd(), conn_.events(), 0};
      // Wake for the clock's next second (ages), a reconnect, or silence.
      int timeout = 1000 - static_cast<int>((core::SystemClock::Get().Now() / core::kNsPerMs) % 1000);
      if (!conn_.is_open()) timeout = std::min<int>(timeout, static_cast<int>(kRetry / core::kNsPerMs));
      int rc = ::poll(fds, 3, timeout);
      // Keys are read every turn: a resize interrupts poll (EINTR) and
      // comes back from ncurses as KEY_RESIZE.
      for (int k; !quit_ && (k = terminal.ReadKey()) >= 0;) OnKey(k);
      if (terminal.resized()) dirty_ = true;
      if (rc <= 0) continue;
      if (fds[1].revents & POLLIN) {
        worker_.Deliver();
        dirty_ = true;
      }
      if (fds[2].fd >= 0 && fds[2].revents) ReadStream();
    }
    terminal.End();
    if (!exec_.empty()) {
      std::fflush(stdout);
      return ReportError(ExecAttach(exec_));
    }
    return 0;
  }

 private:
  void Connect(core::TimeNs now) {
    if (conn_.is_open() || now < next_connect_) return;
    next_connect_ = now + kRetry;
    std::string q = QueryString({{"scope", "panes"}, {"interval", "1s"}, {"cursor", model_.items().cursor()}});
    core::Status st = conn_.Open(paths_.socket_path, "/v1/watch" + q);
    if (st) {
      last_byte_ = now;
      if (!followed_) {
        // Inside tmux: the server this ui runs in gets watched (DaemonClient::FollowCallerTmux).
        followed_ = true;
        worker_.Post([]() -> std::function<void()> {
          ClientOptions o;
          o.autostart = false;
          (void)DaemonClient::Open(o);
          return [] {};
        });
      }
      return;
    }
    if (!tried_start_ && options_.autostart) {
      // Nothing answers at start-up: start agtmuxd, as every agtmux command does.
      tried_start_ = true;
      model_.SetStatus("starting agtmuxd...", false);
      worker_.Post([this]() -> std::function<void()> {
        auto pid = StartDaemon(paths_, 3 * core::kNsPerSec);  // the one start; see DisableAutostart
        core::Error err = pid ? core::Error{} : pid.error();
        bool ok = pid.ok();
        return [this, ok, err] {
          model_.SetStatus(ok ? "started agtmuxd" : FirstLine(err.ToString()), !ok);
          next_connect_ = 0;
        };
      });
    }
    if (model_.connection() == Connection::kLive) model_.set_connection(Connection::kNotAnswering);
    if (tried_start_ && worker_.pending() == 0 && model_.connection() == Connection::kConnecting)
      model_.set_connection(Connection::kNotAnswering);
    dirty_ = true;
  }

  void ReadStream() {
    const core::TimeNs start = Mono();
    bool changed = false;
    core::Status st = conn_.OnReady([&](std::string_view line) {
      rapidjson::Document d;
      if (!core::ParseJson(line, &d)) return true;
      const uint64_t before = model_.items().generation();
      model_.Apply(d);
      if (model_.items().generation() != before) changed = true;
      if (model_.connection() != Connection::kLive) {
        model_.set_connection(Connection::kLive);
        changed = true;
      }
      return true;
    });
    last_byte_ = Mono();
    if (!st) {
      model_.set_connection(Connection::kNotAnswering);
      next_connect_ = Mono() + kRetry;
      dirty_ = true;
    }
    if (!changed) return;
    model_.Rebuild();
    dirty_ = true;
    Draw(start);
    if (stats_) {
      std::fprintf(stats_, "update %lld\n", static_cast<long long>(Mono() - start));
      std::fflush(stats_);
    }
  }

  void Draw(core::TimeNs now) {
    const core::TimeNs wall = core::SystemClock::Get().Now();
    const int64_t second = wall / core::kNsPerSec;
    if (!dirty_ && second == drawn_second_) return;
    (void)now;
    drawn_second_ = second;
    dirty_ = false;
    terminal_->Paint(BuildFrame(&model_, terminal_->cols(), terminal_->rows(), wall));
  }

  void OnKey(int key) {
    dirty_ = true;
    Intent i = model_.HandleKey(key);
    ActionGuards g;
    g.if_runtime = i.runtime_id;
    switch (i.kind) {
      case Intent::kNone: return;
      case Intent::kQuit: quit_ = true; return;
      case Intent::kPreview: next_preview_ = 0; preview_for_.clear(); return;
      case Intent::kJump:
        model_.SetStatus("jumping to " + i.ref + "...", false);
        worker_.Post([this, i, g]() -> std::function<void()> {
          auto o = Attach(i.ref, g, false);
          return [this, i, o = std::move(o)]() mutable {
            if (!o) return model_.SetStatus(FirstLine(o.error().ToString()), true);
            if (o->mode == "switched") {
              // In a popup the view has done its job: close it (-E) on the pane.
              if (InPopup()) quit_ = true;
              return model_.SetStatus("jumped to " + i.ref, false);
            }
            if (o->mode == "attach" && o->client)
              return model_.SetStatus("on another tmux server; attach with: " + core::ShellJoin(o->command), true);
            if (o->mode == "print") return model_.SetStatus("attach with: " + core::ShellJoin(o->command), false);
            exec_ = o->command;  // outside tmux: leave the view and attach
            quit_ = true;
          };
        });
        return;
      case Intent::kRespond:
        model_.SetStatus("answering " + i.ref + "...", false);
        worker_.Post([this, i, g]() -> std::function<void()> {
          auto d = Respond(i.ref, i.choices, g);
          std::string text = d ? RespondSummary(*d) : FirstLine(d.error().ToString());
          bool err = !d;
          return [this, text, err] {
            model_.SetStatus(text, err);
            next_preview_ = 0;
          };
        });
        return;
      case Intent::kSend:
        model_.SetStatus("sent to " + i.ref + "; waiting for the agent...", false);
        worker_.Post([this, i, g]() -> std::function<void()> {
          SendArgs a;
          a.ref = i.ref;
          a.text = i.text;
          a.enter = true;
          a.wait = true;
          a.timeout = "120s";
          a.guards = g;
          auto o = Send(a);
          std::string text;
          bool err = !o;
          if (!o) text = FirstLine(o.error().ToString());
          else if (o->exit == 124) text = i.ref + ": no answer within 120 s", err = true;
          else text = i.ref + " answered: " + LastLine(o->output);
          return [this, text, err] {
            model_.SetStatus(text, err);
            next_preview_ = 0;
          };
        });
        return;
    }
  }

  /// Fetches the selected pane's screen when the selection changed, and
  /// every kPreviewEvery while it stays; one request at a time.
  void MaybePreview(core::TimeNs now) {
    const PaneRow* r = model_.Selected();
    if (r == nullptr || preview_busy_ || model_.connection() != Connection::kLive) return;
    if (r->key == preview_for_ && now < next_preview_) return;
    preview_busy_ = true;
    preview_for_ = r->key;
    next_preview_ = now + kPreviewEvery;
    const int lines = std::max(10, terminal_->rows());
    worker_.Post([this, key = r->key, ref = r->ref, lines]() -> std::function<void()> {
      auto out = ViewOutput(ref, lines, /*escapes=*/true);  // the preview keeps the pane's colours
      std::string text = out ? *out : "(" + FirstLine(out.error().ToString()) + ")";
      return [this, key, text] {
        preview_busy_ = false;
        model_.SetPreview(key, text);
      };
    });
  }

  UiOptions options_;
  core::Paths paths_;
  Model model_;
  Worker worker_;
  WatchConnection conn_;
  Terminal* terminal_ = nullptr;
  core::TimeNs last_byte_ = 0, next_connect_ = 0, next_preview_ = 0;
  int64_t drawn_second_ = -1;
  bool dirty_ = true, quit_ = false, tried_start_ = false, preview_busy_ = false, followed_ = false;
  std::string preview_for_;
  std::vector<std::string> exec_;
  std::FILE* stats_ = nullptr;
};

}  // namespace

int RunUi(const UiOptions& options) {
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
    return ReportError(core::MakeError(core::Err::kRequestInvalid,
                                       "agtmux ui needs a terminal; use `agtmux watch` or `agtmux list panes`"));
  auto paths = core::ResolvePaths(core::RealEnv());
  if (!paths) return ReportError(paths.error());
  // The worker thread may still wait on the daemon when the user quits:
  // leave without running static destructors under it.
  DisableAutostart();  // only the start-up path above starts agtmuxd
  auto* app = new App(options, *paths);
  int rc = app->Run();
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(rc);
}

}  // namespace agt::cli::ui
