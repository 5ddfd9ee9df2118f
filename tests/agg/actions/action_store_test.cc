// One durable store (issue 14, item 13): an action's audit (its row, its
// snapshot, its audit events) is in agtmux.db, on disk when its answer
// leaves (checked after a kill -9 right after the answer), and the
// actions.db an older agtmuxd kept is imported once at start-up and moved
// aside, not deleted. Real agtmuxd, real tmux, the database read through
// the store.
#include <filesystem>

#include "state/store/sqlite.h"
#include "state/store/store.h"
#include "tests/agg/actions/actions_fixture.h"

namespace agt::test {
namespace {

std::unique_ptr<state::Store> OpenReader(const std::string& path) {
  state::StoreOptions so;
  so.path = path;
  so.read_only = true;
  auto s = state::Store::Open(so);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().ToString());
  return s.ok() ? std::move(*s) : nullptr;
}

std::vector<std::string> Types(const std::vector<state::ActionEventRow>& evs) {
  std::vector<std::string> out;
  for (const auto& e : evs) out.push_back(e.event_type);
  return out;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

using ActionStoreTest = ActionsTest;

TEST_F(ActionStoreTest, AnActionsAuditIsInAgtmuxDbWhenItsAnswerLeaves) {
  auto r = Post("send", ",\"text\":\"durable\",\"enter\":true,\"request_ref\":\"durable-1\"");
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string id = Parse(r.body)["action_id"].GetString();
  EXPECT_EQ(daemon_->Stop(SIGKILL), 128 + SIGKILL);  // right after the answer

  auto store = OpenReader(env_.state_dir() + "/agtmux.db");
  ASSERT_TRUE(store);
  auto a = store->FindAction(id);
  ASSERT_TRUE(a.ok()) << a.error().ToString();
  EXPECT_EQ(a->result_code, "ok");
  EXPECT_EQ(a->request_ref, "durable-1");
  auto evs = store->ActionEvents(id);
  ASSERT_TRUE(evs.ok()) << evs.error().ToString();
  EXPECT_EQ(Types(*evs), (std::vector<std::string>{"action_requested", "action_sent", "action_completed"}));
  EXPECT_FALSE(std::filesystem::exists(env_.state_dir() + "/actions.db"));
  // Not engine input: no audit event is in `events`.
  auto n = store->db().QueryInt("SELECT count(*) FROM events WHERE event_type LIKE 'action_%'");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0);
}

/// An actions.db as an older agtmuxd wrote it: the action and snapshot rows,
/// and its audit events as `events` rows carrying the action's id.
void WriteOldActionStore(const std::string& path, const std::string& action_id) {
  state::StoreOptions so;
  so.path = path;
  so.durability = state::Durability::kNormal;
  auto s = state::Store::Open(so);
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  state::Store& store = **s;
  const core::TimeNs t = 1'790'000'000 * core::kNsPerSec;
  state::ActionRow a;
  a.action_id = action_id;
  a.action_type = "send";
  a.request_ref = "old-ref-1";
  a.target_id = "lab";
  a.pane_id = "%7";
  a.requested_at = t;
  a.completed_at = t + 1000;
  a.result_code = "ok";
  a.metadata_json = "{\"payload_hash\":\"x\",\"snapshot_id\":\"01JSNAP00000000000000000001\",\"status\":200,"
                    "\"response\":{\"action_id\":\"" + action_id + "\"}}";
  ASSERT_TRUE(store.InsertAction(a).ok());
  state::ActionSnapshotRow snap{"01JSNAP00000000000000000001", action_id, "lab", "%7", "", 0, t, t + 30, "nonce"};
  ASSERT_TRUE(store.InsertActionSnapshot(snap).ok());
  const char* types[] = {"action_requested", "action_sent", "action_completed"};
  for (int i = 0; i < 3; ++i) {
    core::Event e;
    e.event_id = "01JOLDEVENT0000000000000" + std::to_string(i) + "0";
    e.event_type = types[i];
    e.source = core::Source::kPoller;
    e.dedupe_key = "action:" + action_id + ":" + std::to_string(i);
    e.event_time = e.ingested_at = t + i;
    e.target_id = "lab";
    e.pane_id = "%7";
    e.action_id = action_id;
    e.raw_payload = std::string("detail ") + types[i];
    state::Effects fx;
    fx.disposition = state::Disposition::kApplied;
    fx.stored_event = e;
    ASSERT_TRUE(store.Commit(fx, e.ingested_at).ok());
  }
}

TEST(ActionStoreImport, AnOldActionsDbIsImportedOnceAndMovedAside) {
  TestEnv env;
  std::filesystem::create_directories(env.state_dir());
  const std::string old = env.state_dir() + "/actions.db";
  const std::string id = "01JOLDACTION00000000000001";
  WriteOldActionStore(old, id);
  ASSERT_TRUE(std::filesystem::exists(old));
  {
    Daemon d(env);
    ASSERT_TRUE(d.WaitReady());
    auto r = d.Call("GET", "/v1/actions/" + id);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
    EXPECT_NE(r->body.find("\"request_ref\":\"old-ref-1\""), std::string::npos) << r->body;
    EXPECT_NE(r->body.find("\"snapshot_id\":\"01JSNAP00000000000000000001\""), std::string::npos) << r->body;
    const size_t req = r->body.find("detail action_requested"), sent = r->body.find("detail action_sent"),
                 done = r->body.find("detail action_completed");
    ASSERT_NE(done, std::string::npos) << r->body;
    EXPECT_LT(req, sent);
    EXPECT_LT(sent, done);
    EXPECT_FALSE(std::filesystem::exists(old));
    EXPECT_TRUE(std::filesystem::exists(old + ".imported"));
    EXPECT_NE(ReadAll(env.state_dir() + "/agtmuxd.log").find("imported 1 action"), std::string::npos)
        << ReadAll(env.state_dir() + "/agtmuxd.log");
    EXPECT_EQ(d.Stop(SIGTERM), 0);
  }
  {
    // Once: the next start finds nothing to import and keeps the rows.
    Daemon d(env);
    ASSERT_TRUE(d.WaitReady());
    auto r = d.Call("GET", "/v1/actions/" + id);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_TRUE(std::filesystem::exists(old + ".imported"));
  }
  auto store = OpenReader(env.state_dir() + "/agtmux.db");
  ASSERT_TRUE(store);
  auto evs = store->ActionEvents(id);
  ASSERT_TRUE(evs.ok());
  EXPECT_EQ(evs->size(), 3u);
}

}  // namespace
}  // namespace agt::test
