// `agtmux watch`: follows GET /v1/watch. `--format jsonl` prints the
// daemon's lines exactly as the contract defines them (snapshot, deltas,
// heartbeats, reset); `--format table` keeps the items in memory and redraws
// the table in place. When the daemon goes away mid-stream (its `reset`
// with reason shutdown, or a cut connection) watch reconnects with its last
// cursor for a few seconds, so a restarted daemon gives `reset` + `snapshot`.
// On a terminal, keys are not echoed onto the table, and `q` (or Ctrl-C)
// leaves with the terminal as it was.
#include <CLI/CLI.hpp>
#include <rapidjson/document.h>
#include <termios.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <thread>

#include "cli/command.h"
#include "cli/client/daemon_client.h"
#include "cli/table.h"
#include "cli/client/watch_items.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/base/json.h"
#include "libagtcore/base/timefmt.h"

namespace agt::cli {
namespace {

struct WatchFlags {
  std::string scope = "panes";
  std::string format = "table";
  std::string interval = "2s";
  std::string cursor;
  bool once = false;
  std::vector<std::string> targets;
  bool all_targets = false;
  std::string session, state, agent;
  bool needs_action = false;
};

// The terminal's settings before watch changed them, for the signal handler.
termios g_saved_tty;

void RestoreTtyAndExit(int sig) {
  ::tcsetattr(STDIN_FILENO, TCSANOW, &g_saved_tty);
  ::_exit(128 + sig);
}

/// On a terminal: no echo, keys read one by one by a thread; `q` or Esc
/// ends the process (restoring the terminal), since the main thread may be
/// blocked reading the stream. Ctrl-C and SIGTERM restore it too.
class QuitKeys {
 public:
  QuitKeys() {
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || ::tcgetattr(STDIN_FILENO, &g_saved_tty) != 0) return;
    termios raw = g_saved_tty;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    if (::tcsetattr(STDIN_FILENO, TCSANOW, &raw) != 0) return;
    active_ = true;
    std::signal(SIGINT, RestoreTtyAndExit);
    std::signal(SIGTERM, RestoreTtyAndExit);
    std::signal(SIGHUP, RestoreTtyAndExit);
    std::thread([] {
      char c = 0;
      while (::read(STDIN_FILENO, &c, 1) == 1) {
        if (c == 'q' || c == 'Q' || c == 0x1b) {
          std::fflush(stdout);
          ::tcsetattr(STDIN_FILENO, TCSANOW, &g_saved_tty);
          ::_exit(0);
        }
      }
    }).detach();
  }
  ~QuitKeys() {
    if (active_) ::tcsetattr(STDIN_FILENO, TCSANOW, &g_saved_tty);
  }
  QuitKeys(const QuitKeys&) = delete;
  QuitKeys& operator=(const QuitKeys&) = delete;

 private:
  bool active_ = false;
};

// "14:03:07", local time: the clock a user compares with their own.
std::string LocalClock(core::TimeNs now) {
  std::time_t t = static_cast<std::time_t>(now / core::kNsPerSec);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}

/// The table view: the stream's items, redrawn after each change.
class TableView {
 public:
  TableView(std::string scope, bool tty) : scope_(std::move(scope)), tty_(tty) {}

  void Apply(const rapidjson::Document& line) {
    WatchItems::Line kind = items_.Apply(line);
    if (kind == WatchItems::Line::kIgnored || kind == WatchItems::Line::kReset) return;
    if (kind == WatchItems::Line::kHeartbeat && !tty_) return;  // a pipe gets a new table only on change
    Draw();
  }

 private:
  void Draw() {
    rapidjson::Document arr;
    arr.SetArray();
    for (const auto& [k, item] : items_.items())
      arr.PushBack(rapidjson::Value(*item, arr.GetAllocator()), arr.GetAllocator());
    core::TimeNs now = core::SystemClock::Get().Now();
    std::string out;
    if (tty_) out += "\x1b[H\x1b[2J";
    const int width = TerminalWidth();
    std::string head = "agtmux watch  " + scope_ + "  " + LocalClock(now) + "  " + SummaryLine(items_.summary());
    if (tty_) head += "  (q quits)";
    out += (width > 0 ? TruncateToWidth(head, width) : head) + "\n\n";
    out += RenderItemsTable(scope_, arr, now, tty_ && ColorEnabled(), false, width);
    if (!tty_) out += "\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  }

  std::string scope_;
  bool tty_;
  WatchItems items_;
};

int RunWatch(const WatchFlags& f) {
  auto interval = core::ParseDuration(f.interval);
  if (!interval || *interval <= 0)
    return ReportError(core::MakeError(core::Err::kRequestInvalid, "--interval: not a duration: '" + f.interval + "'"));
  auto client = DaemonClient::Open({});
  if (!client) return ReportError(client.error());
  std::string targets;
  for (const auto& t : f.targets) targets += (targets.empty() ? "" : ",") + t;
  std::string cursor = f.cursor;
  TableView table(f.scope, isatty(STDOUT_FILENO));
  std::unique_ptr<QuitKeys> keys;
  if (f.format == "table" && !f.once) keys = std::make_unique<QuitKeys>();
  core::TimeNs idle = std::max<core::TimeNs>(3 * *interval, 10 * core::kNsPerSec);
  while (true) {
    std::string q = QueryString({{"scope", f.scope},
                                 {"interval", f.interval},
                                 {"cursor", cursor},
                                 {"once", f.once ? "1" : ""},
                                 {"target", targets},
                                 {"session", f.session},
                                 {"state", f.state},
                                 {"agent", f.agent},
                                 {"needs_action", f.needs_action ? "1" : ""}});
    bool shutdown_seen = false;
    core::Status st = client->Stream("/v1/watch" + q, idle, [&](std::string_view line) {
      rapidjson::Document d;
      if (!core::ParseJson(line, &d) || !d.IsObject() || !d.HasMember("type") || !d["type"].IsString()) return true;
      if (d.HasMember("cursor") && d["cursor"].IsString()) cursor = d["cursor"].GetString();
      bool reset = std::string(d["type"].GetString()) == "reset";
      if (reset && d.HasMember("reason") && std::string(d["reason"].GetString()) == "shutdown") shutdown_seen = true;
      if (f.format == "jsonl") {
        std::fwrite(line.data(), 1, line.size(), stdout);
        std::fputc('\n', stdout);
        std::fflush(stdout);
      } else {
        table.Apply(d);
      }
      return true;
    });
    if (!st && st.error().code != core::Err::kDaemonUnreachable) return ReportError(st.error());
    if (f.once && st) return 0;
    if (!shutdown_seen && st) return 0;
    // The daemon went away: wait up to 5 s for it (or its successor) and
    // resume with the last cursor; the new daemon answers reset + snapshot.
    core::TimeNs give_up = core::SystemClock::Get().Monotonic() + 5 * core::kNsPerSec;
    bool back = false;
    while (core::SystemClock::Get().Monotonic() < give_up) {
      if (client->Alive()) {
        back = true;
        break;
      }
      ::usleep(100 * 1000);
    }
    if (!back) {
      return ReportError(core::MakeError(core::Err::kDaemonUnreachable,
                                         "agtmuxd stopped and did not come back within 5 s"));
    }
  }
}

}  // namespace

CommandSpec WatchCommand() {
  return {"watch", "Follow agent pane states live (table, or JSON lines for scripts)",
          [](CLI::App* sub) -> Runner {
            auto f = std::make_shared<WatchFlags>();
            sub->add_option("--scope", f->scope, "panes, windows or sessions")
                ->check(CLI::IsMember({"panes", "windows", "sessions"}));
            sub->add_option("--format", f->format, "table (redraws in place) or jsonl")
                ->check(CLI::IsMember({"table", "jsonl"}));
            sub->add_option("--interval", f->interval, "heartbeat interval (default 2s)");
            sub->add_option("--cursor", f->cursor, "resume after <stream_id>:<sequence>");
            sub->add_flag("--once", f->once, "print the snapshot (or the changes since --cursor) and exit");
            sub->add_option("--target", f->targets, "only these targets (repeatable)");
            sub->add_flag("--all-targets", f->all_targets, "every target (the default)");
            sub->add_option("--session", f->session, "only sessions with this name");
            sub->add_option("--state", f->state, "only panes in this state");
            sub->add_option("--agent", f->agent, "only this agent type");
            sub->add_flag("--needs-action", f->needs_action, "only panes waiting for approval or input");
            return [f] { return RunWatch(*f); };
          }};
}

}  // namespace agt::cli
