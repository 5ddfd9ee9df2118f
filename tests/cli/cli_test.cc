// The CLI's read side against the real daemon: start on demand, list with
// --json and as a table, watch --once --format jsonl, explain, status-line,
// target add/list/remove, daemon status/stop, and a clear error (exit 3,
// E_DAEMON_UNREACHABLE, how to start it) when the daemon cannot be reached.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

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
  EXPECT_EQ(sl.out, "⚠1\n");

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

TEST_F(CliTest, UnreachableDaemonIsAClearError) {
  // A socket path the daemon cannot create: starting it fails.
  env_.vars.push_back("AGTMUX_SOCKET=/proc/agtmux-nowhere/agtmuxd.sock");
  auto r = Agtmux({"list", "panes"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("E_DAEMON_UNREACHABLE"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("agtmux daemon start"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace agt::test
