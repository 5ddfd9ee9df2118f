// `agtmux ui` driven like a person: a private tmux server, the real
// agtmuxd, two stand-in agents (tests/agg/actions/fake_agent.py) announced
// as wrapped agents, and `agtmux ui` running in an 80x24 pane of the same
// server. Keys go in with send-keys, the screen comes out with
// capture-pane; what an action did is read from the stand-in's log.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include "cli/table.h"
#include "tests/agg/daemon_harness.h"

namespace agt::test {
namespace {

constexpr const char* kApprovalChoices =
    "[\"Yes\",\"Yes, and don't ask again for mkdir commands in this project\","
    "\"No, and tell Claude what to do differently\"]";

class UiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sock_ = env_.root + "/tmux/ui.sock";
    env_.vars.push_back("TERM=xterm-256color");
    for (const char* s : {"work", "other"}) {
      const std::string log = env_.root + "/" + s + ".log";
      ASSERT_EQ(Tmux({"new-session", "-d", "-s", s, "-x", "120", "-y", "30", std::string(FAKE_AGENT) + " " + log})
                    .status, 0);
      ASSERT_TRUE(PollUntil([&] { return Screen(s).find("agent ready") != std::string::npos; })) << s;
    }
    server_pid_ = std::stoi(Trim(Tmux({"display-message", "-p", "#{pid}"}).out));
    daemon_ = std::make_unique<Daemon>(env_);
    ASSERT_TRUE(daemon_->WaitReady());
    auto t = daemon_->Call("POST", "/v1/targets", "{\"name\":\"lab\",\"kind\":\"local\",\"tmux_socket\":\"" + sock_ + "\"}");
    ASSERT_TRUE(t.ok());
    ASSERT_LT(t->status, 300) << t->body;
    Announce("work", "claude", 1);
    Announce("other", "codex", 10);
    SetState("other", "running", 12, 2, "");
    // The view, in a pane of its own: 80 columns, the width it must fit.
    // `agtmux` alone on a terminal is `agtmux ui`.
    ASSERT_EQ(Tmux({"new-session", "-d", "-s", "ui", "-x", "80", "-y", "24",
                    "sh -c '" + std::string(AGTMUX_BIN) + "; echo ui-exit=$?; exec sleep 600'"})
                  .status, 0);
  }
  void TearDown() override {
    if (client_ > 0) {
      kill(client_, SIGTERM);
      waitpid(client_, nullptr, 0);
    }
    daemon_.reset();
    Tmux({"kill-server"});
    if (server_pid_ > 0 && kill(server_pid_, 0) == 0) kill(server_pid_, SIGKILL);
  }

  static std::string Trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }
  RunResult Tmux(std::vector<std::string> args) {
    std::vector<std::string> argv = {"/usr/bin/tmux", "-S", sock_, "-f", "/dev/null"};
    argv.insert(argv.end(), args.begin(), args.end());
    return env_.Run(argv);
  }
  std::string Id(const std::string& session) {
    return Trim(Tmux({"display-message", "-p", "-t", session, "#{window_id} #{pane_id} #{pane_pid}"}).out);
  }
  /// A pane's screen; -J joins what the terminal wrapped, so a line drawn
  /// past the edge shows as one long line.
  std::string Screen(const std::string& session) { return Tmux({"capture-pane", "-p", "-J", "-t", session}).out; }
  std::string Ui() { return Screen("ui"); }
  bool UiShows(const std::string& text, int ms = 10000) {
    return PollUntil([&] { return Ui().find(text) != std::string::npos; }, ms);
  }
  void Keys(std::vector<std::string> keys) {
    std::vector<std::string> args = {"send-keys", "-t", "ui"};
    args.insert(args.end(), keys.begin(), keys.end());
    ASSERT_EQ(Tmux(args).status, 0);
  }
  std::string Log(const std::string& session) {
    std::ifstream f(env_.root + "/" + session + ".log");
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  std::string Event(int n, const std::string& type, const std::string& session, const std::string& extra) {
    std::string s = std::to_string(n);
    std::istringstream id(Id(session));
    std::string window, pane, pid;
    id >> window >> pane >> pid;
    return "{\"event_id\":\"01JB" + std::string(22 - s.size(), '0') + s + "\",\"event_type\":\"" + type +
           "\",\"source\":\"wrapper\",\"dedupe_key\":\"dk-ui-" + s +
           "\",\"event_time\":\"2026-11-24T04:00:00Z\",\"runtime_id\":\"rt-ui-" + session +
           "-aaaaaaaa\",\"target_id\":\"lab\",\"pane_id\":\"" + pane + "\"" + extra + "}";
  }
  void Ingest(const std::string& ev) {
    auto r = daemon_->Call("POST", "/v1/events", "{\"events\":[" + ev + "]}");
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
  }
  void Announce(const std::string& session, const std::string& agent, int n) {
    std::istringstream id(Id(session));
    std::string window, pane, pid;
    id >> window >> pane >> pid;
    Ingest(Event(n, "wrapper_started", session,
                 ",\"pid\":" + pid + ",\"runtime\":{\"agent_type\":\"" + agent +
                     "\",\"started_at\":\"2026-11-24T04:00:00Z\"}"));
    SetState(session, "waiting_input", n + 1, 1, "");
  }
  void SetState(const std::string& session, const std::string& state, int n, int seq, const std::string& detail) {
    Ingest(Event(n, "state_changed", session,
                 ",\"source_seq\":" + std::to_string(seq) + ",\"signal\":{\"state\":\"" + state +
                     "\",\"confidence\":\"high\",\"rule_id\":\"test." + state + "\",\"evidence\":\"x\"" + detail +
                     "}"));
  }
  /// Opens the stand-in's approval menu in `work` and tells the daemon.
  void WorkAsks() {
    ASSERT_EQ(Tmux({"send-keys", "-t", "work", "-l", "ask"}).status, 0);
    ASSERT_EQ(Tmux({"send-keys", "-t", "work", "Enter"}).status, 0);
    ASSERT_TRUE(PollUntil([&] { return Screen("work").find("Do you want to proceed?") != std::string::npos; }));
    SetState("work", "waiting_approval", 20, 2,
             ",\"detail\":{\"approval_type\":\"shell\",\"details\":\"mkdir build\",\"choices\":" +
                 std::string(kApprovalChoices) + ",\"cursor_position\":1}");
  }
  /// The session the one attached (non-control) client shows.
  std::string ClientSession() {
    std::string out;
    std::istringstream lines(Tmux({"list-clients", "-F", "#{?client_control_mode,,#{client_session}}"}).out);
    for (std::string line; std::getline(lines, line);) out += line;
    return out;
  }

  TestEnv env_;
  std::unique_ptr<Daemon> daemon_;
  std::string sock_;
  pid_t server_pid_ = -1, client_ = -1;
};

TEST_F(UiTest, ShowsRowsFitsEightyColumnsFiltersApprovesAndQuits) {
  WorkAsks();
  ASSERT_TRUE(UiShows("waiting_approval")) << Ui();
  ASSERT_TRUE(UiShows("running")) << Ui();
  std::string screen = Ui();
  EXPECT_NE(screen.find("lab / work (1)"), std::string::npos) << screen;
  EXPECT_NE(screen.find("lab / other (1)"), std::string::npos) << screen;
  EXPECT_NE(screen.find("waiting_approval PTY  claude"), std::string::npos) << screen;
  EXPECT_NE(screen.find("running          PTY  codex"), std::string::npos) << screen;
  EXPECT_NE(screen.find("mkdir build"), std::string::npos) << screen;
  std::istringstream lines(screen);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(cli::DisplayWidth(line), 80) << line;

  // A narrower terminal: the view lays itself out again to fit it.
  ASSERT_EQ(Tmux({"resize-window", "-t", "ui", "-x", "60", "-y", "20"}).status, 0);
  ASSERT_TRUE(PollUntil([&] {
    std::istringstream in(Ui());
    std::string keys;
    for (std::string l; std::getline(in, l);) keys = l.empty() ? keys : l;
    return keys.rfind("j/k move", 0) == 0 && cli::DisplayWidth(keys) <= 60;
  })) << Ui();
  {
    std::istringstream narrow(Ui());
    for (std::string line; std::getline(narrow, line);) EXPECT_LE(cli::DisplayWidth(line), 60) << line;
  }
  ASSERT_EQ(Tmux({"resize-window", "-t", "ui", "-x", "80", "-y", "24"}).status, 0);

  // `/` filters by typed words: only the codex pane is left; Enter keeps
  // the filter, Esc then clears it (and does not quit).
  Keys({"/"});
  ASSERT_TRUE(UiShows("filter> _")) << Ui();
  Keys({"-l", "codex"});
  ASSERT_TRUE(PollUntil([&] { return Ui().find("waiting_approval PTY  claude") == std::string::npos; })) << Ui();
  EXPECT_NE(Ui().find("running          PTY  codex"), std::string::npos) << Ui();
  Keys({"Enter"});
  ASSERT_TRUE(UiShows("[/codex]")) << Ui();
  Keys({"Escape"});
  ASSERT_TRUE(UiShows("waiting_approval PTY  claude")) << Ui();
  EXPECT_EQ(Ui().find("[/codex]"), std::string::npos) << Ui();
  EXPECT_EQ(Ui().find("ui-exit"), std::string::npos) << Ui();

  // Waiting only: the running pane goes, the waiting one stays.
  Keys({"w"});
  ASSERT_TRUE(UiShows("[waiting only]")) << Ui();
  ASSERT_TRUE(PollUntil([&] { return Ui().find("codex") == std::string::npos; })) << Ui();
  EXPECT_NE(Ui().find("waiting_approval PTY  claude"), std::string::npos) << Ui();

  // Approve the selected (only) pane: the stand-in's menu gets the answer.
  Keys({"a"});
  ASSERT_TRUE(PollUntil([&] { return Log("work").find("CHOSE Yes\n") != std::string::npos; }, 15000)) << Log("work");
  EXPECT_TRUE(UiShows("answered 1. Yes")) << Ui();

  // Without a terminal, `agtmux` alone still asks for a subcommand.
  RunResult bare = env_.Run({AGTMUX_BIN});
  EXPECT_NE(bare.status, 0);
  EXPECT_NE(bare.err.find("subcommand"), std::string::npos) << bare.err;

  // q quits: the shell after it runs, and the terminal is given back
  // (the alternate screen the view drew on is off again).
  EXPECT_EQ(Trim(Tmux({"display-message", "-p", "-t", "ui", "#{alternate_on}"}).out), "1");
  Keys({"q"});
  ASSERT_TRUE(UiShows("ui-exit=0")) << Ui();
  EXPECT_EQ(Trim(Tmux({"display-message", "-p", "-t", "ui", "#{alternate_on}"}).out), "0");
}

TEST_F(UiTest, PromptsAndEnterSwitchesTheClientToTheSelectedPane) {
  // A real client, on a pty of its own, shows the view's session.
  client_ = env_.Spawn({"/usr/bin/python3", "-c", "import pty, sys; pty.spawn(sys.argv[1:])", "/usr/bin/tmux", "-S",
                        sock_, "attach-session", "-t", "ui"});
  ASSERT_GT(client_, 0);
  ASSERT_TRUE(PollUntil([&] { return ClientSession() == "ui"; }, 10000)) << ClientSession();
  ASSERT_TRUE(UiShows("lab / work (1)")) << Ui();
  // Rows are sorted by session: "other" first, then "work"; j selects work.
  Keys({"j"});
  ASSERT_TRUE(PollUntil([&] {
    std::string s = Ui();
    size_t sel = s.find("\n> ");
    return sel != std::string::npos && s.find("claude", sel) < s.find('\n', sel + 1);
  })) << Ui();
  // A prompt typed into the view reaches the agent (send --enter --wait),
  // and the status line shows what the agent answered.
  Keys({"p"});
  ASSERT_TRUE(UiShows("prompt for pane:lab/work/")) << Ui();
  Keys({"-l", "finish the job"});
  Keys({"Enter"});
  ASSERT_TRUE(PollUntil([&] { return Log("work").find("MSG finish the job\n") != std::string::npos; }, 15000))
      << Log("work") << Ui();
  // The pane's state here comes only from events: `send --wait` waits for
  // the state the send causes, so the view still waits until the agent
  // (as its wrapper would report) works and then waits for input again.
  EXPECT_TRUE(UiShows("waiting for the agent...")) << Ui();
  SetState("work", "running", 30, 2, "");
  SetState("work", "waiting_input", 31, 3, "");
  EXPECT_TRUE(UiShows(" answered: ", 15000)) << Ui();

  Keys({"Enter"});
  ASSERT_TRUE(PollUntil([&] { return ClientSession() == "work"; }, 10000))
      << "the client stayed on " << ClientSession() << "; the view shows:\n" << Ui();
}

// The preview shows the selected pane in its colours (capture-pane -e,
// mapped to ncurses colour pairs): the ui pane's own cells are red where
// the agent's are.
TEST_F(UiTest, ThePreviewKeepsThePanesColours) {
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "colour", "-x", "120", "-y", "30",
                  "printf '\\033[31mred words\\033[0m and plain\\n'; exec sleep 600"})
                .status, 0);
  ASSERT_TRUE(PollUntil([&] { return Screen("colour").find("red words") != std::string::npos; }));
  Announce("colour", "gemini", 40);
  // A view with colours on (the fixture's environment has NO_COLOR).
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "ui2", "-x", "80", "-y", "24",
                  "env -u NO_COLOR " + std::string(AGTMUX_BIN) + " ui; exec sleep 600"})
                .status, 0);
  ASSERT_TRUE(PollUntil([&] { return Screen("ui2").find("lab / colour (1)") != std::string::npos; })) << Screen("ui2");
  // "colour" sorts first, so its pane is selected and previewed.
  // The line's escapes before "red words" set red; the rest of the line is
  // in the default colours again.
  std::string cells, before, after;
  EXPECT_TRUE(PollUntil([&] {
    cells = Tmux({"capture-pane", "-p", "-e", "-t", "ui2"}).out;
    const size_t at = cells.find("red words"), plain = cells.find("and plain");
    if (at == std::string::npos || plain == std::string::npos || plain < at) return false;
    const size_t line = cells.rfind('\n', at);
    before = cells.substr(line == std::string::npos ? 0 : line + 1, at - (line == std::string::npos ? 0 : line + 1));
    after = cells.substr(at, plain - at);
    return before.find("\x1b[31m") != std::string::npos;
  }, 10000)) << cells;
  EXPECT_NE(after.find("\x1b[39m"), std::string::npos) << after;
}

TEST_F(UiTest, AKilledDaemonShowsNotAnsweringAndTheViewRecovers) {
  ASSERT_TRUE(UiShows("lab / work (1)")) << Ui();
  daemon_->Stop(SIGKILL);
  ASSERT_TRUE(UiShows("daemon not answering")) << Ui();
  // Keys still work while it is gone: the filter toggles at once.
  Keys({"w"});
  ASSERT_TRUE(UiShows("[waiting only]", 3000)) << Ui();
  Keys({"w"});
  daemon_ = std::make_unique<Daemon>(env_);
  ASSERT_TRUE(daemon_->WaitReady());
  ASSERT_TRUE(PollUntil([&] { return Ui().find("daemon not answering") == std::string::npos; }, 10000)) << Ui();
  EXPECT_TRUE(UiShows("lab / work (1)")) << Ui();

  // A daemon that accepts and then says nothing (stopped): after 3 s of
  // silence the view says so, and keys still answer at once.
  kill(daemon_->pid(), SIGSTOP);
  ASSERT_TRUE(UiShows("daemon not answering", 10000)) << Ui();
  Keys({"w"});
  EXPECT_TRUE(UiShows("[waiting only]", 1000)) << "a key waited on the stopped daemon:\n" << Ui();
  kill(daemon_->pid(), SIGCONT);
  EXPECT_TRUE(PollUntil([&] { return Ui().find("daemon not answering") == std::string::npos; }, 10000)) << Ui();
}

}  // namespace
}  // namespace agt::test
