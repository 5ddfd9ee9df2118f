// ActionService against a fake world (fake_world.h): what runs in tmux and
// what does not, by argv; guards, snapshot expiry and movement, send
// policy, idempotency by request_ref, signals, refs that must never act.
// The audit store is a real SQLite database in memory.
#include "aggregator/actions/action_service.h"
#include "tests/base/fake_clock.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>

#include "tests/agg/actions/fake_world.h"

namespace agt::agg::testing {
namespace {

using Argv = std::vector<std::string>;

PaneRow AgentRow(std::string runtime_id, std::string pane_id, core::State state, int64_t version,
                 std::optional<int64_t> pid, core::TimeNs updated_at) {
  PaneRow r;
  r.target = "host";
  r.session_name = "work";
  r.session_id = "$1";
  r.window_id = "@1";
  r.pane_id = std::move(pane_id);
  r.in_topology = true;
  r.agent = true;
  r.runtime_id = std::move(runtime_id);
  r.agent_type = "claude";
  r.runtime_pid = pid;
  r.st.target_id = "host";
  r.st.pane_id = r.pane_id;
  r.st.runtime_id = r.runtime_id;
  r.st.signal.state = state;
  r.st.state_version = version;
  r.st.updated_at = r.st.last_seen_at = updated_at;
  r.st.has_source = true;
  return r;
}

class ActionServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    world_.panes = {AgentRow("rt-w1-0123456789ab", "%1", core::State::kWaitingInput, 10, 4242, clock_.Now())};
    world_.live_pids = {4242};
    ActionOptions o;
    o.db_path = ":memory:";
    auto s = ActionService::Create(&world_, clock_, o);
    ASSERT_TRUE(s.ok()) << s.error().ToString();
    svc_ = std::move(*s);
  }
  struct Answer {
    int status = 0;
    rapidjson::Document json;
    std::string body;
  };
  Answer Post(const std::string& type, const std::string& body) {
    HttpResponse r = svc_->Post(type, body);
    Answer a;
    a.status = r.status;
    a.body = r.body;
    a.json.Parse(r.body.c_str());
    EXPECT_FALSE(a.json.HasParseError()) << r.body;
    return a;
  }
  static std::string Code(const Answer& a) {
    return a.json.IsObject() && a.json.HasMember("error") ? a.json["error"]["code"].GetString() : "";
  }
  /// A top-level string member, "" when absent (no assertion inside RapidJSON).
  static std::string Field(const Answer& a, const char* key) {
    return a.json.IsObject() && a.json.HasMember(key) && a.json[key].IsString() ? a.json[key].GetString() : "";
  }

  core::FakeClock clock_;
  FakeActionWorld world_{&clock_};
  std::unique_ptr<ActionService> svc_;
};

const std::string kRef = "pane:host/work/@1/%1";

TEST_F(ActionServiceTest, SendTypesTheTextByArgvThenEnterAndIsAudited) {
  Answer a = Post("send", R"({"ref":")" + kRef + R"(","text":"run the tests; rm x","enter":true})");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(Field(a, "result_code"), "ok");
  ASSERT_GE(world_.tmux.calls.size(), 3u);
  EXPECT_EQ(world_.tmux.calls.front(), (Argv{"tmux", "send-keys", "-t", "%1", "-l", "--", "run the tests; rm x"}));
  EXPECT_EQ(world_.tmux.calls[1], (Argv{"tmux", "capture-pane", "-p", "-J", "-t", "%1", "-S", "-60"}));
  EXPECT_EQ(world_.tmux.calls.back(), (Argv{"tmux", "send-keys", "-t", "%1", "Enter"}));
  // Enter waited its delay after the text (the fake world's sleeps are recorded).
  ASSERT_FALSE(world_.sleeps.empty());
  EXPECT_EQ(world_.sleeps.back(), 100 * core::kNsPerMs);
  Answer got = Post("snapshot", R"({"ref":")" + kRef + R"("})");  // the service still answers
  EXPECT_EQ(got.status, 200);
  HttpResponse audit = svc_->Get(Field(a, "action_id"));
  EXPECT_EQ(audit.status, 200);
  EXPECT_NE(audit.body.find("action_sent"), std::string::npos) << audit.body;
  EXPECT_NE(audit.body.find("action_completed"), std::string::npos) << audit.body;
}

TEST_F(ActionServiceTest, AFailedGuardRunsNothing) {
  Answer a = Post("send", R"({"ref":")" + kRef + R"(","text":"x","if_state":"running"})");
  EXPECT_EQ(a.status, 409) << a.body;
  EXPECT_EQ(Code(a), "E_PRECONDITION_FAILED");
  EXPECT_EQ(Field(a, "result_code"), "refused");
  a = Post("send", R"({"ref":")" + kRef + R"(","text":"x","if_runtime":"rt-w2-0123456789ab"})");
  EXPECT_EQ(a.status, 409);
  EXPECT_EQ(Code(a), "E_RUNTIME_STALE");
  clock_.Advance(60 * core::kNsPerSec);
  a = Post("send", R"({"ref":")" + kRef + R"(","text":"x","if_updated_within":"30s"})");
  EXPECT_EQ(Code(a), "E_PRECONDITION_FAILED");
  EXPECT_TRUE(world_.tmux.calls.empty());
  // The same guards pass when they hold.
  a = Post("send", R"({"ref":")" + kRef + R"(","text":"x","if_state":"waiting_input","if_runtime":"rt-w1-0123456789ab"})");
  EXPECT_EQ(a.status, 200) << a.body;
  EXPECT_FALSE(world_.tmux.calls.empty());
}

TEST_F(ActionServiceTest, AnExpiredSnapshotFailsClosed) {
  Answer snap = Post("snapshot", R"({"ref":")" + kRef + R"("})");
  ASSERT_EQ(snap.status, 200) << snap.body;
  const std::string id = Field(snap, "snapshot_id");
  clock_.Advance(31 * core::kNsPerSec);  // the TTL is 30 s
  Answer a = Post("send", R"({"ref":")" + kRef + R"(","text":"yes","snapshot_id":")" + id + "\"}");
  EXPECT_EQ(a.status, 409) << a.body;
  EXPECT_EQ(Code(a), "E_SNAPSHOT_EXPIRED");
  EXPECT_TRUE(world_.tmux.calls.empty());
  // Within the TTL the same request goes through.
  Answer fresh = Post("snapshot", R"({"ref":")" + kRef + R"("})");
  clock_.Advance(29 * core::kNsPerSec);
  a = Post("send", R"({"ref":")" + kRef + R"(","text":"yes","snapshot_id":")" +
                       Field(fresh, "snapshot_id") + "\"}");
  EXPECT_EQ(a.status, 200) << a.body;
}

TEST_F(ActionServiceTest, AStateThatMovedSinceTheSnapshotFailsClosedUnlessForced) {
  Answer snap = Post("snapshot", R"({"ref":")" + kRef + R"("})");
  const std::string id = Field(snap, "snapshot_id");
  world_.panes[0].st.state_version = 11;
  world_.panes[0].st.signal.state = core::State::kRunning;
  Answer a = Post("send", R"({"ref":")" + kRef + R"(","text":"yes","snapshot_id":")" + id + "\"}");
  EXPECT_EQ(a.status, 409);
  EXPECT_EQ(Code(a), "E_PRECONDITION_FAILED");
  EXPECT_TRUE(world_.tmux.calls.empty());
  a = Post("send", R"({"ref":")" + kRef + R"(","text":"yes","force_stale":true,"snapshot_id":")" + id + "\"}");
  EXPECT_EQ(a.status, 200) << a.body;
  EXPECT_FALSE(world_.tmux.calls.empty());
  // Another runtime in the pane is stale even with force_stale.
  world_.panes[0] = AgentRow("rt-w2-0123456789ab", "%1", core::State::kIdle, 12, std::nullopt, clock_.Now());
  a = Post("send", R"({"ref":")" + kRef + R"(","text":"yes","force_stale":true,"snapshot_id":")" + id + "\"}");
  EXPECT_EQ(Code(a), "E_RUNTIME_STALE");
}

TEST_F(ActionServiceTest, ARequestRefIsIdempotent) {
  const std::string body = R"({"ref":")" + kRef + R"(","text":"hello","request_ref":"req-1"})";
  Answer first = Post("send", body);
  ASSERT_EQ(first.status, 200) << first.body;
  const size_t calls = world_.tmux.calls.size();
  Answer again = Post("send", body);
  EXPECT_EQ(again.status, 200);
  EXPECT_TRUE(again.json.HasMember("replayed") && again.json["replayed"].GetBool()) << again.body;
  EXPECT_EQ(Field(again, "action_id"), Field(first, "action_id"));
  EXPECT_EQ(world_.tmux.calls.size(), calls);  // nothing typed twice
  Answer other = Post("send", R"({"ref":")" + kRef + R"(","text":"bye","request_ref":"req-1"})");
  EXPECT_EQ(other.status, 409);
  EXPECT_EQ(Code(other), "E_IDEMPOTENCY_CONFLICT");
  EXPECT_EQ(world_.tmux.calls.size(), calls);
}

TEST_F(ActionServiceTest, KillBySignalGoesThroughTheWorld) {
  Answer a = Post("kill", R"({"ref":")" + kRef + R"(","mode":"signal","signal":"TERM"})");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(world_.signals, (std::vector<std::pair<int64_t, int>>{{4242, SIGTERM}}));
  EXPECT_TRUE(world_.tmux.calls.empty());
  world_.live_pids.clear();  // it is gone now
  a = Post("kill", R"({"ref":")" + kRef + R"(","mode":"signal"})");
  EXPECT_EQ(a.status, 500);
  EXPECT_EQ(Code(a), "E_IO");
  EXPECT_EQ(Field(a, "result_code"), "failed");
  world_.panes[0].runtime_pid.reset();
  a = Post("kill", R"({"ref":")" + kRef + R"(","mode":"signal"})");
  EXPECT_EQ(Code(a), "E_PID_UNAVAILABLE");
  // The default mode types C-c.
  a = Post("kill", R"({"ref":")" + kRef + R"("})");
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(world_.tmux.calls.back(), (Argv{"tmux", "send-keys", "-t", "%1", "C-c"}));
}

TEST_F(ActionServiceTest, RefsThatDoNotNameOnePaneNeverAct) {
  world_.panes.push_back(AgentRow("rt-w1-0123456789ab", "%2", core::State::kIdle, 3, std::nullopt, clock_.Now()));
  Answer a = Post("send", R"({"ref":"runtime:rt-w1-0123456789ab","text":"x"})");
  EXPECT_EQ(a.status, 400) << a.body;
  EXPECT_EQ(Code(a), "E_REF_AMBIGUOUS");
  a = Post("send", R"({"ref":"pane:host/work/@1/%9","text":"x"})");
  EXPECT_EQ(a.status, 404);
  EXPECT_EQ(Code(a), "E_REF_NOT_FOUND");
  a = Post("send", R"({"ref":"pane:vm9/work/@1/%1","text":"x"})");
  EXPECT_EQ(Code(a), "E_REF_NOT_FOUND");
  a = Post("send", R"({"ref":"pane:host","text":"x"})");
  EXPECT_EQ(Code(a), "E_REF_INVALID");
  EXPECT_TRUE(world_.tmux.calls.empty());
}

TEST_F(ActionServiceTest, TheSendPolicyBlocksBeforeAnythingIsTyped) {
  Answer a = Post("send", R"({"ref":")" + kRef + R"(","text":"rm -rf /","enter":true})");
  EXPECT_EQ(a.status, 403) << a.body;
  EXPECT_EQ(Code(a), "E_POLICY_BLOCKED");
  EXPECT_TRUE(world_.tmux.calls.empty());
}

TEST_F(ActionServiceTest, AnSshTargetCannotRunActionsFromHere) {
  TargetStatus vm;
  vm.spec = TargetSpec{"vm1", "ssh", "", "vm1"};
  world_.targets.push_back(vm);
  PaneRow remote = AgentRow("rt-r1-0123456789ab", "%3", core::State::kWaitingInput, 1, 77, clock_.Now());
  remote.target = "vm1";
  world_.panes.push_back(remote);
  Answer a = Post("send", R"({"ref":"runtime:rt-r1-0123456789ab","text":"x"})");
  EXPECT_EQ(Code(a), "E_UNSUPPORTED");
  EXPECT_EQ(Field(a, "result_code"), "failed");
  a = Post("kill", R"({"ref":"runtime:rt-r1-0123456789ab","mode":"signal"})");
  EXPECT_EQ(Code(a), "E_UNSUPPORTED");
  EXPECT_TRUE(world_.signals.empty());
  EXPECT_TRUE(world_.tmux.calls.empty());
}

}  // namespace
}  // namespace agt::agg::testing
