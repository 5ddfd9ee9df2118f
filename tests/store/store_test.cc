// Store::Commit and Store::LoadSnapshot: what an Apply changed is written in
// one transaction and read back exactly; an Effects that changed nothing
// writes nothing; a failing batch writes nothing; and the queries the API
// serves (pane list, runtime, audit trail, topology, actions) return what
// was written.
#include "state/store/store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sys/stat.h>

#include "state/store/sqlite.h"
#include "tests/store/store_fixtures.h"

namespace agt::state {
namespace {

using core::Source;
using core::State;
using storetest::AppliedEffects;
using storetest::kT0;
using storetest::MakeEvent;
using storetest::MakeRuntime;
using storetest::TempDir;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }
  void Reopen() {
    store_.reset();
    auto s = Store::Open(storetest::Opts(dir_.File("agtmux.db")));
    ASSERT_TRUE(s.ok()) << s.error().ToString();
    store_ = std::move(*s);
  }
  int64_t Count(const std::string& table) {
    return *store_->db().QueryInt("SELECT count(*) FROM " + table);
  }
  // The runtime's creation, as the engine reports wrapper_started.
  Effects Started(const Runtime& r) {
    Effects fx;
    fx.disposition = Disposition::kApplied;
    fx.runtimes.push_back(r);
    core::Event e = MakeEvent("start-" + r.runtime_id, r.runtime_id, Source::kWrapper, 0, r.started_at);
    e.event_type = "wrapper_started";
    e.signal.reset();
    e.runtime = core::RuntimeInfo{r.agent_type, "/src", "abc", "/tmp/tmux-1/default",
                                  r.boot_id, r.started_at, r.pane_epoch, r.agent_version};
    fx.stored_event = e;
    return fx;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreTest, CommitThenLoadSnapshotRoundTrips) {
  Runtime r = MakeRuntime("rt-1", "%1");
  ASSERT_TRUE(store_->Commit(Started(r), kT0).ok());
  core::Event e = MakeEvent("ev-1", "rt-1", Source::kHook, 7, kT0 + 1000);
  e.signal->state = State::kWaitingApproval;
  e.signal->detail = core::WaitingDetail{"shell", "Run rm -rf build?", {"Yes", "No"}, false, 1};
  Effects fx = AppliedEffects(r, e, 3);
  fx.target_health.emplace_back("host", TargetHealth::kDegraded);
  InboxEntry pending;
  pending.event = MakeEvent("ev-p", "", Source::kNotify, 1, kT0 + 2000);
  pending.event.pid = 99;
  pending.event.start_hint = kT0 - 5;
  pending.event.exit = core::ExitInfo{130, 2};
  pending.event.health = "ok";
  fx.inbox.push_back(pending);
  InboxEntry dropped = pending;
  dropped.event.event_id = "ev-d";
  dropped.event.dedupe_key = "dk-d";
  dropped.status = InboxStatus::kDroppedUnbound;
  dropped.reason_code = "bind_ambiguous";
  fx.inbox.push_back(dropped);
  ASSERT_TRUE(store_->Commit(fx, kT0 + 3000).ok());

  Reopen();
  auto snap = store_->LoadSnapshot();
  ASSERT_TRUE(snap.ok()) << snap.error().ToString();
  ASSERT_EQ(snap->runtimes.size(), 1u);
  EXPECT_EQ(snap->runtimes[0], r);
  ASSERT_EQ(snap->cursors.size(), 1u);
  EXPECT_EQ(snap->cursors[0], fx.cursors[0]);
  ASSERT_EQ(snap->states.size(), 1u);
  EXPECT_EQ(snap->states[0], fx.states[0]);
  ASSERT_EQ(snap->candidates.size(), 1u);
  EXPECT_EQ(snap->candidates[0], fx.candidates[0]);
  ASSERT_EQ(snap->pending.size(), 1u);  // only pending_bind entries
  EXPECT_EQ(snap->pending[0], pending);
  ASSERT_EQ(snap->target_health.size(), 1u);
  EXPECT_EQ(snap->target_health[0], std::make_pair(std::string("host"), TargetHealth::kDegraded));
  EXPECT_EQ(snap->dedupe_keys,
            (std::vector<std::string>{"rt-1\x1fhook\x1f" "dk-ev-1",
                                      "rt-1\x1fwrapper\x1f" "dk-start-rt-1"}));

  auto events = store_->EventsForRuntime("rt-1");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0], *Started(r).stored_event);
  EXPECT_EQ((*events)[1], e);
  auto limited = store_->EventsForRuntime("rt-1", 1);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->size(), 1u);
  auto inbox = store_->InboxForPane("host", "%1");
  ASSERT_TRUE(inbox.ok());
  ASSERT_EQ(inbox->size(), 2u);  // same ingested_at: ordered by event_id
  EXPECT_EQ((*inbox)[0], dropped);
  EXPECT_EQ((*inbox)[1], pending);
}

TEST_F(StoreTest, EmptyEffectsWriteNothing) {
  Runtime r = MakeRuntime("rt-1", "%1");
  ASSERT_TRUE(store_->Commit(Started(r), kT0).ok());
  ASSERT_TRUE(store_->Checkpoint().ok());
  const std::string db_file = dir_.File("agtmux.db");
  const std::string wal_file = db_file + "-wal";
  std::string db_before = storetest::ReadBytes(db_file);
  std::string wal_before = storetest::ReadBytes(wal_file);
  int64_t changes = store_->db().TotalChanges();
  int64_t data_version = *store_->db().QueryInt("PRAGMA data_version");

  for (Disposition d : {Disposition::kDuplicate, Disposition::kRejected, Disposition::kIgnored}) {
    Effects fx;
    fx.disposition = d;
    fx.error_code = "E_DUPLICATE";
    ASSERT_TRUE(store_->Commit(fx, kT0 + 1).ok());
  }
  std::vector<Effects> batch(50);
  ASSERT_TRUE(store_->CommitBatch(batch, kT0 + 2).ok());

  EXPECT_EQ(store_->db().TotalChanges(), changes);
  EXPECT_EQ(*store_->db().QueryInt("PRAGMA data_version"), data_version);
  EXPECT_EQ(storetest::ReadBytes(db_file), db_before);
  EXPECT_EQ(storetest::ReadBytes(wal_file), wal_before);
  EXPECT_TRUE(Store::Empty(Effects{}));
  EXPECT_FALSE(Store::Empty(AppliedEffects(r, MakeEvent("x", "rt-1", Source::kHook, 1, kT0), 1)));
}

TEST_F(StoreTest, BatchIsAllOrNothing) {
  Runtime r = MakeRuntime("rt-1", "%1");
  std::vector<Effects> batch;
  batch.push_back(Started(r));
  batch.push_back(AppliedEffects(r, MakeEvent("ev-1", "rt-1", Source::kHook, 1, kT0 + 1), 1));
  // An event for a runtime the store has never seen breaks the foreign key.
  Runtime ghost = MakeRuntime("ghost", "%9");
  batch.push_back(AppliedEffects(ghost, MakeEvent("ev-2", "ghost", Source::kHook, 1, kT0 + 2), 1));
  auto st = store_->CommitBatch(batch, kT0);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, core::Err::kStore);
  EXPECT_NE(st.error().message.find("ev-2"), std::string::npos) << st.error().message;
  EXPECT_EQ(Count("events"), 0);
  EXPECT_EQ(Count("runtimes"), 0);
  EXPECT_EQ(Count("states"), 0);

  batch.pop_back();
  ASSERT_TRUE(store_->CommitBatch(batch, kT0).ok());
  EXPECT_EQ(Count("events"), 2);
  EXPECT_EQ(Count("states"), 1);
}

TEST_F(StoreTest, DuplicateEventIsRefusedByTheDatabase) {
  Runtime r = MakeRuntime("rt-1", "%1");
  ASSERT_TRUE(store_->Commit(Started(r), kT0).ok());
  core::Event e = MakeEvent("ev-1", "rt-1", Source::kHook, 1, kT0 + 1);
  ASSERT_TRUE(store_->Commit(AppliedEffects(r, e, 1), kT0).ok());
  e.event_id = "ev-1-again";  // same (runtime, source, dedupe_key)
  auto st = store_->Commit(AppliedEffects(r, e, 2), kT0);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("UNIQUE"), std::string::npos) << st.error().message;
  EXPECT_EQ(Count("events"), 2);
  EXPECT_EQ(store_->FindPaneState("host", "%1")->state_version, 1);
}

TEST_F(StoreTest, RuntimeSuccessionInOneEffects) {
  Runtime old_rt = MakeRuntime("rt-old", "%1", 0);
  ASSERT_TRUE(store_->Commit(Started(old_rt), kT0).ok());
  // The engine lists the new runtime first; the store must still end the old
  // one before the partial unique index sees the new one.
  Runtime new_rt = MakeRuntime("rt-new", "%1", 1);
  new_rt.started_at = kT0 + 10;
  Effects fx = Started(new_rt);
  old_rt.ended_at = kT0 + 10;
  fx.runtimes.push_back(old_rt);
  ASSERT_TRUE(store_->Commit(fx, kT0 + 10).ok());
  EXPECT_EQ(store_->FindRuntime("rt-old")->ended_at, kT0 + 10);
  EXPECT_EQ(store_->FindRuntime("rt-new")->ended_at, 0);
  auto missing = store_->FindRuntime("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, core::Err::kNotFound);
}

TEST_F(StoreTest, StateUpdatesReplaceTheRow) {
  Runtime r = MakeRuntime("rt-1", "%1");
  ASSERT_TRUE(store_->Commit(Started(r), kT0).ok());
  ASSERT_TRUE(store_->Commit(AppliedEffects(r, MakeEvent("a", "rt-1", Source::kHook, 1, kT0 + 1), 1), kT0).ok());
  core::Event done = MakeEvent("b", "rt-1", Source::kHook, 2, kT0 + 2);
  done.signal = core::Signal{State::kUnknown, "stale_signal", core::Confidence::kLow, "", "", {}};
  Effects fx = AppliedEffects(r, done, 2);
  fx.states[0].has_source = false;
  fx.states[0].source = Source::kPoller;  // meaningless without has_source; not stored
  ASSERT_TRUE(store_->Commit(fx, kT0).ok());
  auto s = store_->FindPaneState("host", "%1");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, fx.states[0]);
  EXPECT_EQ(Count("states"), 1);
  EXPECT_EQ(Count("candidates"), 1);
  EXPECT_EQ(Count("runtime_source_cursors"), 1);
  EXPECT_EQ(*store_->db().QueryInt("SELECT count(*) FROM states WHERE source IS NULL"), 1);
}

TEST_F(StoreTest, InboxRowIsUpdatedWhenBound) {
  Runtime r = MakeRuntime("rt-1", "%1");
  InboxEntry entry;
  entry.event = MakeEvent("ev-p", "", Source::kHook, 1, kT0);
  Effects parked;
  parked.disposition = Disposition::kPending;
  parked.inbox.push_back(entry);
  ASSERT_TRUE(store_->Commit(parked, kT0).ok());

  Effects bound = Started(r);
  entry.status = InboxStatus::kBound;
  entry.event.runtime_id = "rt-1";
  bound.inbox.push_back(entry);
  bound.bound_events.push_back(entry.event);
  ASSERT_TRUE(store_->Commit(bound, kT0 + 1).ok());
  EXPECT_EQ(Count("event_inbox"), 1);
  auto inbox = store_->InboxForPane("host", "%1");
  ASSERT_EQ(inbox->size(), 1u);
  EXPECT_EQ((*inbox)[0].status, InboxStatus::kBound);
  EXPECT_EQ((*inbox)[0].event.runtime_id, "rt-1");
  EXPECT_EQ(store_->EventsForRuntime("rt-1")->size(), 2u);
  EXPECT_TRUE(store_->LoadSnapshot()->pending.empty());
}

TEST_F(StoreTest, EventParkedForAnUnknownRuntimeWithoutPane) {
  // The engine parks events that name a runtime it does not know yet; such
  // an event may not name its pane (wrapper_exited).
  InboxEntry entry;
  entry.event = MakeEvent("ev-x", "rt-later", Source::kWrapper, 3, kT0);
  entry.event.pane_id.clear();
  Effects fx;
  fx.disposition = Disposition::kPending;
  fx.inbox.push_back(entry);
  ASSERT_TRUE(store_->Commit(fx, kT0).ok());
  auto snap = store_->LoadSnapshot();
  ASSERT_EQ(snap->pending.size(), 1u);
  EXPECT_EQ(snap->pending[0], entry);
}

TEST_F(StoreTest, ListPaneStatesJoinsTopologyAndRuntime) {
  Runtime r = MakeRuntime("rt-1", "%1");
  ASSERT_TRUE(store_->Commit(Started(r), kT0).ok());
  ASSERT_TRUE(store_->Commit(AppliedEffects(r, MakeEvent("a", "rt-1", Source::kWrapper, 1, kT0 + 1), 1), kT0).ok());
  PaneState bare;
  bare.target_id = "vm1";
  bare.pane_id = "%4";
  bare.signal = core::Signal{State::kUnknown, "no_agent", core::Confidence::kLow, "", "", {}};
  bare.state_version = 1;
  Effects fx;
  fx.states.push_back(bare);
  ASSERT_TRUE(store_->Commit(fx, kT0).ok());
  ASSERT_TRUE(store_->UpsertTarget({"host", "host", "local", "", true, kT0, kT0}).ok());
  ASSERT_TRUE(store_->UpsertPane({"host", "%1", "work", "@2", "agents", kT0}).ok());

  auto list = store_->ListPaneStates();
  ASSERT_TRUE(list.ok()) << list.error().ToString();
  ASSERT_EQ(list->size(), 2u);
  const PaneStateView& a = (*list)[0];
  EXPECT_EQ(a.state.pane_id, "%1");
  ASSERT_TRUE(a.pane.has_value());
  EXPECT_EQ(a.pane->session_name, "work");
  EXPECT_EQ(a.pane->window_id, "@2");
  ASSERT_TRUE(a.runtime.has_value());
  EXPECT_EQ(*a.runtime, r);
  EXPECT_EQ(a.target_name, "host");
  const PaneStateView& b = (*list)[1];
  EXPECT_EQ(b.state, bare);
  EXPECT_FALSE(b.pane.has_value());
  EXPECT_FALSE(b.runtime.has_value());
  EXPECT_EQ(b.target_name, "");
}

TEST_F(StoreTest, TopologyUpsertsAndDeletes) {
  ASSERT_TRUE(store_->UpsertTarget({"vm1", "vm1", "ssh", "vm1-alias", false, std::nullopt, kT0}).ok());
  TargetRow t{"vm1", "VM one", "ssh", "vm1", false, kT0 + 5, kT0 + 5};
  ASSERT_TRUE(store_->UpsertTarget(t).ok());
  EXPECT_EQ(*store_->FindTarget("vm1"), t);
  auto bad = store_->UpsertTarget({"vm2", "vm2", "telnet", "", false, std::nullopt, kT0});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, core::Err::kTargetInvalid);
  EXPECT_NE(bad.error().message.find("telnet"), std::string::npos);

  // Health is the engine's: a topology upsert does not reset it.
  Effects fx;
  fx.target_health.emplace_back("vm1", TargetHealth::kDown);
  ASSERT_TRUE(store_->Commit(fx, kT0 + 6).ok());
  ASSERT_TRUE(store_->UpsertTarget(t).ok());
  EXPECT_EQ(*store_->db().QueryText("SELECT health FROM targets WHERE target_id = 'vm1'"), "down");
  // A health change for a target no collector has written yet.
  fx.target_health = {{"vm9", TargetHealth::kDegraded}};
  ASSERT_TRUE(store_->Commit(fx, kT0 + 7).ok());
  EXPECT_EQ(store_->FindTarget("vm9")->target_name, "vm9");
  EXPECT_EQ(store_->ListTargets()->size(), 2u);

  ASSERT_TRUE(store_->UpsertPane({"vm1", "%1", "s", "@1", "w", kT0}).ok());
  ASSERT_TRUE(store_->UpsertPane({"vm1", "%2", "s", "@1", "w", kT0}).ok());
  ASSERT_TRUE(store_->UpsertPane({"vm1", "%1", "s2", "@3", "w2", kT0 + 1}).ok());
  auto panes = store_->ListPanes("vm1");
  ASSERT_EQ(panes->size(), 2u);
  EXPECT_EQ((*panes)[0], (PaneRow{"vm1", "%1", "s2", "@3", "w2", kT0 + 1}));
  ASSERT_TRUE(store_->DeletePane("vm1", "%1").ok());
  EXPECT_EQ(store_->ListPanes("vm1")->size(), 1u);
}

TEST_F(StoreTest, ActionsAreIdempotentOnRequestRef) {
  ActionRow a;
  a.action_id = "act-1";
  a.action_type = "send";
  a.request_ref = "01JREQ";
  a.target_id = "host";
  a.pane_id = "%1";
  a.requested_at = kT0;
  a.metadata_json = R"({"text":"yes"})";
  ASSERT_TRUE(store_->InsertAction(a).ok());
  EXPECT_EQ(*store_->FindActionByRequest("send", "01JREQ"), a);
  ActionRow again = a;
  again.action_id = "act-2";
  auto st = store_->InsertAction(again);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, core::Err::kIdempotencyConflict);
  EXPECT_NE(st.error().message.find("act-1"), std::string::npos);
  again.action_type = "kill";  // another type may reuse the ref
  EXPECT_TRUE(store_->InsertAction(again).ok());
  auto missing = store_->FindActionByRequest("attach", "01JREQ");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, core::Err::kNotFound);

  a.completed_at = kT0 + 9;
  a.result_code = "ok";
  ASSERT_TRUE(store_->UpdateAction(a).ok());
  EXPECT_EQ(*store_->FindAction("act-1"), a);
  ActionRow ghost = a;
  ghost.action_id = "nope";
  EXPECT_EQ(store_->UpdateAction(ghost).error().code, core::Err::kNotFound);

  ActionSnapshotRow snap{"snap-1", "act-1", "host", "%1", "", 4, kT0, kT0 + 30, "n0nce"};
  ASSERT_TRUE(store_->InsertActionSnapshot(snap).ok());
  EXPECT_EQ(*store_->FindActionSnapshot("snap-1"), snap);
  ActionSnapshotRow orphan = snap;
  orphan.snapshot_id = "snap-2";
  orphan.action_id = "no-such-action";
  EXPECT_FALSE(store_->InsertActionSnapshot(orphan).ok());  // foreign key

  // Events caused by the action form its audit trail.
  Runtime r = MakeRuntime("rt-1", "%1");
  ASSERT_TRUE(store_->Commit(Started(r), kT0).ok());
  core::Event e = MakeEvent("ev-a", "rt-1", Source::kWrapper, 1, kT0 + 1);
  e.action_id = "act-1";
  ASSERT_TRUE(store_->Commit(AppliedEffects(r, e, 1), kT0).ok());
  auto trail = store_->EventsForAction("act-1");
  ASSERT_EQ(trail->size(), 1u);
  EXPECT_EQ((*trail)[0], e);
}

TEST_F(StoreTest, AdaptersUpsert) {
  ASSERT_TRUE(store_->UpsertAdapter({"claude-hooks", "claude", "1", "{}", true, kT0}).ok());
  AdapterRow b{"claude-hooks", "claude", "2", R"({"hooks":true})", false, kT0 + 1};
  ASSERT_TRUE(store_->UpsertAdapter(b).ok());
  auto list = store_->ListAdapters();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0], b);
}

TEST_F(StoreTest, DamagedRowIsAnErrorNamingIt) {
  Runtime r = MakeRuntime("rt-1", "%1");
  ASSERT_TRUE(store_->Commit(Started(r), kT0).ok());
  ASSERT_TRUE(store_->Commit(AppliedEffects(r, MakeEvent("a", "rt-1", Source::kHook, 1, kT0 + 1), 1), kT0).ok());
  ASSERT_TRUE(store_->db().Exec("UPDATE events SET signal_json = '{\"state\":7}' WHERE event_id = 'a'").ok());
  auto events = store_->EventsForRuntime("rt-1");
  ASSERT_FALSE(events.ok());
  EXPECT_EQ(events.error().code, core::Err::kStore);
  EXPECT_NE(events.error().message.find("`state`"), std::string::npos) << events.error().message;
  ASSERT_TRUE(store_->db().Exec("UPDATE candidates SET detail_json = 'not json'").ok());
  auto snap = store_->LoadSnapshot();
  ASSERT_FALSE(snap.ok());
  EXPECT_NE(snap.error().message.find("candidates row rt-1/hook"), std::string::npos)
      << snap.error().message;
}

TEST_F(StoreTest, ReaderSeesCommittedRows) {
  Runtime r = MakeRuntime("rt-1", "%1");
  auto reader = Store::Open(storetest::ReaderOpts(dir_.File("agtmux.db")));
  ASSERT_TRUE(reader.ok()) << reader.error().ToString();
  ASSERT_TRUE(store_->Commit(Started(r), kT0).ok());
  EXPECT_EQ((*reader)->FindRuntime("rt-1")->runtime_id, "rt-1");
  EXPECT_FALSE((*reader)->Commit(Started(MakeRuntime("rt-2", "%2")), kT0).ok());
}

}  // namespace
}  // namespace agt::state
