// DaemonCore, the one ingest path, over the fake engine and persistence:
// stamping, redaction before anything sees an event, acknowledgement only
// after the commit, what a failed commit answers and leaves, fan-out to
// the tmux decorations and target health, restart and demotions.
#include "aggregator/ingest/daemon_core.h"

#include <gtest/gtest.h>

#include "tests/agg/daemon/core_fixture.h"
#include "tests/state/event_builder.h"

namespace agt::agg::testing {
namespace {

using state::testing::StateEv;
using state::testing::WrapperStart;
namespace et = core::event_type;

core::Event Stamped(core::Event e) {
  e.ingested_at = 0;  // the daemon stamps it
  return e;
}

class DaemonCoreTest : public CoreFixture {};

TEST_F(DaemonCoreTest, StampsStrictlyIncreasingIngestedAtWithAStillClock) {
  const core::TimeNs now = clock_.Now();
  auto r = core_->Ingest({Stamped(WrapperStart("w1", "%1", 100, now)),
                          Stamped(StateEv("s1", core::Source::kWrapper, "w1", core::State::kRunning, now)),
                          Stamped(StateEv("s2", core::Source::kWrapper, "w1", core::State::kIdle, now))});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(engine_->applied.size(), 3u);
  EXPECT_EQ(engine_->applied[0].event.ingested_at, now);
  EXPECT_EQ(engine_->applied[1].event.ingested_at, now + 1);
  EXPECT_EQ(engine_->applied[2].event.ingested_at, now + 2);
  for (const auto& a : engine_->applied) EXPECT_EQ(a.now, a.event.ingested_at);
  // One call, one commit, holding the stamped events.
  ASSERT_EQ(store_->disk().batches.size(), 1u);
  EXPECT_EQ(store_->disk().batches[0].size(), 3u);
  EXPECT_EQ(store_->disk().batches[0][2].event.ingested_at, now + 2);
  // The next call continues after the last stamp even though the clock did not move.
  ASSERT_TRUE(core_->Ingest({Stamped(StateEv("s3", core::Source::kWrapper, "w1", core::State::kRunning, now))}).ok());
  EXPECT_EQ(engine_->applied.back().event.ingested_at, now + 3);
  EXPECT_EQ(core_->events_ingested(), 4);
}

TEST_F(DaemonCoreTest, RedactsBeforeTheEngineAndTheStoreSeeAnEvent) {
  const std::string key = "sk-ant-api03-Zq9x7TQk2mPl0RfVb8yNc3Hd5Js6Wa1Ue4Io-AAAAbbbb";
  core::Event e = Stamped(StateEv("s1", core::Source::kHook, "w1", core::State::kWaitingApproval, clock_.Now()));
  e.raw_payload = R"({"command":"curl -H 'x-api-key: )" + key + "'\"}";
  e.signal->evidence = "export ANTHROPIC_API_KEY=" + key;
  e.signal->detail.details = "run: curl " + key;
  e.signal->detail.choices = {"Yes", "Yes, and remember " + key};
  ASSERT_TRUE(core_->Ingest({Stamped(WrapperStart("w1", "%1", 100, clock_.Now())), e}).ok());
  auto leaks = [&](const core::Event& seen) {
    std::string all;
    core::ForEachSecretText(seen, [&](const std::string& t) { all += t + "\n"; });
    return all.find(key) != std::string::npos;
  };
  ASSERT_EQ(engine_->applied.size(), 2u);
  EXPECT_FALSE(leaks(engine_->applied[1].event));
  EXPECT_NE(engine_->applied[1].event.raw_payload.find("[REDACTED:anthropic_api_key]"), std::string::npos)
      << engine_->applied[1].event.raw_payload;
  for (const Applied& a : store_->disk().batches.at(0)) {
    EXPECT_FALSE(leaks(a.event));
    for (const state::PaneState& ps : a.effects.states) EXPECT_EQ(ps.signal.evidence.find(key), std::string::npos);
  }
}

TEST_F(DaemonCoreTest, AFailedCommitIsNotAcknowledgedAndChangesNothingOutside) {
  ASSERT_TRUE(core_->Ingest({Stamped(WrapperStart("w1", "%1", 100, clock_.Now()))}).ok());
  const size_t shown = decorator_.shown.size();
  const int64_t ingested = core_->events_ingested();
  store_->fail_commits = 1;
  auto r = core_->Ingest({Stamped(StateEv("s1", core::Source::kWrapper, "w1", core::State::kWaitingInput, clock_.Now())),
                          Stamped(core::Event(state::testing::Ev(et::kTargetHealthChanged, core::Source::kPoller, "h")
                                                  .Pane("host", "")
                                                  .Health("down")))});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kStore);
  EXPECT_EQ(store_->commit_calls, 2);
  EXPECT_EQ(store_->disk().batches.size(), 1u);
  EXPECT_EQ(core_->events_ingested(), ingested);
  EXPECT_EQ(decorator_.shown.size(), shown);  // tmux was not told
  EXPECT_EQ(core_->targets().Find("host")->health, core::TargetHealth::kOk);
  // Issue 14 item 8: the engine does not run ahead of the store. What it
  // shows is what was committed: the failed batch's waiting_input is not.
  std::vector<PaneRow> rows = core_->Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(rows[0].st.signal.state, core::State::kWaitingInput);
  EXPECT_EQ(store_->restores, 2) << "the engine is rebuilt from the store after the failed commit";
  EXPECT_EQ(core_->store_error(), r.error().message) << "/v1/health shows why the store fails";
  // The daemon keeps serving: the next batch commits and is acknowledged.
  auto next = core_->Ingest({Stamped(StateEv("s2", core::Source::kWrapper, "w1", core::State::kRunning, clock_.Now()))});
  ASSERT_TRUE(next.ok()) << next.error().ToString();
  EXPECT_EQ((*next)[0].disposition, state::Disposition::kApplied);
  EXPECT_EQ(store_->disk().batches.size(), 2u);
  EXPECT_EQ(core_->events_ingested(), ingested + 1);
  EXPECT_EQ(core_->store_error(), "");
}

TEST_F(DaemonCoreTest, ACommitTellsTmuxAndTheTargets) {
  auto r = core_->Ingest({Stamped(WrapperStart("w1", "%1", 100, clock_.Now())),
                          Stamped(StateEv("s1", core::Source::kHook, "w1", core::State::kWaitingApproval, clock_.Now())),
                          Stamped(core::Event(state::testing::Ev(et::kTargetHealthChanged, core::Source::kPoller, "h")
                                                  .Pane("host", "")
                                                  .Health("degraded")))});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 3u);
  for (const IngestResult& res : *r) EXPECT_EQ(res.disposition, state::Disposition::kApplied) << res.event_id;
  ASSERT_FALSE(decorator_.shown.empty());
  EXPECT_EQ(decorator_.shown.back(),
            std::make_tuple(std::string("host"), std::string("%1"), core::State::kWaitingApproval, core::Source::kHook));
  EXPECT_EQ(core_->targets().Find("host")->health, core::TargetHealth::kDegraded);
  std::vector<PaneRow> rows = core_->Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].agent);
  EXPECT_EQ(rows[0].st.signal.state, core::State::kWaitingApproval);
}

TEST_F(DaemonCoreTest, ARestartRestoresAndStampsAfterWhatWasStored) {
  const core::TimeNs t0 = clock_.Now();
  ASSERT_TRUE(core_->Ingest({Stamped(WrapperStart("w1", "%1", 100, t0)),
                             Stamped(StateEv("s1", core::Source::kWrapper, "w1", core::State::kIdle, t0))})
                  .ok());
  std::shared_ptr<FakeDisk> disk = std::make_shared<FakeDisk>(store_->disk());
  clock_.Set(t0 - 60 * core::kNsPerSec);  // the clock went back across the restart
  Open(disk);
  ASSERT_EQ(engine_->restored.size(), 1u);
  EXPECT_EQ(store_->restores, 1);
  ASSERT_NE(core_->state().FindPane("host", "%1"), nullptr);
  EXPECT_EQ(core_->state().FindPane("host", "%1")->signal.state, core::State::kIdle);
  ASSERT_TRUE(core_->Ingest({Stamped(StateEv("s2", core::Source::kWrapper, "w1", core::State::kRunning, t0))}).ok());
  EXPECT_EQ(engine_->applied.back().event.ingested_at, t0 + 2);
}

TEST_F(DaemonCoreTest, TickCommitsTheEnginesTimedWorkAndSendsDemotionsThroughIngest) {
  ASSERT_TRUE(core_->Ingest({Stamped(WrapperStart("w1", "%1", 100, clock_.Now()))}).ok());
  state::PaneState expired;
  expired.target_id = "host";
  expired.pane_id = "%4";
  engine_->next_tick.states.push_back(expired);
  engine_->demotions = {{"host", "%1", "w1", 42}};
  clock_.Advance(core::kNsPerSec);
  core_->Tick();
  ASSERT_EQ(engine_->ticks.size(), 1u);
  EXPECT_EQ(engine_->ticks[0], clock_.Now());
  // The tick's own effects were committed, then the demotion went through ingest.
  ASSERT_EQ(store_->disk().batches.size(), 3u);
  EXPECT_EQ(store_->disk().batches[1].at(0).effects.states.at(0).pane_id, "%4");
  const core::Event& d = engine_->applied.back().event;
  EXPECT_EQ(d.event_type, et::kDemotionDue);
  EXPECT_EQ(d.runtime_id, "w1");
  EXPECT_EQ(d.source_seq, 42);
  EXPECT_EQ(d.dedupe_key, "demotion:w1:42");
}

TEST_F(DaemonCoreTest, CollectorEventsAreQueuedThenCommittedTogether) {
  core_->OnEvent(Stamped(WrapperStart("w1", "%1", 100, clock_.Now())));
  core_->OnEvent(Stamped(StateEv("s1", core::Source::kPoller, "w1", core::State::kRunning, clock_.Now())));
  EXPECT_TRUE(engine_->applied.empty());  // not before the loop turns
  ASSERT_TRUE(core_->Flush().ok());
  EXPECT_EQ(engine_->applied.size(), 2u);
  ASSERT_EQ(store_->disk().batches.size(), 1u);
  EXPECT_EQ(store_->disk().batches[0].size(), 2u);
  EXPECT_EQ(store_->flushes, 1);
}

}  // namespace
}  // namespace agt::agg::testing
