// Retention: payloads older than payload_age lose raw_payload, events older
// than metadata_age are deleted (with bound/dropped inbox rows), exactly at
// the boundaries, in bounded batches, and nothing younger is touched.
#include <gtest/gtest.h>

#include "state/store/store.h"
#include "tests/store/store_fixtures.h"

namespace agt::state {
namespace {

using core::kNsPerSec;
using core::Source;
using storetest::kT0;
using storetest::MakeEvent;
using storetest::MakeRuntime;
using storetest::TempDir;

constexpr core::TimeNs kDay = 24 * 3600 * kNsPerSec;

class RetentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::Open(storetest::Opts(dir_.File("agtmux.db"), Durability::kNormal));
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
    Effects start;
    start.runtimes.push_back(MakeRuntime("rt-1", "%1"));
    ASSERT_TRUE(store_->Commit(start, kT0).ok());
  }
  void AddEvent(const std::string& id, core::TimeNs ingested_at) {
    Effects fx;
    fx.stored_event = MakeEvent(id, "rt-1", Source::kHook, 0, ingested_at);
    ASSERT_TRUE(store_->Commit(fx, ingested_at).ok());
  }
  void AddInbox(const std::string& id, core::TimeNs at, InboxStatus status) {
    Effects fx;
    InboxEntry e;
    e.event = MakeEvent(id, "", Source::kNotify, 0, at);
    e.status = status;
    if (status == InboxStatus::kDroppedUnbound) e.reason_code = "bind_ttl_expired";
    fx.inbox.push_back(e);
    ASSERT_TRUE(store_->Commit(fx, at).ok());
  }
  int64_t Int(const std::string& sql) { return *store_->db().QueryInt(sql); }
  bool HasPayload(const std::string& id) {
    return Int("SELECT raw_payload IS NOT NULL FROM events WHERE event_id = '" + id + "'") != 0;
  }
  bool HasEvent(const std::string& id) {
    return Int("SELECT count(*) FROM events WHERE event_id = '" + id + "'") != 0;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(RetentionTest, BoundariesAreExact) {
  const core::TimeNs now = kT0 + 30 * kDay;
  AddEvent("fresh", now - kDay);
  AddEvent("payload-edge", now - 7 * kDay);         // exactly 7 days: kept
  AddEvent("payload-old", now - 7 * kDay - 1);      // 1 ns older: payload cleared
  AddEvent("meta-edge", now - 14 * kDay);           // exactly 14 days: row kept, payload cleared
  AddEvent("meta-old", now - 14 * kDay - 1);        // deleted
  AddEvent("ancient", now - 29 * kDay);             // deleted

  auto report = store_->RunRetention(now);
  ASSERT_TRUE(report.ok()) << report.error().ToString();
  EXPECT_TRUE(report->done);
  EXPECT_EQ(report->events_deleted, 2);
  EXPECT_EQ(report->payloads_cleared, 2);
  EXPECT_TRUE(HasPayload("fresh"));
  EXPECT_TRUE(HasPayload("payload-edge"));
  EXPECT_FALSE(HasPayload("payload-old"));
  EXPECT_TRUE(HasEvent("payload-old"));
  EXPECT_FALSE(HasPayload("meta-edge"));
  EXPECT_TRUE(HasEvent("meta-edge"));
  EXPECT_FALSE(HasEvent("meta-old"));
  EXPECT_FALSE(HasEvent("ancient"));
  // The metadata of a cleared event is intact.
  auto events = store_->EventsForRuntime("rt-1");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 4u);  // fresh, payload-edge, payload-old, meta-edge
  EXPECT_EQ((*events)[0].event_id, "meta-edge");
  EXPECT_EQ((*events)[0].raw_payload, "");
  EXPECT_EQ((*events)[0].dedupe_key, "dk-meta-edge");
  ASSERT_TRUE((*events)[0].signal.has_value());

  // A second run finds nothing more to do.
  auto again = store_->RunRetention(now);
  EXPECT_EQ(again->events_deleted, 0);
  EXPECT_EQ(again->payloads_cleared, 0);
  EXPECT_EQ(*store_->IntegrityCheck(), "ok");
}

TEST_F(RetentionTest, AgesAreConfigurable) {
  const core::TimeNs now = kT0 + 10 * kDay;
  AddEvent("a", now - 2 * kDay);
  AddEvent("b", now - 4 * kDay);
  RetentionOptions opt;
  opt.payload_age = 1 * kDay;
  opt.metadata_age = 3 * kDay;
  auto report = store_->RunRetention(now, opt);
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(HasPayload("a"));
  EXPECT_TRUE(HasEvent("a"));
  EXPECT_FALSE(HasEvent("b"));
}

TEST_F(RetentionTest, InboxKeepsPendingRows) {
  const core::TimeNs now = kT0 + 30 * kDay;
  AddInbox("old-pending", now - 20 * kDay, InboxStatus::kPendingBind);
  AddInbox("old-dropped", now - 20 * kDay, InboxStatus::kDroppedUnbound);
  AddInbox("old-bound", now - 20 * kDay, InboxStatus::kBound);
  AddInbox("new-dropped", now - 1 * kDay, InboxStatus::kDroppedUnbound);
  AddInbox("mid-dropped", now - 8 * kDay, InboxStatus::kDroppedUnbound);
  auto report = store_->RunRetention(now);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->inbox_deleted, 2);
  auto ids = store_->db().QueryText(
      "SELECT group_concat(event_id, ',') FROM (SELECT event_id FROM event_inbox ORDER BY event_id)");
  EXPECT_EQ(*ids, "mid-dropped,new-dropped,old-pending");
  EXPECT_EQ(Int("SELECT count(*) FROM event_inbox WHERE raw_payload IS NULL"), 2);  // mid + old-pending
  EXPECT_EQ(Int("SELECT raw_payload IS NULL FROM event_inbox WHERE event_id = 'old-pending'"), 1);
  // The pending row is still handed to the engine.
  EXPECT_EQ(store_->LoadSnapshot()->pending.size(), 1u);
}

TEST_F(RetentionTest, WorkIsDoneInBoundedBatches) {
  const core::TimeNs now = kT0 + 30 * kDay;
  std::vector<Effects> batch;
  for (int i = 0; i < 25; ++i) {
    Effects fx;
    fx.stored_event = MakeEvent("old-" + std::to_string(i), "rt-1", Source::kHook, 0, now - 20 * kDay + i);
    batch.push_back(fx);
  }
  ASSERT_TRUE(store_->CommitBatch(batch, now).ok());
  RetentionOptions opt;
  opt.batch_rows = 10;
  opt.max_batches = 2;
  auto first = store_->RunRetention(now, opt);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->done);
  EXPECT_EQ(first->events_deleted, 20);
  EXPECT_EQ(Int("SELECT count(*) FROM events"), 5);
  auto second = store_->RunRetention(now, opt);
  EXPECT_EQ(second->events_deleted, 5);
  EXPECT_TRUE(second->done);
  EXPECT_EQ(Int("SELECT count(*) FROM events"), 0);
}

}  // namespace
}  // namespace agt::state

namespace agt::state {
namespace {

// The action audit follows the same ages: details are payloads, actions
// with their snapshots and audit events are metadata, the action row goes
// last (a foreign key refers to it) and only once nothing refers to it.
TEST_F(RetentionTest, TheActionAuditFollowsTheSameAges) {
  const core::TimeNs now = kT0 + 30 * kDay;
  auto add = [&](const std::string& id, core::TimeNs at) {
    ActionRow a;
    a.action_id = id;
    a.action_type = "send";
    a.request_ref = id;
    a.target_id = "local";
    a.pane_id = "%1";
    a.requested_at = at;
    ASSERT_TRUE(store_->InsertAction(a).ok());
    ASSERT_TRUE(store_->InsertActionSnapshot({"snap-" + id, id, "local", "%1", "", 1, at, at + kNsPerSec, "n"}).ok());
    for (int i = 0; i < 2; ++i)
      ASSERT_TRUE(store_->InsertActionEvent({id + "-ev" + std::to_string(i), id, i, "action_sent", at + i,
                                             "bytes=4"}).ok());
  };
  add("old", now - 20 * kDay);
  add("payload-old", now - 10 * kDay);
  add("fresh", now - kDay);
  auto r = store_->RunRetention(now);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->actions_deleted, 1);
  EXPECT_FALSE(store_->FindAction("old").ok());
  EXPECT_FALSE(store_->FindActionSnapshot("snap-old").ok());
  EXPECT_TRUE(store_->ActionEvents("old")->empty());
  auto kept = store_->ActionEvents("payload-old");
  ASSERT_EQ(kept->size(), 2u);
  EXPECT_EQ((*kept)[0].detail, "");  // cleared after 7 days
  EXPECT_TRUE(store_->FindAction("payload-old").ok());
  auto fresh = store_->ActionEvents("fresh");
  ASSERT_EQ(fresh->size(), 2u);
  EXPECT_EQ((*fresh)[1].detail, "bytes=4");
  EXPECT_EQ(Int("SELECT count(*) FROM pragma_foreign_key_check"), 0);
}

}  // namespace
}  // namespace agt::state
