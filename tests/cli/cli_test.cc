// The CLI's read side against the real daemon: start on demand, list with
// --json and as a table, watch --once --format jsonl, explain, status-line,
// target add/list/remove, daemon status/stop, and a clear error (exit 3,
// E_DAEMON_UNREACHABLE, how to start it) when the daemon cannot be reached.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <rapidjson/document.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "tests/agg/daemon_harness.h"

namespace agt::test {
namespace {

class CliTest : public ::testing::Test {
 protected:
  RunResult Agtmux(std::vector<std::string> args) {
    args.insert(args.begin(), AGTMUX_BIN);
    return env_.Run(args);
  }
  void TearDown() override { Agtmux({"daemon", "stop"}); }
  TestEnv env_;
};

TEST_F(CliTest, StartsTheDaemonOnDemandAndReadsThroughIt) {
  auto st = Agtmux({"daemon", "status"});
  EXPECT_EQ(st.status, 3);
  EXPECT_NE(st.out.find("not running"), std::string::npos);
  auto list = Agtmux({"list", "panes"});
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("no agent panes"), std::string::npos) << list.out;
  auto status = Agtmux({"daemon", "status"});
  EXPECT_EQ(status.status, 0);
  EXPECT_NE(status.out.find("agtmuxd is running"), std::string::npos);
  EXPECT_NE(status.out.find("\nstore sqlite, 0 panes (0 with an agent), 0 watchers\n"), std::string::npos) << status.out;

  // Feed a wrapped pane through the API, as the wrapper would.
  Daemon view(env_);  // a second daemon is refused; only its client helper is used
  auto r = view.Call("POST", "/v1/events",
                     "{\"events\":[" + Started("01JF0000000000000000000001", "rt-ffffffffffffffff", "%9") + "," +
                         StateEvent("01JF0000000000000000000002", "rt-ffffffffffffffff", "%9", "waiting_input", 1) +
                         "]}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;

  auto table = Agtmux({"list", "panes"});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("SOURCE"), std::string::npos);
  EXPECT_NE(table.out.find("waiting_input"), std::string::npos);
  EXPECT_NE(table.out.find("PTY"), std::string::npos);
  EXPECT_EQ(table.out.find('\x1b'), std::string::npos) << "no colour when not a tty";

  auto json = Agtmux({"list", "panes", "--json", "--needs-action"});
  ASSERT_EQ(json.status, 0);
  rapidjson::Document d;
  d.Parse(json.out.c_str());
  ASSERT_TRUE(d.IsObject()) << json.out;
  EXPECT_EQ(d["items"].Size(), 1u);
  EXPECT_TRUE(d["filters"]["needs_action"].GetBool());

  auto watch = Agtmux({"watch", "--once", "--format", "jsonl"});
  ASSERT_EQ(watch.status, 0) << watch.err;
  rapidjson::Document w;
  w.Parse(watch.out.substr(0, watch.out.find('\n')).c_str());
  ASSERT_TRUE(w.IsObject()) << watch.out;
  EXPECT_STREQ(w["type"].GetString(), "snapshot");
  EXPECT_EQ(w["items"].Size(), 1u);

  auto bad_cursor = Agtmux({"watch", "--once", "--format", "jsonl", "--cursor", "nonsense"});
  EXPECT_NE(bad_cursor.status, 0);
  EXPECT_NE(bad_cursor.err.find("E_CURSOR_INVALID"), std::string::npos) << bad_cursor.err;

  auto explain = Agtmux({"explain", "runtime:rt-ffffffffffffffff"});
  ASSERT_EQ(explain.status, 0) << explain.err;
  EXPECT_NE(explain.out.find("test.waiting_input"), std::string::npos) << explain.out;
  auto missing = Agtmux({"explain", "runtime:rt-0000000000000000"});
  EXPECT_NE(missing.status, 0);
  EXPECT_NE(missing.err.find("E_REF_NOT_FOUND"), std::string::npos);

  auto sl = Agtmux({"status-line"});
  EXPECT_EQ(sl.status, 0);
  EXPECT_EQ(sl.out, "⚠1 claude\n") << "what waits is named; a pane no collector placed has no session:window";
  EXPECT_EQ(Agtmux({"status-line", "--tmux"}).out, "#[fg=yellow,bold]⚠1 claude#[default]\n");
  EXPECT_EQ(Agtmux({"status-line", "--ascii", "--plain"}).out, "W1 claude\n");
  EXPECT_EQ(Agtmux({"status-line", "--tmux", "--plain"}).status, 2) << "the two styles exclude each other";

  auto add = Agtmux({"target", "add", "lab", "--kind", "local", "--tmux-socket", env_.root + "/tmux/lab.sock"});
  EXPECT_EQ(add.status, 0) << add.err;
  auto targets = Agtmux({"target", "list"});
  EXPECT_NE(targets.out.find("lab"), std::string::npos);
  auto rm = Agtmux({"target", "remove", "lab"});
  EXPECT_NE(rm.status, 0) << "remove without --yes and without a tty refuses";
  EXPECT_EQ(Agtmux({"target", "remove", "lab", "--yes"}).status, 0);

  auto stop = Agtmux({"daemon", "stop"});
  EXPECT_EQ(stop.status, 0);
  EXPECT_NE(stop.out.find("stopped"), std::string::npos);
}

TEST_F(CliTest, AnAgentVersionTheSetWasNotVerifiedOnIsShownWithoutChangingTheState) {
  Daemon d(env_);
  ASSERT_TRUE(d.WaitReady());
  auto started = [](const std::string& id, const std::string& rt, const std::string& pane,
                    const std::string& version) {
    return EventJson(id, "wrapper_started", rt, pane,
                     ",\"pid\":4242,\"runtime\":{\"agent_type\":\"claude\",\"started_at\":"
                     "\"2026-11-22T04:00:00Z\"" +
                         (version.empty() ? std::string() : ",\"agent_version\":\"" + version + "\"") + "}");
  };
  auto r = d.Call("POST", "/v1/events",
                  "{\"events\":[" + started("01JF0000000000000000000011", "rt-aaaaaaaaaaaaaaa1", "%11", "0.0.1-never") +
                      "," + StateEvent("01JF0000000000000000000012", "rt-aaaaaaaaaaaaaaa1", "%11", "running", 1) +
                      "," + started("01JF0000000000000000000013", "rt-aaaaaaaaaaaaaaa2", "%12", "") + "]}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;

  auto panes = d.Call("GET", "/v1/panes");
  ASSERT_TRUE(panes.ok());
  rapidjson::Document doc;
  doc.Parse(panes->body.c_str());
  ASSERT_TRUE(doc.IsObject()) << panes->body;
  ASSERT_EQ(doc["items"].Size(), 2u) << panes->body;
  for (const auto& it : doc["items"].GetArray()) {
    const std::string pane = it["identity"]["pane_id"].GetString();
    ASSERT_TRUE(it.HasMember("verified") && it.HasMember("agent_version") && it.HasMember("verified_on"))
        << panes->body;
    ASSERT_TRUE(it["verified_on"].IsArray());
    EXPECT_GE(it["verified_on"].Size(), 1u) << "the claude set's list";
    if (pane == "%11") {
      EXPECT_STREQ(it["agent_version"].GetString(), "0.0.1-never");
      ASSERT_TRUE(it["verified"].IsBool());
      EXPECT_FALSE(it["verified"].GetBool());
      EXPECT_STREQ(it["state"].GetString(), "running") << "the state is not changed";
    } else {
      EXPECT_TRUE(it["agent_version"].IsNull());
      EXPECT_TRUE(it["verified"].IsNull()) << "an unknown version is neither verified nor not";
    }
  }
  auto ex = d.Call("GET", "/v1/explain?ref=runtime:rt-aaaaaaaaaaaaaaa1");
  ASSERT_TRUE(ex.ok());
  rapidjson::Document e;
  e.Parse(ex->body.c_str());
  ASSERT_TRUE(e.IsObject()) << ex->body;
  EXPECT_STREQ(e["runtime"]["agent_version"].GetString(), "0.0.1-never");
  ASSERT_TRUE(e["verified"].IsBool());
  EXPECT_FALSE(e["verified"].GetBool());
  EXPECT_TRUE(e["verified_on"].IsArray());

  auto table = Agtmux({"list", "panes"});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("claude!"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("! %11 claude 0.0.1-never: not a version its pattern set was verified on"),
            std::string::npos)
      << table.out;
  auto explain = Agtmux({"explain", "runtime:rt-aaaaaaaaaaaaaaa1"});
  ASSERT_EQ(explain.status, 0) << explain.err;
  EXPECT_NE(explain.out.find("claude 0.0.1-never"), std::string::npos) << explain.out;
  EXPECT_NE(explain.out.find("verified no: 0.0.1-never"), std::string::npos) << explain.out;
}

// A port on 127.0.0.1 that nothing listens on (bound, then closed).
int ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), len), 0);
  EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  close(fd);
  return ntohs(a.sin_port);
}

TEST_F(CliTest, TargetListSaysWhyAnSshTargetIsUnreachable) {
  const std::string where = "nobody@127.0.0.1:" + std::to_string(ClosedPort());
  auto add = Agtmux({"target", "add", "vm1", "--kind", "ssh", "--ssh-target", where});
  ASSERT_EQ(add.status, 0) << add.err;
  RunResult list;
  for (int i = 0; i < 100; ++i) {  // the first scan runs at once; allow a loaded machine
    list = Agtmux({"target", "list"});
    if (list.out.find("(refused: ") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
  }
  EXPECT_NE(list.out.find("(refused: "), std::string::npos) << "the reason word, then the message:\n" << list.out;
  EXPECT_NE(list.out.find(where), std::string::npos) << list.out;
}

TEST_F(CliTest, UnreachableDaemonIsAClearError) {
  // A socket path the daemon cannot create: starting it fails, and the
  // error is the daemon's own reason, not advice to start it again.
  env_.vars.push_back("AGTMUX_SOCKET=/proc/agtmux-nowhere/agtmuxd.sock");
  auto r = Agtmux({"list", "panes"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("E_DAEMON_UNREACHABLE: agtmuxd did not start"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("agtmuxd: cannot create the socket directory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/proc/agtmux-nowhere"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("agtmux daemon start"), std::string::npos) << r.err;
}

// Agent text is hostile (issue 25): a question, choices, evidence and a
// rule detail holding an OSC 52 clipboard write, a clear-screen CSI, a CR
// that would overdraw a row and a bidi override are printed by list, watch
// and explain made visible, never as the bytes a terminal would obey.
TEST_F(CliTest, AgentTextReachesTheTerminalVisibleNotRaw) {
  ASSERT_EQ(Agtmux({"daemon", "start"}).status, 0);
  Daemon view(env_);
  const std::string osc52 = "\\u001b]52;c;cHduZWQ=\\u0007";
  const std::string waiting = EventJson(
      "01JF0000000000000000000002", "state_changed", "rt-ffffffffffffffff", "%9",
      ",\"source_seq\":1,\"signal\":{\"state\":\"waiting_approval\",\"confidence\":\"high\",\"rule_id\":\"test.wait\","
      "\"evidence\":\"idle\\r*  PTY  idle  high  FAKE\\b\\b\",\"detail\":{\"approval_type\":\"tool\",\"details\":"
      "\"Write: /repo/" + osc52 + "notes.txt \\u001b[2J\\u202Etxt\",\"choices\":[\"Yes" + osc52 + "\",\"No\"]}}");
  auto r = view.Call("POST", "/v1/events",
                     "{\"events\":[" + Started("01JF0000000000000000000001", "rt-ffffffffffffffff", "%9") + "," +
                         waiting + "]}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;
  auto raw = [](const std::string& s) {
    return s.find_first_of(std::string("\x1b\x07\r\b", 4)) != std::string::npos ||
           s.find("\u202E") != std::string::npos;
  };
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"list", "panes", "--needs-action"}, {"list", "panes"}, {"explain", "%9"},
        {"watch", "--once"}, {"list", "windows"}, {"list", "sessions", "--agent-summary"}}) {
    auto out = Agtmux(cmd);
    EXPECT_EQ(out.status, 0) << cmd[0] << " " << cmd[1] << "\n" << out.err;
    EXPECT_FALSE(raw(out.out)) << cmd[0] << " " << cmd[1] << " printed agent text raw:\n" << out.out;
    EXPECT_FALSE(raw(out.err)) << out.err;
  }
  auto explain = Agtmux({"explain", "%9"});
  EXPECT_NE(explain.out.find("^M*  PTY  idle  high  FAKE^H^H"), std::string::npos) << explain.out;
  auto wide = Agtmux({"list", "panes"});
  EXPECT_NE(wide.out.find("^[]52;c;cHduZWQ=^G"), std::string::npos) << "the detail is shown, visibly\n" << wide.out;
}

// The files the daemon keeps hold what agents asked and ran: 0600 whatever
// the umask it was started with (issue 25), the store's -wal and -shm and
// the log included.
TEST_F(CliTest, TheDaemonsFilesArePrivateWhateverTheUmask) {
  const mode_t old = umask(022);
  auto started = Agtmux({"daemon", "start"});
  umask(old);
  ASSERT_EQ(started.status, 0) << started.err;
  Daemon view(env_);
  auto r = view.Call("POST", "/v1/events",
                     "{\"events\":[" + Started("01JF0000000000000000000001", "rt-ffffffffffffffff", "%9") + "]}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;
  const std::string dir = env_.root + "/state/agtmux/";
  for (const char* name : {"agtmux.db", "agtmux.db-wal", "agtmux.db-shm", "agtmuxd.log"}) {
    struct stat st {};
    ASSERT_EQ(stat((dir + name).c_str(), &st), 0) << dir + name;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << name;
  }
}

// `#(agtmux status-line)` runs every few seconds in status-right: it must
// never start the daemon, so `daemon stop` stays stopped (issue 24).
TEST_F(CliTest, StatusLineNeverStartsTheDaemon) {
  ASSERT_EQ(Agtmux({"daemon", "start"}).status, 0);
  ASSERT_EQ(Agtmux({"daemon", "stop"}).status, 0);
  for (int i = 0; i < 3; ++i) {
    auto sl = Agtmux({"status-line", "--tmux"});
    EXPECT_EQ(sl.out, "agtmux: off\n");
    EXPECT_EQ(sl.status, 3) << sl.err;
  }
  auto st = Agtmux({"daemon", "status"});
  EXPECT_EQ(st.status, 3) << "the daemon stayed stopped\n" << st.out;
  EXPECT_NE(st.out.find("not running"), std::string::npos) << st.out;
}

}  // namespace
}  // namespace agt::test
